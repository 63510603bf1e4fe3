"""Write docs/benchmarks.md, all of it, from the saved results: ``python -m benchmarks.docs``.

The document shows the current figures only: for each kind of benchmark the newest results
file under ``benchmarks/results/`` (:func:`benchmarks.results.newest`), with its machine, load,
commit and date, and at the top design.md's targets, each with the newest figure measured at
scale 1.0 by any benchmark. Nothing here measures and nothing is typed by hand, so the file is
a function of the results: ``--check`` fails when it is not (the test suite runs that), and
earlier figures are in git's history of the results and of this file.

Usage::

    uv run python -m benchmarks.docs            # rewrite docs/benchmarks.md
    uv run python -m benchmarks.docs --check    # exit 1 when it differs from the results
    uv run python -m benchmarks --write-docs    # the same as the first
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import report, sections_local, sections_mcp, sections_versus
from benchmarks.results import RESULTS, ROOT, Result, load, newest, save
from benchmarks.sections import Check, Section, join, value, verdict

DOCS = ROOT / "docs" / "benchmarks.md"


def full(result: Result) -> Section:
    """The full benchmark's section as report.py renders it, its targets in the summary."""
    data = result.data
    checks = [
        Check(row["figure"], row["target"], row["measured"], row["limit"], row["unit"], row["key"])
        for row in report.evaluate(data)
    ]
    source = f"benchmarks/results/{result.path.name}"
    return Section(report.markdown(data, source=source, targets=False).rstrip("\n") + "\n", checks)


RENDERERS: dict[str, Callable[[Result], Section]] = {
    "full": full,
    "build-pair": sections_local.build_pair,
    "versus-reference": sections_versus.versus_reference,
    "round-three": sections_mcp.round_three,
    "mcp-roundtrip": sections_mcp.mcp_roundtrip,
    "payload": sections_mcp.payload,
    "ranked": sections_local.ranked,
    "web": sections_local.web,
    "diff": sections_local.diff,
    "lsa": sections_local.lsa,
    "watch": sections_local.watch,
}
"""Every kind the document shows, in the document's order. A kind without a results file is
left out; a results file of a kind not named here (the reference's recorded baseline, read by
versus_reference.py) is input to another benchmark, not a section."""

INTRO = """\
# Benchmarks

Written by `uv run python -m benchmarks --write-docs` from the results files in
`benchmarks/results/`; do not edit by hand (a test fails when this file and the results
disagree). Each section shows the newest results file of one benchmark, with the machine, load,
commit and date it was measured on; earlier figures are in the git history. To measure again,
run the command a section names (it saves a new results file), then the command above.

How to read the figures: times depend on the machine and its load, which each section gives
(on 2 CPUs a load average above 2 means the run waited for a CPU, and times rise); sizes and
counts do not. docs/design.md's targets are set for a scale 1.0 package; a section measured at
another scale judges its figures for orientation only. Met/missed is computed from the figures
in the results file.
"""


def summary(results: list[Result]) -> str:
    """design.md's targets, each with the newest scale-1.0 figure any results file holds (not
    only the files shown below: a newer run at a small scale does not hide a full-scale one)."""
    best: dict[str, tuple[Result, Check]] = {}
    order: list[str] = []
    for result in sorted(results, key=lambda r: (r.date, r.when, r.path.name)):
        if result.scale != 1.0:
            continue
        for check in draw(result).checks:
            if not check.key:
                continue
            if check.key not in best:
                order.append(check.key)
            best[check.key] = (result, check)
    lines = [
        "## Targets of docs/design.md: the newest figure of each",
        "",
        "Each row takes the newest figure measured at scale 1.0 by any benchmark (the source "
        "names its results file); the sections below show the newest run of each benchmark.",
        "",
        "| figure | target | measured | | source |",
        "|---|---|---|---|---|",
    ]
    for key in order:
        result, check = best[key]
        lines.append(
            f"| {check.figure} | {check.target} | {value(check.measured, check.unit)} | "
            f"{verdict(check.met)} | `{result.path.name}` ({result.date}) |"
        )
    missed = [best[key][1].figure for key in order if best[key][1].met is False]
    lines += [
        "",
        f"Missed: {len(missed)} of {len(order)}"
        + (": " + "; ".join(missed) + "." if missed else "."),
    ]
    return "\n".join(lines) + "\n"


def render(directory: Path = RESULTS) -> str:
    """The whole document from the results files in ``directory``."""
    results = [result for result in load(directory) if result.kind in RENDERERS]
    current = newest(results)
    sections = [draw(current[kind]).markdown for kind in RENDERERS if kind in current]
    parts = [INTRO, summary(results), *sections]
    return join(*(part.rstrip("\n") for part in parts))


def draw(result: Result) -> Section:
    return RENDERERS[result.kind](result)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The two options every benchmark script has: where its results go, and whether to
    rewrite the document from the saved results afterwards."""
    parser.add_argument(
        "--output-json",
        type=Path,
        default=None,
        help="results file (default: benchmarks/results/<kind>-<date>[-scale-<scale>].json)",
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="then write docs/benchmarks.md from benchmarks/results/",
    )


def publish(record: dict[str, Any], args: argparse.Namespace) -> Path:
    """Save a script's results, print the section they render, and on ``--write-docs``
    rewrite the whole document (which shows this file only when it is under
    benchmarks/results/ and the newest of its kind)."""
    path = save(record, args.output_json)
    print(draw(Result(record["kind"], path, record)).markdown)
    if args.write_docs:
        main([])
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.docs", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="results directory")
    parser.add_argument("--output", type=Path, default=DOCS, help="the document to write")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the document differs"
    )
    args = parser.parse_args(argv)
    text = render(args.results)
    if args.check:
        current = args.output.read_text("utf-8") if args.output.exists() else ""
        if current != text:
            print(
                f"{args.output} is not what the results render; run "
                "`uv run python -m benchmarks --write-docs`",
                file=sys.stderr,
            )
            return 1
        return 0
    args.output.write_text(text, "utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
