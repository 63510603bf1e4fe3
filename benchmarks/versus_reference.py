"""Benchmark: issue 33's table, this tree against the earlier tool ``pmgs-reference`` 0.5.2.

Not a test. Rows: full build; lookup p50 in process (fi, ipc, fterm); MCP stdio start →
initialized (with the SDK import floor, ``python -c "import mcp.server.lowlevel"``, of each
side's interpreter); MCP lookup and ``search_pmgs`` (common phrase) call p50 over a bare
JSON-lines client; the response line on the wire of the lookup, of the ``search_pmgs`` default
page and of a 20-segment document page. Each row gets both figures, their ratio and the goal.

The baseline is recorded, not remeasured each time: ``--record-reference`` measures the
reference tool (installed in its own venv, answering from a database it built itself) and
writes ``benchmarks/results/reference-0.5.2-scale-<scale>.json`` with the machine's facts;
a normal run reads that file (``--baseline``), measures this tree on ``--db``, saves both
sides' figures as ``benchmarks/results/versus-reference-<date>-scale-<scale>.json`` and prints
the table (``--write-docs``: then rewrites docs/benchmarks.md). ``--live-reference`` measures
both, interleaved.
Where the baseline has no figure, the issue's figure stands and the row says so.

Child processes run with bytecode caching on (``PYTHONPYCACHEPREFIX`` under a temporary
directory, one warm-up start per side first), as an installed tool does; this machine's
``PYTHONDONTWRITEBYTECODE`` would otherwise make every start compile every module.

Usage::

    uv run python benchmarks/versus_reference.py --record-reference \\
        --reference-venv /tmp/ref --reference-db REF.sqlite --examples EXAMPLES.json \\
        --scale 0.1 --reference-build-seconds 88.5
    uv run python benchmarks/versus_reference.py --db DB --examples EXAMPLES.json \\
        --baseline benchmarks/results/reference-0.5.2-scale-0.1.json --build-seconds 61 \
        [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs import add_arguments, publish
from benchmarks.mcp_roundtrip import percentile
from benchmarks.report import machine
from benchmarks.results import finish, stamp
from benchmarks.round_three import LOOKUP_SCRIPT, Server, floor_once, start_once
from benchmarks.sections_mcp import REFERENCE

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Side:
    """One tool to measure: its interpreter, server command, store import and database."""

    name: str
    python: str
    server: list[str]
    store_import: str
    db: Path
    document_id: str
    env: dict[str, str]


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


def calls_of(side: Side, examples: dict[str, str]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "lookup": ("lookup_classification", {"scheme": "ipc", "code": "G06F3/048"}),
        "search": ("search_pmgs", {"query": examples["common_phrase"]}),
        "document": (
            "get_pmgs_document",
            {"document_id": side.document_id, "segment_limit": 20},
        ),
    }


def measure(
    sides: list[Side], examples: dict[str, str], *, starts: int, calls: int, lookups: int
) -> dict[str, dict[str, float]]:
    """Every row but the build, the sides interleaved start by start and call by call."""
    out: dict[str, dict[str, float]] = {side.name: {} for side in sides}
    for side in sides:  # warm-up: fill the bytecode cache
        start_once(side.db, side.env, side.server)
    floors: dict[str, list[float]] = {side.name: [] for side in sides}
    started: dict[str, list[float]] = {side.name: [] for side in sides}
    for _ in range(starts):
        for side in sides:
            floors[side.name].append(floor_once(side.python, side.env))
            started[side.name].append(start_once(side.db, side.env, side.server))
    codes = [("fi", "G06F3/048"), ("ipc", "G06F3/048"), ("fterm", examples["fterm_large_theme"])]
    for side in sides:
        out[side.name]["floor_ms"] = statistics.median(floors[side.name]) * 1000
        out[side.name]["start_ms"] = statistics.median(started[side.name]) * 1000
        argv = [side.store_import, str(side.db), json.dumps(codes), str(lookups)]
        done = subprocess.run(
            [side.python, "-c", LOOKUP_SCRIPT, *argv],
            env=side.env,
            check=True,
            capture_output=True,
            text=True,
        )
        for scheme, p50 in json.loads(done.stdout).items():
            out[side.name][f"lookup_{scheme}_ms"] = p50
    servers = {side.name: Server(side.db, side.env, side.server) for side in sides}
    try:
        for server in servers.values():
            server.initialize()
        for key, _call in calls_of(sides[0], examples).items():
            samples: dict[str, list[float]] = {name: [] for name in servers}
            for _ in range(calls + 1):
                for side in sides:
                    tool, arguments = calls_of(side, examples)[key]
                    server = servers[side.name]
                    line = server.call_line(tool, arguments)
                    begun = time.perf_counter()
                    reply = server.send(line)
                    samples[side.name].append(time.perf_counter() - begun)
                    answer = json.loads(reply)
                    assert not answer["result"].get("isError"), (side.name, key, answer)
                    out[side.name][f"{key}_bytes"] = len(reply)
            for name, values in samples.items():
                if key != "document":
                    out[name][f"mcp_{key}_ms"] = percentile(values[1:], 0.5) * 1000
    finally:
        for server in servers.values():
            server.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--examples", type=Path, required=True, help="the generator's examples")
    parser.add_argument("--db", type=Path, help="our database (to measure this tree)")
    parser.add_argument("--baseline", type=Path, help="recorded reference figures (JSON)")
    parser.add_argument("--record-reference", action="store_true")
    parser.add_argument("--live-reference", action="store_true")
    parser.add_argument("--reference-venv", type=Path, help="venv with pmgs-reference 0.5.2")
    parser.add_argument("--reference-db", type=Path, help="a database the reference built")
    parser.add_argument("--reference-build-seconds", type=float)
    parser.add_argument("--build-seconds", type=float, help="our full build, wall seconds")
    parser.add_argument(
        "--build-pair",
        type=Path,
        help="build_pair.py's result: both builds' seconds from one run (overrides the above)",
    )
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--note", default="", help="what the databases are, for the report")
    parser.add_argument("--starts", type=int, default=9)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--lookups", type=int, default=2000)
    add_arguments(parser)
    args = parser.parse_args()
    stamped = stamp("versus-reference", args.scale)
    loaded = json.loads(args.examples.read_text("utf-8"))
    examples: dict[str, str] = loaded.get("examples", loaded)
    counts = {"starts": args.starts, "calls": args.calls, "lookups": args.lookups}
    with tempfile.TemporaryDirectory(prefix="pmgs-versus-") as cache:
        env = child_env(Path(cache))
        if args.record_reference:
            reference = reference_side(args.reference_venv, args.reference_db, env)
            figures = measure([reference], examples, **counts)[REFERENCE]
            figures["build_s"] = args.reference_build_seconds
            record = {
                "tool": REFERENCE,
                "scale": args.scale,
                "measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "load_average_end": os.getloadavg()[0],
                "note": args.note,
                "counts": counts,
                "machine": machine(),
                "figures": {k: v for k, v in figures.items() if v is not None},
            }
            path = RESULTS / f"reference-0.5.2-scale-{args.scale:g}.json"
            path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
            print(json.dumps(record, indent=2, ensure_ascii=False))
            return 0
        ours_side = our_side(args.db, env)
        if args.live_reference:
            reference = reference_side(args.reference_venv, args.reference_db, env)
            measured = measure([reference, ours_side], examples, **counts)
            baseline = {"figures": measured[REFERENCE], "note": args.note}
            if args.reference_build_seconds is not None:
                baseline["figures"]["build_s"] = args.reference_build_seconds
            label = "live"
        else:
            baseline = json.loads(args.baseline.read_text("utf-8"))
            measured = measure([ours_side], examples, **counts)
            label = os.path.relpath(args.baseline.resolve(), RESULTS.parent.parent)
    ours = measured[ours_side.name]
    if args.build_seconds is not None:
        ours["build_s"] = args.build_seconds
    if args.build_pair is not None:
        pair = json.loads(args.build_pair.read_text("utf-8"))["builds"]
        ours["build_s"] = pair["ours_serial"]["wall_s"]
        ours["build_parallel_s"] = pair["ours_parallel"]["wall_s"]
        baseline["figures"]["build_s"] = pair["reference"]["wall_s"]
        seconds = {name: f"{run['wall_s']:.0f} s" for name, run in pair.items()}
        baseline["note"] = (
            f"{baseline.get('note', '')} Build row measured in one run by "
            f"`benchmarks/build_pair.py` (`{args.build_pair.name}`): reference "
            f"{seconds['reference']}, ours serial {seconds['ours_serial']}, ours on two "
            f"cores {seconds['ours_parallel']}; it replaces the recorded build time above."
        ).strip()
    record = {
        **stamped,
        "scale": baseline.get("scale", args.scale),
        "baseline": label,
        "live": args.live_reference,
        "note": f"{baseline.get('note', '')} {args.note}".strip(),
        "counts": counts,
        "baseline_figures": baseline["figures"],
        "ours": ours,
    }
    publish(finish(record), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
