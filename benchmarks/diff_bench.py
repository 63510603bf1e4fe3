"""Release diff and formula check: time on a generated package and its planned next release.

    uv run python -m benchmarks.diff_bench --scale 0.1 --workdir /tmp/diff-bench
    uv run python -m benchmarks.diff_bench --scale 0.3 --workdir /tmp/d --before-ref df53d10

Builds the base package (with documents) and the next release of
``pmgs_testkit.plan_next_release`` once (kept in the work directory), then times
``diff_releases`` whole (first page of 50; the counts cover everything) and filtered
(``under`` a subclass and a theme), and ``check_codes`` on 200 and 10,000 code occurrences.
With ``--before-ref REF`` it also runs ``pmgs diff --limit 3`` (whole, filtered, a far page)
as commands, with ``pmgs_core/diff`` as at ``REF`` and as in this tree, in the same run
(``benchmarks/diff_pages.py``): wall time, peak RSS and whether the outputs are identical.
Saves its results as ``benchmarks/results/diff-<date>-scale-<scale>.json`` and prints the
section they render in docs/benchmarks.md (``--write-docs`` then rewrites the document).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import diff_pages
from benchmarks.docs import add_arguments, publish
from benchmarks.results import finish, stamp
from pmgs_build import build_database
from pmgs_core import PMGSStore, diff_releases
from pmgs_testkit import generate_package, plan_next_release, write_next_release


def _prepare(workdir: Path, scale: float) -> tuple[Path, Path, dict[str, str]]:
    """Both databases and the plan's subclass and theme; reused when already built."""
    old_db, new_db, chosen = workdir / "old.sqlite", workdir / "new.sqlite", workdir / "plan.json"
    if chosen.is_file() and new_db.is_file():
        return old_db, new_db, json.loads(chosen.read_text("utf-8"))
    base = generate_package(workdir / "base", scale=scale, seed=0, with_documents=True)
    plan = plan_next_release(base)
    following = write_next_release(base, workdir / "next", plan)
    started = time.perf_counter()
    build_database(base.path, old_db)
    build_database(following, new_db)
    print(f"built both releases in {time.perf_counter() - started:.1f} s", flush=True)
    picked = {"subclass": plan.retitled[0].code[:4], "theme": plan.abolished_theme}
    chosen.write_text(json.dumps(picked), "utf-8")
    return old_db, new_db, picked


def _times(call: Callable[[], object], rounds: int) -> dict[str, float]:
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return {"median_s": round(statistics.median(seconds), 3), "max_s": round(max(seconds), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--before-ref", default=None, help="also time `pmgs diff` pages with the diff of REF"
    )
    parser.add_argument("--cli-rounds", type=int, default=2)
    add_arguments(parser)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    record = stamp("diff", args.scale)
    old_db, new_db, plan = _prepare(args.workdir, args.scale)
    subclass, theme = plan["subclass"], plan["theme"]
    with PMGSStore.open(old_db) as old, PMGSStore.open(new_db) as new:
        whole = diff_releases(old, new)
        formula = " + ".join(f"{code}/FI" for code, *_ in _fi_codes(new, 200))
        times = {
            "diff_whole": _times(lambda: diff_releases(old, new), args.rounds),
            "diff_under_subclass": _times(
                lambda: diff_releases(old, new, under=subclass), args.rounds
            ),
            "diff_under_theme": _times(lambda: diff_releases(old, new, under=theme), args.rounds),
            "check_200_distinct": _times(lambda: new.check_codes(formula), args.rounds),
            "check_10000_lines": _times(
                lambda: new.check_codes("\n".join(f"{c}/FI" for c, *_ in _fi_codes(new, 10_000))),
                args.rounds,
            ),
        }
        record.update(
            rounds=args.rounds,
            diff_total=whole["total"],
            subclass=subclass,
            theme=theme,
            times=times,
        )
        total = whole["total"]
    if args.before_ref:
        cases = {
            "whole": ["--limit", "3"],
            "under_subclass": ["--under", subclass, "--limit", "3"],
            "under_theme": ["--under", theme, "--limit", "3"],
            "last_page": ["--limit", "3", "--offset", str(max(0, total - 2))],
        }
        record["cli"] = diff_pages.measure(
            old_db, new_db, cases, args.before_ref, args.workdir, args.cli_rounds
        )
    publish(finish(record), args)


def _fi_codes(store: PMGSStore, count: int) -> list[tuple[str]]:
    """``count`` canonical FI codes spread over the table (repeated when it is smaller)."""
    rows: list[tuple[str]] = (
        store._connection()
        .execute(
            "SELECT code FROM concept WHERE scheme = 'fi' AND status = 'canonical' ORDER BY id"
        )
        .fetchall()
    )
    step = max(1, len(rows) // count)
    picked = rows[::step][:count]
    return (picked * (count // max(1, len(picked)) + 1))[:count]


if __name__ == "__main__":
    main()
