"""`pmgs diff` pages as a user runs them: wall time and peak RSS of the command, before and after.

Used by ``benchmarks.diff_bench --before-ref REF``: each command runs as its own process
(``python -m pmgs_cli``), so its peak RSS (``wait4``) is the whole command's, imports
included. "Before" is this tree with only ``pmgs_core/diff`` taken from ``REF`` (put first on
``PYTHONPATH``), so the two columns differ by the diff's computation and nothing else, and
their outputs are compared byte for byte: a faster page that says something else is a bug.
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


def run(args: list[str], pythonpath: Path | None, output: Path) -> dict[str, Any]:
    """One ``pmgs`` command: wall seconds, peak RSS in MB, exit status, output digest."""
    env = dict(os.environ, COLUMNS="120")
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    with output.open("wb") as sink:
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "pmgs_cli", *args],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": round(wall, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "exit": process.returncode,
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
