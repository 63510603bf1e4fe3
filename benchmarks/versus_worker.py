"""A store driven over pipes, so that two tools' stores can be timed in turn (issue 42).

Not a test, and standard library only: ``versus_reference.py`` runs this file with each side's
own interpreter (the earlier tool lives in its own venv, on another Python), as

    PYTHON benchmarks/versus_worker.py "from pmgs_core import PMGSStore" DB

and sends it one JSON line per request; each answer is one JSON line. Keeping both stores open
in their own processes and asking each for a small batch in turn is what lets the two sides
share the machine's load call by call instead of minute by minute.

Requests: ``calls`` is a list of ``[method, args, kwargs]``, each run as
``store.method(*args, **kwargs)``, and a pass runs them all in order:

* ``{"op": "time", "calls", "n", "budget_s", "warm"}``: ``warm`` untimed passes, then up to
  ``n`` timed passes, stopping early once ``budget_s`` seconds are spent (at least one call is
  timed); answers ``{"samples": [seconds, ...], "hits": [...]}`` in call order (``hits``: a
  search's hits, else null);
* ``{"op": "profile", "calls", "n", "top", "cold"}``: one untimed pass (none when ``cold``:
  then the first calls of the process are the ones profiled), then ``n`` passes under
  cProfile; answers the ``top`` functions by cumulative time per call (``profile_rows``).

Anything the store prints goes to stderr: stdout carries the answers only.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import sys
import time
from typing import Any

SOURCE_ROOTS = ("site-packages/", "/src/", "/lib/python")


def short_path(path: str) -> str:
    """A function's file as the part after its package root, so a row stays readable."""
    for root in SOURCE_ROOTS:
        if root in path:
            return path.split(root, 1)[1]
    return os.path.basename(path)


def profile_rows(stats: pstats.Stats, calls: int, top: int, *, least: int = 1) -> list[Any]:
    """The ``top`` functions by cumulative time, per measured call, as
    ``[function, calls per measured call, cumulative ms, own ms]``; functions called fewer
    than ``least`` times are left out (in a whole process: the ones that ran once at start),
    and of a chain of wrappers that each pass the time on (cumulative within 3 % of the
    caller's) only the innermost is kept, so the rows name where the time goes."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = []
    for (path, line, name), (_cc, nc, tt, ct, _callers) in table.items():
        if nc < least or name in {"<module>", "<lambda>"} or path == __file__:
            continue
        where = name if path == "~" else f"{short_path(path)}:{line}({name})"
        rows.append([where, round(nc / calls, 2), ct * 1000 / calls, tt * 1000 / calls])
    rows.sort(key=lambda row: -row[2])
    kept: list[Any] = []
    for row in rows:  # of a chain of wrappers (same cumulative time), only the innermost
        if kept and row[2] >= 0.97 * kept[-1][2]:
            kept[-1] = row
        else:
            kept.append(row)
    return [
        [name, per_call, round(cum, 3), round(own, 3)] for name, per_call, cum, own in kept[:top]
    ]


def hits(result: Any) -> int | None:
    """The hits a search answered (both tools group them by content type), else None."""
    groups = result.get("results_by_type") if isinstance(result, dict) else None
    if not isinstance(groups, dict):
        return None
    return sum(len(group.get("results") or []) for group in groups.values())


def serve(store: Any, requests: Any, answers: Any) -> None:
    for line in requests:
        request = json.loads(line)
        calls = [
            (getattr(store, method), args, kwargs) for method, args, kwargs in request["calls"]
        ]
        if request["op"] == "time":
            for _ in range(request.get("warm", 0)):
                for call, args, kwargs in calls:
                    call(*args, **kwargs)
            samples: list[float] = []
            found: list[int | None] = []
            spent = 0.0
            for _ in range(request["n"]):
                for call, args, kwargs in calls:
                    if samples and spent >= request["budget_s"]:
                        break
                    started = time.perf_counter()
                    result = call(*args, **kwargs)
                    samples.append(time.perf_counter() - started)
                    found.append(hits(result))
                    spent += samples[-1]
            answer: dict[str, Any] = {"samples": samples, "hits": found}
        else:
            for call, args, kwargs in [] if request.get("cold") else calls:
                call(*args, **kwargs)
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(request["n"]):
                for call, args, kwargs in calls:
                    call(*args, **kwargs)
            profiler.disable()
            count = request["n"] * len(calls)
            answer = {"top": profile_rows(pstats.Stats(profiler), count, request.get("top", 8))}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the store writes, even below Python, goes to stderr
    sys.stdout = sys.stderr
    namespace: dict[str, Any] = {}
    exec(sys.argv[1], namespace)
    store = namespace["PMGSStore"].open(sys.argv[2])
    serve(store, sys.stdin, answers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
