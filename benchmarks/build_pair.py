"""Benchmark: issue 33's build row, both tools building one package in the same run.

Not a test. Builds the same package directory with this tree (serial, then with its two-core
path forced on, ADR 0028) and with ``pmgs-reference`` 0.5.2 between them, so that the
reference's time is bracketed by ours under whatever load the machine had; each child's wall
time, peak RSS (``os.wait4``) and the load average before and after are recorded. Our two
builds must produce the same bytes (the two-core path's promise): the script compares the
files' SHA-256 and says so. Writes ``benchmarks/results/build-pair-<date>-scale-<scale>.json``,
which ``versus_reference.py --build-pair`` reads for the table's build row, and prints the
section it renders in docs/benchmarks.md (``--write-docs`` then rewrites the document).

The package must be one the reference can build: ``COPYRGHT.txt`` renamed ``COPYRGHT`` and the
``FI_KAISEI_LINK`` group left out (docs/benchmarks.md, "Against the reference").

Usage::

    uv run python benchmarks/build_pair.py --package DIR/JPPM2026002 \\
        --reference-venv /tmp/ref --work /tmp/pair --scale 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs import add_arguments, publish
from benchmarks.results import finish, stamp
from pmgs_build import file_sha256

OURS = (
    "import json, sys\n"
    "from pmgs_build import build_database\n"
    "report = build_database(sys.argv[1], sys.argv[2], parallel=sys.argv[3] == 'parallel')\n"
    "print(json.dumps({'phase_seconds': report.phase_seconds,\n"
    "                  'logical_digest': report.logical_digest}))\n"
)


def timed(command: list[str], log: Path) -> dict[str, Any]:
    """Wall seconds and peak RSS of one child (and its own children, which wait4 reports)."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    with log.open("wb") as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    return {
        "command": [Path(command[0]).name, *command[1:2]],
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "exit": os.waitstatus_to_exitcode(status),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--package", type=Path, required=True, help="release directory")
    parser.add_argument("--reference-venv", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch directory (emptied)")
    parser.add_argument("--scale", type=float, default=1.0)
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("build-pair", args.scale)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    release = args.package.name
    runs: list[tuple[str, list[str], Path]] = []
    for name, mode in (("ours_serial", "serial"), ("reference", ""), ("ours_parallel", "parallel")):
        db = args.work / f"{name}.sqlite"
        if name == "reference":
            command = [
                str(args.reference_venv / "bin" / "pmgs"),
                "build",
                "--release",
                release,
                "--output",
                str(db),
                str(args.package),
            ]
        else:
            command = [sys.executable, "-c", OURS, str(args.package), str(db), mode]
        runs.append((name, command, db))
    figures: dict[str, dict[str, Any]] = {}
    for name, command, db in runs:
        print(f"[build_pair {time.strftime('%H:%M:%S')}] {name} …", file=sys.stderr, flush=True)
        figures[name] = timed(command, args.work / f"{name}.log")
        figures[name]["database_mb"] = round(db.stat().st_size / 1e6) if db.exists() else None
        if name != "reference" and figures[name]["exit"] == 0:
            last = (args.work / f"{name}.log").read_text("utf-8").strip().splitlines()[-1]
            figures[name].update(json.loads(last))
        print(f"  {json.dumps(figures[name])}", file=sys.stderr, flush=True)
    same = None
    ours = [args.work / "ours_serial.sqlite", args.work / "ours_parallel.sqlite"]
    if all(path.exists() for path in ours):
        same = file_sha256(ours[0]) == file_sha256(ours[1])
    reference_s = figures["reference"]["wall_s"]
    record.update(
        package=args.package.name,
        builds=figures,
        ours_same_bytes=same,
        ratio_serial=round(figures["ours_serial"]["wall_s"] / reference_s, 3),
        ratio_parallel=round(figures["ours_parallel"]["wall_s"] / reference_s, 3),
    )
    publish(finish(record), args)
    return 0 if all(run["exit"] == 0 for run in figures.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
