"""`pmgs diff` pages as a user runs them: wall time and peak RSS of the command, before and after.

Used by ``benchmarks.diff_bench --before-ref REF``: each command runs as its own process
(``pmgs_cli`` run as ``__main__``), and its peak RSS is the whole command's (its own
VmHWM: interpreter and imports included). "Before" is this tree with only
``pmgs_core/diff`` taken from ``REF`` (put first on ``PYTHONPATH``), so the two columns
differ by the diff's computation and nothing else, and their outputs are compared byte
for byte: a faster page that says something else is a bug.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.results import ROOT

CORE = "packages/pmgs-core/src/pmgs_core"


def overlay(ref: str, workdir: Path) -> Path:
    """A copy of this tree's ``pmgs_core`` whose ``diff`` package is the one at ``ref``."""
    target = workdir / "before" / "pmgs_core"
    subprocess.run(["rm", "-rf", str(target.parent)], check=True)
    target.parent.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(ROOT / CORE), str(target)], check=True)
    subprocess.run(["rm", "-rf", str(target / "diff")], check=True)
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", ref, f"{CORE}/diff"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in names:
        body = subprocess.run(
            ["git", "show", f"{ref}:{name}"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        path = target / "diff" / Path(name).relative_to(f"{CORE}/diff")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
    return target.parent


_LAUNCH = """
import atexit, os, runpy, sys

def _peak():
    with open("/proc/self/status") as status, open(os.environ["PMGS_BENCH_PEAK"], "w") as out:
        out.write(next(line.split()[1] for line in status if line.startswith("VmHWM")))

atexit.register(_peak)
sys.argv = ["pmgs", *sys.argv[1:]]
runpy.run_module("pmgs_cli", run_name="__main__")
"""
"""Runs ``pmgs`` and writes its own peak RSS (VmHWM, kB) at exit. The child's ``ru_maxrss``
would not do: it counts the pages the child shared with this process before ``exec``, so
every command would seem at least as large as the benchmark that started it."""


def run(args: list[str], pythonpath: Path | None, output: Path) -> dict[str, Any]:
    """One ``pmgs`` command: wall seconds, peak RSS in MB, exit status, output digest."""
    peak = output.with_suffix(".peak")
    env = dict(os.environ, COLUMNS="120", PMGS_BENCH_PEAK=str(peak))
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    with output.open("wb") as sink:
        started = time.perf_counter()
        code = subprocess.run(
            [sys.executable, "-c", _LAUNCH, *args],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            check=False,
        ).returncode
        wall = time.perf_counter() - started
    return {
        "wall_s": round(wall, 3),
        "peak_rss_mb": round(int(peak.read_text()) / 1024, 1),
        "exit": code,
        "sha256": hashlib.sha256(output.read_bytes()).hexdigest(),
    }


def measure(
    old_db: Path, new_db: Path, cases: dict[str, list[str]], ref: str, workdir: Path, rounds: int
) -> dict[str, Any]:
    """Each case before and after, ``rounds`` times, alternating so that load hits both."""
    before = overlay(ref, workdir)
    found: dict[str, Any] = {}
    for name, extra in cases.items():
        args = ["diff", str(old_db), str(new_db), *extra]
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for _ in range(rounds):
            for side, path in (("before", before), ("after", None)):
                runs[side].append(run(args, path, workdir / f"{name}-{side}.out"))
        found[name] = {
            "args": ["pmgs", *args[:1], "OLD", "NEW", *extra],
            "same_output": len({r["sha256"] for r in runs["before"] + runs["after"]}) == 1,
            **{
                side: {
                    "median_s": round(statistics.median(r["wall_s"] for r in rs), 3),
                    "max_s": max(r["wall_s"] for r in rs),
                    "peak_rss_mb": max(r["peak_rss_mb"] for r in rs),
                    "exit": sorted({r["exit"] for r in rs}),
                }
                for side, rs in runs.items()
            },
        }
        print(name, found[name], flush=True)
    return {"before_ref": ref, "rounds": rounds, "cases": found}
