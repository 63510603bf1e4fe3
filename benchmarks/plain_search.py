"""Plain (index-order) searches in process, this tree against an earlier commit (ADR 0036).

Both versions run in one process on one database, call by call in turn, so that a load that
changes during the run weighs on both columns alike. "Before" is ``pmgs_core`` of ``--before``
(``git archive``), imported under another name; every answer of the two is compared, and a
faster page that says something else is reported as a difference.

Cases: the issue-42 queries, each asked ``--calls`` times after one warm-up call (a server
answering the same page again: the store's per-release caches are filled); and words drawn
from the database's own texts, each asked once (a page never asked before on that store).

Usage::

    uv run python -m benchmarks.plain_search --db PATH [--scale 1] [--before 20b2150] [--calls 50]
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.docs import add_arguments
from benchmarks.results import ROOT, finish, save, stamp
from pmgs_core import PMGSStore

CORE = "packages/pmgs-core/src/pmgs_core"
BEFORE_NAME = "pmgs_core_before"
REPEATED = [
    ("search", "制御するもの"),
    ("search", "電池を制御"),
    ("search", "電池"),
    ("search_pmgs", "電池"),
    ("search_pmgs", "制御するもの"),
]
"""(method, query) of issue 42's figures, asked with ``limit=20``."""


def before_store(ref: str, workdir: Path, database: Path) -> Any:
    """A store of ``pmgs_core`` at ``ref``, renamed so that it imports beside this tree's."""
    archive = subprocess.run(
        ["git", "archive", ref, CORE], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(workdir)], input=archive, check=True)
    source = workdir / CORE
    target = workdir / BEFORE_NAME
    source.rename(target)
    for path in target.rglob("*.py"):
        text = path.read_text("utf-8")
        path.write_text(re.sub(r"\bpmgs_core\b", BEFORE_NAME, text), "utf-8")
    sys.path.insert(0, str(workdir))
    module = importlib.import_module(BEFORE_NAME)
    return module.PMGSStore.open(database)


def drawn_words(database: Path, length: int, count: int, seed: int) -> list[str]:
    """Distinct substrings of Japanese classification texts, without spaces."""
    conn = sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        bodies = [
            str(body)
            for (body,) in conn.execute(
                "SELECT body FROM text WHERE language = 'ja' AND id % 997 = 0 LIMIT 3000"
            )
        ]
    finally:
        conn.close()
    draw = random.Random(seed)
    words: set[str] = set()
    while len(words) < count:
        body = draw.choice(bodies)
        if len(body) < length + 2:
            continue
        start = draw.randrange(0, len(body) - length)
        word = body[start : start + length]
        if not any(char.isspace() for char in word):
            words.add(word)
    return sorted(words)


def _same(first: object, second: object) -> bool:
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def measure(
    stores: list[Any], calls: list[Callable[[Any], object]]
) -> tuple[list[list[float]], int]:
    """Seconds of each call on each store, in turn; and how many calls answered alike.

    The store that answers first changes from call to call: a page asked for the first time
    reads pages of the file the operating system may not hold yet, and the store asked second
    finds them read by the first. With a fixed order, every "asked once" figure of the second
    column came out faster than the same code gave in the first.
    """
    times: list[list[float]] = [[] for _ in stores]
    alike = 0
    for number, call in enumerate(calls):
        answers: list[object] = [None] * len(stores)
        order = list(enumerate(stores))
        if number % 2:
            order.reverse()
        for index, store in order:
            started = time.perf_counter()
            answers[index] = call(store)
            times[index].append(time.perf_counter() - started)
        alike += all(_same(answers[0], answer) for answer in answers[1:])
    return times, alike


def _asking(method: str, query: str) -> Callable[[Any], object]:
    """One page of ``query`` from a store's ``method``, as issue 42 measures it."""

    def ask(store: Any) -> object:
        result: object = getattr(store, method)(query, limit=20)
        return result

    return ask


def _p50(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a built database")
    parser.add_argument("--before", default=None, help="commit whose pmgs_core is 'before'")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--words", type=int, default=60, help="drawn words of each length")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--scale", type=float, default=None, help="the database's scale")
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("plain-search", args.scale)
    record.update(database=str(args.db), before=args.before, calls=args.calls)
    with tempfile.TemporaryDirectory() as workdir:
        stores = [PMGSStore.open(args.db)]
        if args.before:
            stores.insert(0, before_store(args.before, Path(workdir), args.db))
        columns = ["before", "after"] if args.before else ["after"]
        cases: list[dict[str, Any]] = []
        for method, query in REPEATED:
            call = _asking(method, query)
            measure(stores, [call])  # warm-up
            times, alike = measure(stores, [call] * args.calls)
            cases.append(
                {"case": f"{method}({query!r}), asked again", "alike": f"{alike}/{args.calls}"}
                | {f"{name}_p50_ms": _p50(t) for name, t in zip(columns, times, strict=True)}
            )
        for label, length in (("2-character", 2), ("4-character", 4)):
            words = drawn_words(args.db, length, args.words, args.seed)
            for method in ("search", "search_pmgs"):
                calls = [_asking(method, word) for word in words]
                times, alike = measure(stores, calls)
                cases.append(
                    {
                        "case": f"{method}, {len(words)} {label} words, each asked once",
                        "alike": f"{alike}/{len(words)}",
                    }
                    | {f"{name}_p50_ms": _p50(t) for name, t in zip(columns, times, strict=True)}
                )
        for store in stores:
            store.close()
    record["cases"] = cases
    for case in cases:
        print(json.dumps(case, ensure_ascii=False))
    save(finish(record), args.output_json)


if __name__ == "__main__":
    main()
