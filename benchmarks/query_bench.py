"""The query half of the benchmark: in-process latencies, the cold CLI, MCP over stdio.

Queries are drawn from the built database with seeded randomness, so a run measures the codes
and words that are really there (and two runs with one seed measure the same ones). Every
case is called once to warm up and then ``calls`` times; the database file is read once first
so that the operating system's cache holds it ("warm").
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks import mcp_roundtrip
from pmgs_core import PMGSStore
from pmgs_core.building import fold_for_search, is_indexed_bigram

RARE_MAX_ROWS = 50
"""A ≥3-character phrase counts as rare when it occurs in at most this many lines."""


@dataclass
class Case:
    """One measured kind of call: a label, the calls, and the design.md target it answers."""

    key: str
    label: str
    calls: list[Callable[[], Any]]
    detail: str
    samples: list[float] = field(default_factory=list)


def percentile(samples: list[float], fraction: float) -> float:
    return mcp_roundtrip.percentile(samples, fraction)


def summarize(samples: list[float]) -> dict[str, float | int]:
    return {
        "calls": len(samples),
        "p50_ms": percentile(samples, 0.5) * 1000,
        "p95_ms": percentile(samples, 0.95) * 1000,
        "max_ms": max(samples) * 1000,
        "mean_ms": statistics.fmean(samples) * 1000,
    }


def warm_file(path: Path) -> None:
    """Read the file once so that its pages are in the OS cache."""
    with path.open("rb") as handle:
        while handle.read(1 << 22):
            pass


class Sampler:
    """Seeded draws of codes and terms straight from the database (read-only SQL)."""

    def __init__(self, database: Path, seed: int) -> None:
        self.conn = sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True)
        self.random = random.Random(seed)

    def close(self) -> None:
        self.conn.close()

    def _draw(self, ids: list[int], count: int) -> list[int]:
        if not ids:
            return []
        if len(ids) >= count:
            return self.random.sample(ids, count)
        return [self.random.choice(ids) for _ in range(count)]

    def codes(self, scheme: str, edition: str, count: int) -> list[str]:
        ids = [
            int(row[0])
            for row in self.conn.execute(
                "SELECT id FROM concept WHERE scheme = ? AND edition = ? AND status = 'canonical'",
                (scheme, edition),
            )
        ]
        return [
            str(self.conn.execute("SELECT code FROM concept WHERE id = ?", (i,)).fetchone()[0])
            for i in self._draw(ids, count)
        ]

    def ipc_versions(self, count: int) -> list[tuple[str, str]]:
        ids = [
            int(row[0])
            for row in self.conn.execute(
                "SELECT r.id FROM revision AS r JOIN concept AS c ON c.id = r.concept_id "
                "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.status = 'canonical' "
                "AND r.version <> ''"
            )
        ]
        found = []
        for revision_id in self._draw(ids, count):
            code, version = self.conn.execute(
                "SELECT c.code, r.version FROM revision AS r JOIN concept AS c "
                "ON c.id = r.concept_id WHERE r.id = ?",
                (revision_id,),
            ).fetchone()
            found.append((str(code), str(version)))
        return found

    def _bodies(self, table: str, count: int) -> list[str]:
        """Bodies of random rows (ids drawn between min and max; gaps are skipped)."""
        low, high = self.conn.execute(f"SELECT min(id), max(id) FROM {table}").fetchone()
        if low is None:
            return []
        where = "language = 'ja'" if table == "text" else "1"
        bodies: list[str] = []
        attempts = 0
        while len(bodies) < count and attempts < count * 20:
            attempts += 1
            row = self.conn.execute(
                f"SELECT body FROM {table} WHERE id >= ? AND {where} ORDER BY id LIMIT 1",
                (self.random.randint(int(low), int(high)),),
            ).fetchone()
            if row is not None and str(row[0]).strip():
                bodies.append(str(row[0]))
        return bodies

    def rare_phrases(self, table: str, fts: str, count: int) -> list[str]:
        """Substrings of 6-10 characters occurring in at most ``RARE_MAX_ROWS`` lines."""
        phrases: list[str] = []
        seen: set[str] = set()
        for body in self._bodies(table, count * 6):
            if len(phrases) >= count:
                break
            length = self.random.randint(6, 10)
            if len(body) < length:
                continue
            start = self.random.randint(0, len(body) - length)
            phrase = body[start : start + length]
            if any(ch.isspace() or ch == '"' for ch in phrase) or phrase in seen:
                continue
            seen.add(phrase)
            # One token per trigram works whatever the FTS detail level (phrases need
            # detail=full); instr() then keeps the rows that hold the phrase itself.
            trigrams = dict.fromkeys(phrase[i : i + 3] for i in range(len(phrase) - 2))
            match = " AND ".join('"' + gram + '"' for gram in trigrams)
            hits = self.conn.execute(
                f"SELECT count(*) FROM (SELECT f.rowid FROM {fts} AS f "
                f"JOIN {table} AS x ON x.id = f.rowid WHERE f.{fts} MATCH ? "
                "AND instr(x.body, ?) > 0 LIMIT ?)",
                (match, phrase, RARE_MAX_ROWS + 1),
            ).fetchone()[0]
            if 0 < hits <= RARE_MAX_ROWS:
                phrases.append(phrase)
        return phrases

    def short_terms(self, length: int, count: int) -> list[str]:
        """Terms of 1 or 2 characters cut from random ja texts (so common ones come often)."""
        terms: list[str] = []
        for body in self._bodies("text", count * 4):
            if len(terms) >= count:
                break
            if len(body) < length:
                continue
            start = self.random.randint(0, len(body) - length)
            term = body[start : start + length]
            if any(ch.isspace() or ch.isascii() for ch in term):
                continue
            if length == 2 and not (len(fold_for_search(term)) == 2 and is_indexed_bigram(term)):
                continue
            terms.append(term)
        return terms

    def largest_theme(self) -> tuple[str, int] | None:
        row = self.conn.execute(
            "SELECT substr(code, 1, 5) AS theme, count(*) FROM concept "
            "WHERE scheme = 'fterm' AND status = 'canonical' GROUP BY theme "
            "ORDER BY 2 DESC, 1 LIMIT 1"
        ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def most_children(self) -> tuple[str, str, str, int] | None:
        row = self.conn.execute(
            "SELECT c.scheme, c.edition, c.code, count(*) FROM relation AS r "
            "JOIN concept AS c ON c.id = r.to_concept_id WHERE r.kind = 'parent' "
            "GROUP BY r.to_concept_id ORDER BY 4 DESC, 1, 3 LIMIT 1"
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]), int(row[3]))

    def largest_document(self) -> tuple[str, str, int, int] | None:
        """(key, kind, segments, characters) of the ipc_definition document with the most
        segments (then text), else of the largest document of any kind."""
        for kind_filter in ("WHERE d.kind = 'ipc_definition'", ""):
            row = self.conn.execute(
                "SELECT d.document_key, d.kind, count(*), sum(length(t.body)) FROM document AS d "
                f"JOIN document_text AS t ON t.document_id = d.id {kind_filter} "
                "GROUP BY d.id ORDER BY 3 DESC, 4 DESC, 1 LIMIT 1"
            ).fetchone()
            if row is not None:
                return str(row[0]), str(row[1]), int(row[2]), int(row[3])
        return None


def _cycle(items: list[Any], count: int) -> list[Any]:
    return [items[i % len(items)] for i in range(count)] if items else []


def build_cases(
    store: PMGSStore, sampler: Sampler, examples: dict[str, str], calls: int
) -> list[Case]:
    """Every in-process case; cases whose data the database lacks are left out."""
    cases: list[Case] = []

    def add(key: str, label: str, items: list[Callable[[], Any]], detail: str) -> None:
        if items:
            cases.append(Case(key, label, _cycle(items, calls), detail))

    def lookup(scheme: str, code: str, **kw: Any) -> Callable[[], Any]:
        return lambda: store.lookup(scheme, code, **kw)

    add(
        "lookup_fi",
        "lookup FI",
        [lookup("fi", code) for code in sampler.codes("fi", "", calls)],
        f"{calls} FI codes drawn from the database",
    )
    add(
        "lookup_fterm",
        "lookup F-term",
        [lookup("fterm", code) for code in sampler.codes("fterm", "", calls)],
        f"{calls} F-term codes (themes, viewpoints, terms) drawn from the database",
    )
    add(
        "lookup_ipc",
        "lookup IPC, no version",
        [lookup("ipc", code) for code in sampler.codes("ipc", "8U", calls)],
        f"{calls} IPC 8U codes, no edition or version (revision valid at the reference date)",
    )
    add(
        "lookup_ipc_version",
        "lookup IPC with version",
        [lookup("ipc", code, version=version) for code, version in sampler.ipc_versions(calls)],
        f"{calls} (IPC 8U code, version) pairs drawn from the revisions",
    )

    def search(query: str) -> Callable[[], Any]:
        return lambda: store.search(query, limit=20)

    rare = sampler.rare_phrases("text", "text_fts", calls)
    add(
        "search_rare",
        "search, rare phrase (≥3 chars)",
        [search(q) for q in rare],
        f"{len(rare)} distinct 6-10 character substrings of random texts, each in at most "
        f"{RARE_MAX_ROWS} lines; limit 20",
    )
    common = examples.get("common_phrase", "制御するもの")
    add(
        "search_common",
        f"search, common phrase `{common}`",
        [search(common)],
        "the same very common phrase every call; limit 20, offset 0",
    )
    add(
        "search_common_deep",
        f"search, common phrase `{common}`, offset 180",
        [lambda: store.search(common, limit=20, offset=180)],
        "the 10th page of 20 (paging reads rows up to the end of the page)",
    )
    two = sampler.short_terms(2, calls)
    add(
        "search_2char",
        "search, 2 characters",
        [search(q) for q in two],
        f"{len(two)} two-character terms cut from random texts (common words come often); limit 20",
    )
    word = examples.get("two_char_word", "電池")
    add(
        "search_mixed",
        f"search, `{common} {word}` (≥3 chars AND 2 chars)",
        [search(f"{common} {word}")],
        "a common phrase and a common 2-character word together: the trigram index drives, "
        "restricted to the rows of the bigram index",
    )
    one = sampler.short_terms(1, calls)
    add(
        "search_1char",
        "search, 1 character",
        [search(q) for q in one],
        f"{len(one)} single characters cut from random texts; literal scan that stops when "
        "the page is full; limit 20",
    )
    doc_rare = sampler.rare_phrases("document_text", "document_text_fts", calls // 2)
    mixed = [q for pair in zip(rare, doc_rare, strict=False) for q in pair] or rare
    add(
        "search_pmgs",
        "search_pmgs (classifications + documents)",
        [partial(store.search_pmgs, q, limit=20) for q in mixed],
        "rare phrases of texts and of document segments, alternating; limit 20 per type",
    )
    theme = sampler.largest_theme()
    if theme is not None:
        code, size = theme
        offsets = list(range(0, max(size - 1, 1), 200))
        add(
            "hierarchy_theme",
            f"hierarchy descendants of theme {code}, page of 200",
            [
                partial(store.hierarchy, "descendants", "fterm", code, limit=200, offset=o)
                for o in offsets
            ],
            f"largest theme ({size:,} F-term concepts); pages at offsets {offsets[:5]}"
            + ("…" if len(offsets) > 5 else ""),
        )
    parent = sampler.most_children()
    if parent is not None:
        scheme, edition, code, size = parent
        offsets = list(range(0, max(size - 1, 1), 200))
        add(
            "hierarchy_children",
            f"hierarchy children of {scheme} {edition} {code}".replace("  ", " ") + ", page of 200",
            [
                partial(
                    store.hierarchy,
                    "children",
                    scheme,
                    code,
                    edition=edition or None,
                    limit=200,
                    offset=o,
                )
                for o in offsets
            ],
            f"the concept with most children ({size:,}); pages at offsets {offsets[:5]}"
            + ("…" if len(offsets) > 5 else ""),
        )
    document = sampler.largest_document()
    if document is not None:
        key, kind, segments, characters = document
        offsets = list(range(0, max(segments - 1, 1), 200))
        add(
            "get_document",
            f"get_document, largest {kind}",
            [partial(store.get_document, key, segment_offset=o) for o in offsets],
            f"`{key}` ({segments:,} segments, {characters:,} characters), up to 200 segments "
            "per call (the default page)",
        )
    return cases


CASE_BUDGET_SECONDS = 60.0
"""A case whose calls take longer than this in all stops early (and says so): one pathological
query must not hold up the run for hours."""


def run_cases(cases: list[Case]) -> None:
    for case in cases:
        case.calls[0]()  # warm-up, and a failure here names the case
        deadline = time.perf_counter() + CASE_BUDGET_SECONDS
        for call in case.calls:
            started = time.perf_counter()
            call()
            case.samples.append(time.perf_counter() - started)
            if time.perf_counter() > deadline and len(case.samples) < len(case.calls):
                case.detail += (
                    f" — **stopped after {len(case.samples)} of {len(case.calls)} calls**: "
                    f"over the {CASE_BUDGET_SECONDS:.0f} s budget of a case"
                )
                break


def once_per_store(database: Path) -> dict[str, float]:
    """First calls of the aggregates a store computes once and caches (counts, themes)."""
    found = {}
    with PMGSStore.open(database) as store:
        for name, call in (("release_info", store.release_info), ("categories", store.categories)):
            started = time.perf_counter()
            call()
            found[name] = (time.perf_counter() - started) * 1000
    return found


def in_process(
    database: Path, examples: dict[str, str], seed: int, calls: int
) -> tuple[dict[str, Any], dict[str, float]]:
    warm_file(database)
    sampler = Sampler(database, seed)
    try:
        with PMGSStore.open(database) as store:
            cases = build_cases(store, sampler, examples, calls)
            run_cases(cases)
    finally:
        sampler.close()
    results = {
        case.key: {"label": case.label, "detail": case.detail, **summarize(case.samples)}
        for case in cases
    }
    return results, once_per_store(database)


# --- cold CLI ----------------------------------------------------------------------------------


def pmgs_command() -> list[str]:
    """The ``pmgs`` console script of this environment (what users run), else ``-m``."""
    script = Path(sys.executable).parent / "pmgs"
    if script.is_file():
        return [str(script)]
    found = shutil.which("pmgs")
    return [found] if found else [sys.executable, "-m", "pmgs_cli"]


def cold_cli(database: Path, seed: int, runs: int) -> dict[str, Any]:
    """Median wall time of fresh ``pmgs lookup … --json`` processes (OS cache warm)."""
    sampler = Sampler(database, seed + 1)
    try:
        codes = [
            *(("fi", c) for c in sampler.codes("fi", "", runs)),
            *(("fterm", c) for c in sampler.codes("fterm", "", runs)),
            *(("ipc", c) for c in sampler.codes("ipc", "8U", runs)),
        ]
    finally:
        sampler.close()
    random.Random(seed).shuffle(codes)
    base = pmgs_command()

    def run(scheme: str, code: str) -> float:
        started = time.perf_counter()
        done = subprocess.run(
            [*base, "lookup", scheme, code, "--db", str(database), "--json"],
            capture_output=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode not in (0, 1):  # 1 = a negative answer, still a full lookup
            raise RuntimeError(f"pmgs lookup failed: {done.stderr.decode(errors='replace')}")
        return seconds

    run(*codes[0])  # warm-up: the OS caches the interpreter and the modules
    samples = [run(scheme, code) for scheme, code in codes[:runs]]
    baseline = []
    for _ in range(max(3, runs // 2)):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        baseline.append(time.perf_counter() - started)
    return {
        "command": "pmgs lookup SCHEME CODE --db DB --json",
        "runs": len(samples),
        "median_s": statistics.median(samples),
        "min_s": min(samples),
        "max_s": max(samples),
        "python_startup_median_s": statistics.median(baseline),
    }


# --- MCP over stdio ----------------------------------------------------------------------------


def mcp_stdio(database: Path, examples: dict[str, str], calls: int, starts: int) -> dict[str, Any]:
    """Start → initialized and tool-call round trips, with benchmarks/mcp_roundtrip.py."""
    import anyio
    from mcp import StdioServerParameters

    tool_calls = mcp_roundtrip.tool_calls(examples)
    bare_start = mcp_roundtrip.raw_start(database, starts)
    sdk_start = anyio.run(mcp_roundtrip.sdk_start, database, starts)
    bare = mcp_roundtrip.raw_rounds(database, tool_calls, calls)
    params = StdioServerParameters(command=sys.executable, args=mcp_roundtrip.server_args(database))
    sdk = anyio.run(mcp_roundtrip.sdk_rounds, params, "auto", tool_calls, calls)
    return {
        "start_bare": {
            "runs": starts,
            "median_s": statistics.median(bare_start),
            "min_s": min(bare_start),
        },
        "start_sdk": {
            "runs": starts,
            "median_s": statistics.median(sdk_start),
            "min_s": min(sdk_start),
        },
        "calls_bare": {label: summarize(samples) for label, samples in bare.items()},
        "calls_sdk": {label: summarize(samples) for label, samples in sdk.items()},
    }
