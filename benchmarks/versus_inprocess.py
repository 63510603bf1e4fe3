"""Issue 42's in-process rows, both tools in turn: plain searches, ranked search, lookups.

Not a test. Each side's store answers in its own child (``versus_worker.py``, run by the side's
interpreter); the parent asks the sides for small batches in turn, so a load that comes and
goes falls on both. A side whose calls take long (the earlier tool's searches take up to
seconds) stops being asked once its time budget for the row is spent, with at least one call
a round; the row records how many calls each figure rests on.

Rows (``Row.key`` is the results file's key):

* plain search p50 (``search`` / ``search_pmgs``, limit 20): the common phrase, a phrase of a
  2-character word and a particle, a 2-character word alone, and ``search_pmgs`` of it;
* ranked search p95 over queries of 2-6 words drawn from the database's own texts: ours
  ``search_pmgs(order="relevance", match="any")``; the earlier tool has no any-word match,
  and its closest call is its BM25-ordered ``search_pmgs`` (every word must match);
* ``lookup`` p50 per scheme.

For a row of ours that misses its goal, the worker profiles the same calls (cProfile, the top
functions by cumulative time per call), which the document shows under the table.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.mcp_roundtrip import percentile
from benchmarks.ranked_bench import words

WORKER = Path(__file__).resolve().parent / "versus_worker.py"
OURS_BUDGET = 3
"""Our side's budget per row, in the other side's budgets: ours normally finishes its calls
well within it; on a loaded machine, or before an optimisation, it bounds the run."""
Call = list[Any]
"""``[method, args, kwargs]`` of a store call, as the worker takes it."""


@dataclass(frozen=True)
class Row:
    """One in-process row: the calls of each side, the statistic and the goal."""

    key: str
    calls: dict[str, list[Call]]
    """Per side ("ours", "reference"); a side without an equivalent call is absent."""
    fraction: float
    goal_ms: float
    n: int
    """Timed passes over the calls for our side (the other side: as many as its budget)."""


class Worker:
    """One side's store in a child process (``versus_worker.py``)."""

    def __init__(self, python: str, store_import: str, db: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [python, str(WORKER), store_import, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the store worker stopped (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def ranked_queries(db: Path, seed: int, count: int) -> list[str]:
    """``count`` queries of 2-6 words (as many of each length, lengths in turn, so that a
    prefix of the list is balanced) from the Japanese texts of sampled FI and F-term codes
    of our database, read with SQL; the words are ranked_bench.py's."""
    rng = random.Random(seed)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        bodies = [
            str(row[0])
            for row in conn.execute(
                "SELECT t.body FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
                "JOIN concept AS c ON c.id = r.concept_id WHERE c.status = 'canonical' "
                "AND c.scheme IN ('fi', 'fterm') AND t.language = 'ja' "
                "AND t.rowid % 997 = 0 LIMIT 4000"
            )
        ]
    pool = sorted({word for body in bodies for word in words(body)})
    queries = []
    for index in range(count):
        size = 2 + index % 5
        queries.append(" ".join(rng.sample(pool, size)))
    return queries


def rows(examples: dict[str, str], queries: list[str], lookups: int, calls: int) -> list[Row]:
    phrase = examples["common_phrase"]
    word = examples["two_char_word"]
    plain = {
        "search_common_ms": ("search", phrase),
        "search_phrase_ms": ("search", f"{word}を制御"),
        "search_2char_ms": ("search", word),
        "search_pmgs_2char_ms": ("search_pmgs", word),
    }
    out = [
        Row(
            key,
            {side: [[method, [query], {"limit": 20}]] for side in ("ours", "reference")},
            0.5,
            0.5,
            calls,
        )
        for key, (method, query) in plain.items()
    ]
    ranked = {"order": "relevance", "match": "any", "limit": 20}
    out.append(
        Row(
            "ranked_p95_ms",
            {
                "ours": [["search_pmgs", [q], ranked] for q in queries],
                "reference": [["search_pmgs", [q], {"limit": 20}] for q in queries],
            },
            0.95,
            15.0,
            max(1, calls // len(queries)),
        )
    )
    codes = {"fi": "G06F3/048", "ipc": "G06F3/048", "fterm": examples["fterm_large_theme"]}
    out += [
        Row(
            f"lookup_{scheme}_ms",
            {side: [["lookup", [scheme, code], {}]] for side in ("ours", "reference")},
            0.5,
            0.15,
            lookups,
        )
        for scheme, code in codes.items()
    ]
    return out


def measure(
    workers: dict[str, Worker],
    examples: dict[str, str],
    queries: list[str],
    *,
    calls: int,
    lookups: int,
    rounds: int,
    budget_s: float,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]], dict[str, Any]]:
    """Figures per side, the calls each rests on, and our side's profile of each missed row.

    Per row, ``rounds`` rounds; in each, every side times its share of the passes,
    ``n / rounds``, within what is left of its budget, after an untimed warm-up
    of the row's first calls."""
    figures: dict[str, dict[str, float]] = {side: {} for side in workers}
    counts: dict[str, dict[str, int]] = {side: {} for side in workers}
    profiles: dict[str, Any] = {}
    for row in rows(examples, queries, lookups, calls):
        samples: dict[str, list[float]] = {side: [] for side in workers}
        found: dict[str, list[int | None]] = {side: [] for side in workers}
        spent = dict.fromkeys(workers, 0.0)
        per_round = max(1, math.ceil(row.n / rounds))
        for side, worker in workers.items():  # warm-up, untimed: the row's first 5 calls
            if side in row.calls:
                first = row.calls[side][:5]
                worker.ask({"op": "time", "calls": first, "n": 1, "budget_s": budget_s / 2})
        for _ in range(rounds):
            for side, worker in workers.items():
                limit = budget_s * (OURS_BUDGET if side == "ours" else 1)
                if side not in row.calls or (samples[side] and spent[side] >= limit):
                    continue
                answer = worker.ask(
                    {
                        "op": "time",
                        "calls": row.calls[side],
                        "n": per_round,
                        "budget_s": limit - spent[side],
                    }
                )
                samples[side] += answer["samples"]
                found[side] += answer.get("hits") or []
                spent[side] += sum(answer["samples"])
        for side, values in samples.items():
            if values:
                figures[side][row.key] = percentile(values, row.fraction) * 1000
                counts[side][row.key] = len(values)
            if row.key == "ranked_p95_ms" and found[side]:
                # the earlier tool needs every word: it finds nothing for most of these queries
                answered = sum(1 for n in found[side] if n)
                figures[side]["ranked_hit_share"] = answered / len(found[side])
        mine = figures.get("ours", {}).get(row.key)
        if mine is not None and mine > row.goal_ms:
            # one call: up to 50 passes; many (the ranked queries): one pass over 10 of them
            passes = max(1, min(50, row.n // 4)) if len(row.calls["ours"]) == 1 else 1
            profiles[row.key] = workers["ours"].ask(
                {"op": "profile", "calls": row.calls["ours"][:10], "n": passes, "top": 8}
            )["top"]
    return figures, counts, profiles
