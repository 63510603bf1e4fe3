"""Benchmark: issue 33's table, this tree against the earlier tool ``pmgs-reference`` 0.5.2.

Not a test. Rows: full build; lookup p50 in process (fi, ipc, fterm); MCP stdio start →
initialized (with the SDK import floor, ``python -c "import mcp.server.lowlevel"``, of each
side's interpreter); MCP lookup and ``search_pmgs`` (common phrase) call p50 over a bare
JSON-lines client; the response line on the wire of the lookup, of the ``search_pmgs`` default
page and of a 20-segment document page. Each row gets both figures, their ratio and the goal.

The baseline is recorded, not remeasured each time: ``--record-reference`` measures the
reference tool (installed in its own venv, answering from a database it built itself) and
writes ``benchmarks/results/reference-0.5.2-scale-<scale>.json`` with the machine's facts;
a normal run reads that file (``--baseline``), measures this tree on ``--db`` and prints the
table (``--write``: into docs/benchmarks.md). ``--live-reference`` measures both, interleaved.
Where the baseline has no figure, the issue's figure stands and the row says so.

Child processes run with bytecode caching on (``PYTHONPYCACHEPREFIX`` under a temporary
directory, one warm-up start per side first), as an installed tool does; this machine's
``PYTHONDONTWRITEBYTECODE`` would otherwise make every start compile every module.

Usage::

    uv run python benchmarks/versus_reference.py --record-reference \\
        --reference-venv /tmp/ref --reference-db REF.sqlite --examples EXAMPLES.json \\
        --scale 0.1 --reference-build-seconds 88.5
    uv run python benchmarks/versus_reference.py --db DB --examples EXAMPLES.json \\
        --baseline benchmarks/results/reference-0.5.2-scale-0.1.json --build-seconds 61 [--write]
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

from benchmarks.mcp_roundtrip import percentile, write_docs
from benchmarks.report import machine
from benchmarks.round_three import LOOKUP_SCRIPT, Server, floor_once, start_once

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCE = "pmgs-reference 0.5.2"

# (row key, label, unit, goal text, goal as a number, or None)
ROWS: tuple[tuple[str, str, str, str, float | None], ...] = (
    ("build_s", "full build", "s", "≤ 0.30 × the reference", None),
    ("build_parallel_s", "full build on two cores (ADR 0028)", "s", "≤ 0.30 × the reference", None),
    ("lookup_fi_ms", "lookup in process, fi p50", "ms", "≤ 0.15 ms", 0.15),
    ("lookup_ipc_ms", "lookup in process, ipc p50", "ms", "≤ 0.15 ms", 0.15),
    ("lookup_fterm_ms", "lookup in process, fterm p50", "ms", "≤ 0.15 ms", 0.15),
    ("floor_ms", "`import mcp.server.lowlevel` (floor)", "ms", "", None),
    ("start_ms", "MCP stdio start → initialized", "ms", "≤ floor + 100 ms", None),
    ("mcp_lookup_ms", "MCP lookup call p50 (IPC)", "ms", "≤ 1.5 ms", 1.5),
    ("mcp_search_ms", "MCP search_pmgs call p50, common phrase", "ms", "≤ 3 ms", 3),
    ("search_bytes", "search_pmgs default page on the wire", "B", "≤ 8 KB", 8192),
    ("lookup_bytes", "lookup on the wire (IPC)", "B", "≤ 3 KB", 3072),
    ("document_bytes", "20-segment document page on the wire", "B", "≤ 6 KB", 6144),
)

ISSUE_FIGURES: dict[str, float] = {
    "lookup_fi_ms": 0.10,
    "lookup_ipc_ms": 0.20,
    "lookup_fterm_ms": 0.10,
}
"""Issue 33's own baseline (in-process lookups before scope notes, concise records and source
tables were added), used where a recorded baseline has no figure."""


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


def _value(row: str, unit: str, value: float | None) -> str:
    if value is None:
        return "—"
    if unit == "B":
        return f"{value:,.0f} B"
    digits = 3 if row.startswith("lookup_") and unit == "ms" else (0 if unit == "s" else 2)
    if row in {"floor_ms", "start_ms"}:
        digits = 0
    return f"{value:.{digits}f} {unit}"


def table(baseline: dict[str, Any], ours: dict[str, float], *, label: str, live: bool) -> list[str]:
    """The rows with both figures, ours / baseline, the goal and whether ours meets it."""
    figures: dict[str, float] = baseline["figures"]
    lines = [
        f"| figure | {REFERENCE} | this tree | ratio | goal | met |",
        "|---|---:|---:|---:|---|---|",
    ]
    notes: list[str] = []
    for row, label_text, unit, goal_text, goal_value in ROWS:
        name, goal = label_text, goal_value
        # Both build rows compare with the reference's one build.
        reference = figures.get("build_s" if row == "build_parallel_s" else row)
        if reference is None and row in ISSUE_FIGURES:
            reference = ISSUE_FIGURES[row]
            name += " ¹"
            notes.append(row)
        mine = ours.get(row)
        ratio = "—"
        if mine is not None and reference:
            ratio = (
                f"{mine / reference:.2f}" if mine >= reference / 10 else f"{mine / reference:.4f}"
            )
        if row == "start_ms" and mine is not None:
            goal = ours["floor_ms"] + 100
        if row in ("build_s", "build_parallel_s") and reference:
            goal = 0.30 * reference  # issue 33: a third of the earlier tool's time, or less
        met = "" if goal is None or mine is None else ("yes" if mine <= goal else "no")
        lines.append(
            f"| {name} | {_value(row, unit, reference)} | {_value(row, unit, mine)} | "
            f"{ratio} | {goal_text} | {met} |"
        )
    if notes:
        lines += [
            "",
            "¹ The reference could not answer this row here; issue 33's figure stands as the "
            "baseline.",
        ]
    source = "measured live in the same run" if live else f"recorded in `{label}`"
    lines += ["", f"Baseline {source}; ratio = this tree / baseline (below 1: faster, smaller)."]
    return lines


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
    parser.add_argument("--write", action="store_true", help="replace the docs section")
    args = parser.parse_args()
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
    info = machine()
    lines = [
        f"## This tree against {REFERENCE} (issue 33, `benchmarks/versus_reference.py`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu_model']}, {info['cpus']} CPUs, "
        f"Python {info['python']} (the reference: its own venv, Python 3.12); load average "
        f"{os.getloadavg()[0]:.1f} at the end (the machine was shared). Scale "
        f"{baseline.get('scale', args.scale):g}. {baseline.get('note', '')} {args.note}".rstrip(),
        "",
        *table(baseline, ours, label=label, live=args.live_reference),
    ]
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        scale = f"{baseline.get('scale', args.scale):g}"
        marks = (
            f"<!-- versus-reference-{scale}:start -->",
            f"<!-- versus-reference-{scale}:end -->",
        )
        write_docs(section, start=marks[0], end=marks[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
