"""docs/benchmarks.md's sections for the build, ranked search, the viewer and the collection.

Renderers only: each takes one saved result and returns its Markdown and the figures it
judged (:class:`benchmarks.sections.Check`), with the targets of docs/design.md or of the
issue that set them.
"""

from __future__ import annotations

from typing import Any

from benchmarks.results import Result
from benchmarks.sections import Check, Section, check_rows, join, measured_line, verdict

WEB_P95_MS = 30.0
WEB_CODE_PAGE_BYTES = 100 * 1024
"""Issue 30: every page kind p95 ≤ 30 ms at scale 1.0; a code page's HTML ≤ 100 KB."""


# --- both tools' builds in one run (benchmarks/build_pair.py) ----------------------------------


def build_pair(result: Result) -> Section:
    d = result.data
    builds = d["builds"]
    names = {
        "ours_serial": "this tree, serial",
        "ours_parallel": "this tree, two cores (ADR 0028, 0039)",
        "reference": "pmgs-reference 0.5.2",
    }
    table = [
        "| build | wall s | CPU s | peak RSS, largest process | database | load before → after |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, label in names.items():
        run = builds[name]
        size = "—" if run.get("database_mb") is None else f"{run['database_mb']:,} MB"
        failed = "" if run.get("exit", 0) == 0 else f" (**exit {run['exit']}**)"
        table.append(
            f"| {label}{failed} | {run['wall_s']:.1f} | {run['cpu_s']:.1f} | "
            f"{run['peak_rss_mb']:,} MB | {size} | "
            f"{run['load_before']:.2f} → {run['load_after']:.2f} |"
        )
    phases = list(builds["ours_serial"].get("phase_seconds", {}))
    phase_table = [
        "| phase | " + " | ".join(phases) + " |",
        "|---" * (len(phases) + 1) + "|",
    ]
    for name in ("ours_serial", "ours_parallel"):
        seconds = builds[name].get("phase_seconds", {})
        phase_table.append(
            f"| {names[name]} | " + " | ".join(f"{seconds.get(p, 0):.1f}" for p in phases) + " |"
        )
    reference = builds["reference"]["wall_s"]
    serial, parallel = builds["ours_serial"], builds["ours_parallel"]
    checks = [
        Check("full build, serial", "≤ 300 s", serial["wall_s"], 300, "s", "build"),
        Check("full build, two cores", "≤ 300 s", parallel["wall_s"], 300, "s"),
        Check(
            "database size",
            "≤ 1.35 GB",
            None if serial.get("database_mb") is None else serial["database_mb"] * 1e6,
            1.35e9,
            "bytes",
            "database",
        ),
        Check(
            "full build, serial, against the reference",
            "≤ 0.30 × the reference",
            serial["wall_s"] / reference,
            0.30,
            "ratio",
        ),
        Check(
            "full build, two cores, against the reference",
            "≤ 0.30 × the reference",
            parallel["wall_s"] / reference,
            0.30,
            "ratio",
        ),
    ]
    same = d.get("ours_same_bytes")
    identity = {
        True: "Both builds of this tree wrote the same bytes (SHA-256 compared).",
        False: "**The two builds of this tree wrote different files** (SHA-256 compared).",
        None: "The two builds of this tree were not compared (one of them failed).",
    }[same]
    markdown = join(
        "## Build: this tree and the reference in one run (`benchmarks/build_pair.py`)",
        "The same package directory built one after the other: this tree serial, "
        "pmgs-reference 0.5.2, this tree on two cores, so the reference's time is bracketed by "
        "ours under whatever load the machine had. Wall time, CPU time and peak RSS of each "
        "child (`os.wait4`: the largest process, not the sum over the tree).",
        measured_line(result, machine_at_end="load_end" not in d)
        + f" Package: `{d.get('package', '?')}`.",
        table,
        "Phases of this tree's builds (seconds):",
        phase_table,
        check_rows(checks),
        identity,
    )
    return Section(markdown, checks)


# --- ranked search (benchmarks/ranked_bench.py) ------------------------------------------------


def ranked(result: Result) -> Section:
    d = result.data
    lat, q = d.get("latency") or {}, d["quality"]
    latency = [
        "| queries | target | p50 | p95 | max | calls | cut at the candidate cap |",
        "|---|---|---|---|---|---|---|",
    ]
    checks: list[Check] = []
    for label, (chars, limit) in {
        "short": ("≤ 40 chars", 50.0),
        "long": ("≤ 400 chars", 150.0),
    }.items():
        if label not in lat:
            continue
        row = lat[label]
        check = Check(
            f"ranked search, {label} queries, p95",
            f"p95 ≤ {limit:.0f} ms",
            row["p95_ms"],
            limit,
            "ms",
        )
        checks.append(check)
        latency.append(
            f"| {label} ({chars}, {row['queries']} queries) | {check.target} "
            f"({verdict(check.met)}) | {row['p50_ms']:.1f} ms | {row['p95_ms']:.1f} ms | "
            f"{row['max_ms']:.1f} ms | {row['calls']} | {row['capped_share']:.0%} |"
        )
    quality = [
        "| order / match | target | recall@1 | recall@10 | MRR | equivalent recall@10 | "
        "equivalent MRR |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, label in (
        ("relevance_any", "relevance / any"),
        ("index_any", "index / any"),
        ("index_all", "index / all (default)"),
    ):
        s, e = q[name]["strict"], q[name]["equivalent"]
        target = "—"
        if name == "relevance_any":
            recall = Check(
                "relevance order, recall@10",
                "≥ 0.9",
                s["recall_at_10"],
                0.9,
                "ratio",
                at_least=True,
            )
            mrr = Check("relevance order, MRR", "≥ 0.6", s["mrr"], 0.6, "ratio", at_least=True)
            checks += [recall, mrr]
            target = f"recall@10 ≥ 0.9 ({verdict(recall.met)}), MRR ≥ 0.6 ({verdict(mrr.met)})"
        quality.append(
            f"| {label} | {target} | {s['recall_at_1']:.3f} | {s['recall_at_10']:.3f} | "
            f"{s['mrr']:.3f} | {e['recall_at_10']:.3f} | {e['mrr']:.3f} |"
        )
    markdown = join(
        "## Ranked search (`benchmarks/ranked_bench.py`, issue 14)",
        'Latency of `search_pmgs(order="relevance", match="any", limit=20)` for short queries '
        "(1-4 words) and long ones (text lines pasted as terms); quality of `search(limit=10)` "
        "for queries made of a sampled code's own words (shuffled, a third dropped, 1-2 words "
        "of another code added).",
        measured_line(result),
        latency,
        f"Quality over {q['queries']} queries (targets judged on the strict columns):",
        quality,
        "How to read: *strict* counts only the sampled code itself; *equivalent* also counts a "
        "hit whose best line holds at least as many of the query's words as the target's. The "
        "generator draws titles from 40 nouns × 8 heads, so many codes share the target's "
        "words and strict recall falls as the package grows, whatever the ranking.",
    )
    return Section(markdown, checks)


# --- the viewer (benchmarks/web_bench.py) ------------------------------------------------------


def web(result: Result) -> Section:
    d = result.data
    table = [
        "| page kind | addresses | target | p50 | p95 | max | calls | bare store call p50 / p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    checks = []
    for kind, row in d["pages"].items():
        check = Check(
            f"viewer page {kind}, p95",
            f"p95 ≤ {WEB_P95_MS:.0f} ms",
            row["p95_ms"],
            WEB_P95_MS,
            "ms",
        )
        checks.append(check)
        store = row.get("store")
        bare = "—" if store is None else f"{store['p50_ms']:.1f} ms / {store['p95_ms']:.1f} ms"
        table.append(
            f"| {kind} | {row['addresses']} | {check.target} ({verdict(check.met)}) | "
            f"{row['p50_ms']:.1f} ms | {row['p95_ms']:.1f} ms | {row['max_ms']:.1f} ms | "
            f"{row['calls']} | {bare} |"
        )
    size = Check(
        "largest code page HTML", "≤ 100 KB", d["max_code_page_bytes"], WEB_CODE_PAGE_BYTES, "B"
    )
    checks.append(size)
    markdown = join(
        "## Viewer page times (`benchmarks/web_bench.py`, issue 30)",
        "Server time of each page kind: from the request's arrival at the ASGI application to "
        "its last byte, in process, no network. For the search pages the last column times the "
        "same queries as bare `search_pmgs(limit=20)` calls: the page's own share is the "
        "difference.",
        measured_line(result),
        table,
        f"Largest code page HTML: {size.measured / 1024:.1f} KB (target ≤ 100 KB: "
        f"{verdict(size.met)}).",
    )
    return Section(markdown, checks)


# --- release diff (benchmarks/diff_bench.py) ---------------------------------------------------


def diff(result: Result) -> Section:
    d = result.data
    times = d["times"]
    rows = [
        ("diff_whole", "`diff_releases` whole (every scheme and section, first page of 50)", 60.0),
        ("diff_under_subclass", f'`diff_releases(under="{d["subclass"]}")` (an FI subclass)', 2.0),
        ("diff_under_theme", f'`diff_releases(under="{d["theme"]}")` (an F-term theme)', 2.0),
        ("check_200_distinct", "`check_codes`, formula of 200 distinct FI codes", None),
        ("check_10000_lines", "`check_codes`, 10,000 distinct FI codes, one a line", None),
    ]
    table = ["| call | median | max | target (full scale) |", "|---|---|---|---|"]
    checks = []
    for key, label, limit in rows:
        row = times[key]
        target = "—"
        if limit is not None:
            check = Check(label, f"≤ {limit:g} s", row["median_s"], limit, "s")
            checks.append(check)
            target = f"≤ {limit:g} s ({verdict(check.met)})"
        table.append(f"| {label} | {row['median_s']:.3f} s | {row['max_s']:.3f} s | {target} |")
    cli_table, cli_checks, cli_note = _diff_pages(d.get("cli"), result.data.get("scale"))
    checks += cli_checks
    markdown = join(
        "## Release diff and formula check (`benchmarks/diff_bench.py`, issues 31 and 39)",
        "A generated package and its planned next release (`pmgs_testkit.plan_next_release`), "
        f"both built once; {d['rounds']} rounds of each call, median and max. The diff holds "
        f"{d['diff_total']:,} items.",
        measured_line(result),
        table,
        "How to read: the targets are for scale 1.0. The whole diff reads every code and link of "
        "both releases once, so its time grows with the release; a filtered diff grows with the "
        "codes under the prefix, not with the release.",
        cli_note,
        cli_table,
    )
    return Section(markdown, checks)


def _diff_pages(
    cli: dict[str, Any] | None, scale: float | None
) -> tuple[list[str], list[Check], str]:
    """`pmgs diff` pages as commands, before (the diff of ``before_ref``) and after (issue 39)."""
    if not cli:
        return [], [], ""
    labels = {
        "whole": ("`pmgs diff OLD NEW --limit 3`", "rss"),
        "under_subclass": ("the same `--under` an FI subclass", "time"),
        "under_theme": ("the same `--under` an F-term theme", "time"),
        "last_page": ("`--limit 3 --offset` the last page", None),
    }
    table = [
        "| command | before: median (max), peak RSS | after: median (max), peak RSS "
        "| same output | target (full scale) |",
        "|---|---|---|---|---|",
    ]
    checks = []
    for key, (label, target) in labels.items():
        case = cli["cases"].get(key)
        if case is None:
            continue
        before, after = case["before"], case["after"]
        goal = "—"
        if target == "rss":
            check = Check(f"{label}, peak RSS", "≤ 200 MB", after["peak_rss_mb"], 200, "MB")
        elif target == "time":
            check = Check(f"{label}, median", "≤ 2 s", after["median_s"], 2, "s")
        if target is not None:
            checks.append(check)
            goal = f"{check.target} ({verdict(check.met)})"
        table.append(
            f"| {label} | {before['median_s']:.2f} s ({before['max_s']:.2f} s), "
            f"{before['peak_rss_mb']:.0f} MB | {after['median_s']:.2f} s ({after['max_s']:.2f} s), "
            f"{after['peak_rss_mb']:.0f} MB | {'yes' if case['same_output'] else '**no**'} "
            f"| {goal} |"
        )
    note = (
        f"`pmgs diff` pages as commands (issue 39), each its own process, {cli['rounds']} rounds "
        f"alternating before and after at scale {scale:g}: *before* is the diff as at "
        f"`{cli['before_ref']}` (both releases read into Python, the whole diff sorted for "
        "every page), *after* computes the page and the counts in SQL over both databases. "
        "Peak RSS is the whole command's (interpreter and imports included); *same output* "
        "compares the printed pages byte for byte. A filtered command's time is almost all "
        "the interpreter's start-up and imports (the same call in process is in the table "
        "above); the whole-release command reads every code and link of both releases to count "
        "them, which is where its time goes."
    )
    return table, checks, note


# --- the collection (benchmarks/lsa_bench.py, benchmarks/watch_bench.py) ------------------------


def lsa(result: Result) -> Section:
    d = result.data
    vector, hybrid = d["vector_half"], d["search_text"]
    retrain = Check(
        f"`lsa_retrain`, {d['items']:,} items, slowest round",
        "≤ 60 s",
        max(d["retrain_s"]),
        60,
        "s",
    )
    half = Check("vector half of a query, p95", "p95 ≤ 20 ms", vector["p95_ms"], 20, "ms")
    rounds = " and ".join(f"{s:.1f} s" for s in d["retrain_s"])
    table = [
        "| measure | figure | target |",
        "|---|---|---|",
        f"| `lsa_retrain`, {d['items']:,} items (FTS rebuild, TF-IDF, SVD, vectors) | {rounds} "
        f"| ≤ 60 s ({verdict(retrain.met)}) |",
        f"| vector half of a query, p50 / p95 / max | {vector['p50_ms']:.1f} / "
        f"{vector['p95_ms']:.1f} / {vector['max_ms']:.1f} ms | p95 ≤ 20 ms ({verdict(half.met)}) |",
        f"| `search_text` (both halves), p50 / p95 / max | {hybrid['p50_ms']:.0f} / "
        f"{hybrid['p95_ms']:.0f} / {hybrid['max_ms']:.0f} ms | — |",
    ]
    markdown = join(
        "## The collection's LSA search (`benchmarks/lsa_bench.py`, issue 32)",
        f"A collection of {d['items']:,} generated short notes ({d['dimensions']} dimensions): "
        "retraining, then 200 two-word queries; `search_text` is the whole hybrid call (limit 5, "
        "`min_score` 0.3, warm), the vector half is the query folded into the space and compared "
        "with every stored vector.",
        measured_line(result),
        table,
    )
    return Section(markdown, [retrain, half])


def watch(result: Result) -> Section:
    d = result.data
    names = {"create": "file created", "edit": "file edited", "rename": "file renamed"}
    names["delete"] = "file deleted"
    table = ["| change | median | max | target |", "|---|---|---|---|"]
    checks = []
    for key, row in d["seconds"].items():
        check = Check(f"watch: {names.get(key, key)}, max", "≤ 2 s", row["max"], 2, "s")
        checks.append(check)
        table.append(
            f"| {names.get(key, key)} | {row['median']:.3f} s | {row['max']:.3f} s | "
            f"≤ 2 s ({verdict(check.met)}) |"
        )
    markdown = join(
        "## Folder watching (`benchmarks/watch_bench.py`, issue 32)",
        f"`pmgs notes watch` in its own process, {d['rounds']} rounds: time from the file "
        "operation until SQL on the collection file shows its result (polled every 5 ms). About "
        "0.1 s of it is the watcher's own batching.",
        measured_line(result),
        table,
    )
    return Section(markdown, checks)
