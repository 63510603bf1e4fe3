"""Benchmark: issue 42's table, this tree against the earlier tool ``pmgs-reference`` 0.5.2.

Not a test. One command measures every figure of issue 42 on both tools at full scale and
writes the table into docs/benchmarks.md (``--write-docs``):

* in process (``versus_inprocess.py``): plain search p50 (common phrase, a phrase with a
  2-character word, a 2-character word, ``search_pmgs`` of it), ranked search p95 over queries
  of 2-6 words, lookup p50 per scheme;
* MCP over stdio (``versus_mcp.py``): start → initialized against the SDK's import floor; call
  p50 of a lookup and of two search pages with a bare JSON-lines client and with the SDK's
  client; the answers' sizes on the wire;
* the first answer after a process starts, beyond its warm answers (``versus_first.py``): the
  command, the MCP server, the viewer;
* read, not measured: the build rows from the newest ``build_pair.py`` file (both builds in
  one run, and whether our two builds wrote the same bytes), recall@10 from the newest
  ``ranked_bench.py`` file against the one before issue 42.

Each row of ours that misses its goal gets a profile (cProfile, the top functions by
cumulative time per call) in the results file, which the document shows under the table.

``--live-reference`` measures both sides in the same run, in turn (the earlier tool installed
in its own venv, answering from a database it built itself); ``--record-reference`` writes
the earlier tool's figures to ``benchmarks/results/reference-0.5.2-scale-<scale>.json``
(with ``--live-reference``: those of the same run; alone: it measures the earlier tool only,
``--db`` still naming our database, from whose texts the ranked queries are drawn); a run
without either reads that file (``--baseline``) and measures this tree only. Results:
``benchmarks/results/versus-reference-<date>-scale-<scale>.json``.

Child processes run with bytecode caching on (``PYTHONPYCACHEPREFIX`` under a temporary
directory, one warm-up start per side first), as an installed tool does; this machine's
``PYTHONDONTWRITEBYTECODE`` would otherwise make every start compile every module. Both
database files are read once first, so that neither side starts from a cold file cache.

Usage (issue 42's run, about 15 minutes on 2 cores; ``--record-reference`` also rewrites the
baseline from the same run)::

    uv run python -m benchmarks.versus_reference --db OURS.sqlite --live-reference \\
        --reference-venv REFVENV --reference-db REFERENCE.sqlite [--record-reference] \\
        --write-docs
    uv run python -m benchmarks.versus_reference --db OURS.sqlite --record-reference \\
        --reference-venv REFVENV --reference-db REFERENCE.sqlite
    uv run python -m benchmarks.versus_reference --db OURS.sqlite --write-docs
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import versus_first, versus_inprocess, versus_mcp
from benchmarks.docs import add_arguments, publish
from benchmarks.report import machine
from benchmarks.results import Result, finish, load, newest, stamp
from benchmarks.sections_versus import REFERENCE
from benchmarks.versus_mcp import Side

RESULTS = Path(__file__).resolve().parent / "results"
RANKED_BEFORE = "ranked-2026-12-05-scale-1.json"
"""The ranked benchmark's result before issue 42: its recall@10 is the floor."""
EXAMPLES = {"common_phrase": "制御するもの", "two_char_word": "電池", "fterm_large_theme": "4C083"}
"""The generator's named examples (pmgs_testkit's vocabulary and plan), for a database built
from a generated package whose examples file is not at hand."""


def child_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def our_side(db: Path, env: dict[str, str]) -> Side:
    from pmgs_core import PMGSStore

    with PMGSStore.open(db) as store:
        listed = store.list_documents("fterm_explanation", limit=1)
    return Side(
        "pmgs (this tree)",
        sys.executable,
        [sys.executable, "-m", "pmgs_mcp"],
        "from pmgs_core import PMGSStore",
        db,
        str(listed["items"][0]["document_id"]),
        env,
    )


def reference_side(venv: Path, db: Path, env: dict[str, str]) -> Side:
    """The reference names a document by an opaque id, one per source file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        row = conn.execute(
            "SELECT document_id FROM document WHERE kind = 'fterm_explanation' "
            "AND language = 'ja' ORDER BY title LIMIT 1"
        ).fetchone()
    return Side(
        REFERENCE,
        str(venv / "bin" / "python"),
        [str(venv / "bin" / "pmgs"), "mcp"],
        "from pmgs_reference.store import PMGSStore",
        db,
        str(row[0]),
        env,
    )


def warm_file(path: Path) -> None:
    """Read the database once, so that the first side measured does not pay for the cache."""
    with path.open("rb") as handle:
        while handle.read(1 << 22):
            pass


def log(message: str) -> None:
    print(f"[versus {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def measure(
    sides: dict[str, Side], examples: dict[str, str], queries: list[str], args: argparse.Namespace
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]], dict[str, Any], dict[str, Any]]:
    """Every measured row for the sides given ("ours", "reference"): figures, calls per
    figure, our profiles of missed rows, and the first-answer details."""
    for side in sides.values():
        warm_file(side.db)
    figures: dict[str, dict[str, Any]] = {role: {} for role in sides}
    counts: dict[str, dict[str, int]] = {role: {} for role in sides}
    profiles: dict[str, Any] = {}
    log("in process")
    workers = {
        role: versus_inprocess.Worker(side.python, side.store_import, side.db, side.env)
        for role, side in sides.items()
    }
    try:
        found, calls, missed = versus_inprocess.measure(
            workers,
            examples,
            queries,
            calls=args.calls,
            lookups=args.lookups,
            rounds=args.rounds,
            budget_s=args.budget,
        )
    finally:
        for worker in workers.values():
            worker.close()
    profiles.update(missed)
    by_name = {side.name: role for role, side in sides.items()}
    ordered = list(sides.values())

    def merge(found: dict[str, dict[str, float]], calls: dict[str, dict[str, int]]) -> None:
        for key, values in found.items():
            figures[by_name.get(key, key)].update(values)
        for key, numbers in calls.items():
            counts[by_name.get(key, key)].update(numbers)

    merge(found, calls)
    log("MCP start-up")
    merge(versus_mcp.starts(ordered, args.starts), {})
    log("MCP calls, bare client")
    merge(*versus_mcp.bare_calls(ordered, examples, args.mcp_calls, args.budget))
    log("MCP calls, SDK client")
    merge(*versus_mcp.sdk_calls(ordered, examples, args.mcp_calls, args.budget))
    if "ours" in sides:
        profiles.update(
            versus_mcp.profiles(sides["ours"], examples, figures["ours"], args.profile_calls)
        )
    log("first answers")
    first = versus_first.measure(
        ordered,
        examples["two_char_word"],
        starts=args.first_starts,
        warm=args.first_warm,
        viewer_side=sides["ours"].name if "ours" in sides else "",
    )
    details = {by_name[name]: by_kind for name, by_kind in first.items()}
    for role, by_kind in details.items():
        for kind, row in by_kind.items():
            figures[role][f"first_{kind}_extra_ms"] = row["extra_ms"]
            counts[role][f"first_{kind}_extra_ms"] = args.first_starts
    if "ours" in sides:
        log("profiles of first answers that miss")
        profiles.update(
            versus_first.profiles(sides["ours"], examples["two_char_word"], details["ours"])
        )
    return figures, counts, profiles, details


def build_rows(path: Path | None) -> dict[str, Any]:
    """The build figures of a build_pair.py file (default: the newest at scale 1)."""
    if path is None:
        pairs = [r for r in load(RESULTS) if r.kind == "build-pair" and r.scale == 1.0]
        if not pairs:
            return {}
        path = newest(pairs)["build-pair"].path
    pair = json.loads(path.read_text("utf-8"))
    builds = pair["builds"]
    return {
        "file": path.name,
        "reference_s": builds["reference"]["wall_s"],
        "serial_s": builds["ours_serial"]["wall_s"],
        "parallel_s": builds["ours_parallel"]["wall_s"],
        "same_bytes": pair.get("ours_same_bytes"),
    }


def recall_rows() -> dict[str, Any]:
    """recall@10 (relevance, any word, ``equivalent``) of the newest ranked_bench.py file at
    scale 1, and of the file before issue 42."""
    ranked = [r for r in load(RESULTS) if r.kind == "ranked" and r.scale == 1.0]
    before = next((r for r in ranked if r.path.name == RANKED_BEFORE), None)
    if not ranked or before is None:
        return {}
    current: Result = newest(ranked)["ranked"]

    def of(result: Result, kind: str) -> float:
        return float(result.data["quality"]["relevance_any"][kind]["recall_at_10"])

    return {
        "file": current.path.name,
        "equivalent": of(current, "equivalent"),
        "strict": of(current, "strict"),
        "before_file": before.path.name,
        "before": of(before, "equivalent"),
        "before_strict": of(before, "strict"),
    }


def record_baseline(
    args: argparse.Namespace, counts: dict[str, Any], measured: dict[str, Any]
) -> Path:
    """Write the earlier tool's figures as the recorded baseline a run without
    ``--live-reference`` reads (with the ranked queries, so that ours answers the same)."""
    record = {
        "kind": "reference-baseline",
        "tool": REFERENCE,
        "scale": args.scale,
        "measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_end": os.getloadavg()[0],
        "note": args.note,
        "counts": counts,
        "machine": machine(),
        **measured,
    }
    path = RESULTS / f"reference-0.5.2-scale-{args.scale:g}.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"baseline written to {path}", file=sys.stderr)
    return path


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", type=Path, help="our database (to measure this tree)")
    parser.add_argument("--examples", type=Path, help="the generator's examples (JSON)")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=RESULTS / "reference-0.5.2-scale-1.json",
        help="recorded reference figures (JSON), when not --live-reference",
    )
    parser.add_argument("--record-reference", action="store_true")
    parser.add_argument("--live-reference", action="store_true")
    parser.add_argument("--reference-venv", type=Path, help="venv with pmgs-reference 0.5.2")
    parser.add_argument("--reference-db", type=Path, help="a database the reference built")
    parser.add_argument(
        "--build-pair", type=Path, help="build_pair.py's result (default: the newest at scale 1)"
    )
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0, help="for the ranked queries")
    parser.add_argument("--note", default="", help="what the databases are, for the report")
    parser.add_argument("--starts", type=int, default=7, help="MCP starts per side")
    parser.add_argument("--calls", type=int, default=300, help="in-process calls per search row")
    parser.add_argument("--lookups", type=int, default=2000, help="in-process calls per lookup")
    parser.add_argument("--queries", type=int, default=50, help="ranked queries (2-6 words)")
    parser.add_argument("--rounds", type=int, default=6, help="turns per in-process row")
    parser.add_argument("--mcp-calls", type=int, default=200, help="MCP calls per row and side")
    parser.add_argument("--first-starts", type=int, default=3, help="fresh processes per row")
    parser.add_argument("--first-warm", type=int, default=3, help="warm answers after the first")
    parser.add_argument("--profile-calls", type=int, default=50, help="calls under cProfile")
    parser.add_argument(
        "--budget",
        type=float,
        default=20.0,
        help="seconds of calls per row for a slow side (the earlier tool's searches)",
    )
    add_arguments(parser)
    args = parser.parse_args()
    if (args.live_reference or args.record_reference) and (
        args.reference_venv is None or args.reference_db is None
    ):
        parser.error("--reference-venv and --reference-db are needed to measure it")
    if args.db is None:
        parser.error("--db is needed (this tree's database; the ranked queries come from it)")
    return args


def main() -> int:
    args = arguments()
    stamped = stamp("versus-reference", args.scale)
    examples = dict(EXAMPLES)
    if args.examples is not None:
        loaded = json.loads(args.examples.read_text("utf-8"))
        examples.update(loaded.get("examples", loaded))
    counts = {
        key: getattr(args, key)
        for key in (
            *("starts", "calls", "lookups", "queries", "rounds", "mcp_calls"),
            *("first_starts", "first_warm", "budget"),
        )
    }
    baseline: dict[str, Any] = {}
    if not (args.live_reference or args.record_reference):
        baseline = json.loads(args.baseline.read_text("utf-8"))
    queries = baseline.get("ranked_queries") or versus_inprocess.ranked_queries(
        args.db, args.seed, args.queries
    )
    with tempfile.TemporaryDirectory(prefix="pmgs-versus-") as cache:
        env = child_env(Path(cache))
        sides: dict[str, Side] = {}
        if args.live_reference or args.record_reference:
            sides["reference"] = reference_side(args.reference_venv, args.reference_db, env)
        if args.live_reference or not args.record_reference:
            sides["ours"] = our_side(args.db, env)
        figures, calls, profiles, first = measure(sides, examples, queries, args)
    if args.record_reference:
        record_baseline(
            args,
            counts,
            {
                "figures": figures["reference"],
                "samples": calls["reference"],
                "first_answer": first.get("reference", {}),
                "ranked_queries": queries,
            },
        )
        if not args.live_reference:
            return 0
    if args.live_reference:
        baseline = {
            "figures": figures["reference"],
            "samples": calls["reference"],
            "first_answer": first.get("reference", {}),
            "note": "",
        }
        label = "live"
    else:
        label = os.path.relpath(args.baseline.resolve(), RESULTS.parent.parent)
    reference = dict(baseline["figures"])
    ours = figures["ours"]
    notes = [baseline.get("note", ""), args.note]
    build = build_rows(args.build_pair)
    if build:
        reference["build_s"] = build["reference_s"]
        ours["build_s"] = build["serial_s"]
        ours["build_parallel_s"] = build["parallel_s"]
        same = {True: "the same bytes", False: "**different bytes**", None: "bytes not compared"}
        notes.append(
            f"Build rows from `{build['file']}` (one run of `benchmarks/build_pair.py`: "
            f"reference {build['reference_s']:.0f} s, ours serial {build['serial_s']:.0f} s, "
            f"on two cores {build['parallel_s']:.0f} s, {same[build['same_bytes']]})."
        )
    recall = recall_rows()
    if recall:
        ours["ranked_recall_at_10"] = recall["equivalent"]
    record = {
        **stamped,
        "scale": args.scale,
        "baseline": label,
        "live": args.live_reference,
        "note": " ".join(n for n in notes if n).strip(),
        "counts": counts,
        "baseline_figures": reference,
        "ours": ours,
        "samples": {"reference": baseline.get("samples", {}), "ours": calls["ours"]},
        "first_answer": {"reference": baseline.get("first_answer", {}), "ours": first["ours"]},
        "build_same_bytes": build.get("same_bytes"),
        "recall": recall,
        "profiles": profiles,
        "ranked_queries": queries,
        "first_query": examples["two_char_word"],
    }
    publish(finish(record), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
