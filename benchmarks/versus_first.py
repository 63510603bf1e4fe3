"""Issue 42's first-answer rows: what a process's first answer costs beyond its warm answers.

Not a test. For each way people ask (the ``pmgs`` command, the MCP server, the viewer) a fresh
process is started, made ready, asked the same search once, then ``warm`` more times; the row
is the first answer's time minus the median of the warm ones (what the first call does that
later calls do not), with the time from spawning the process to the first answer beside it.
Goal (issue 42): at most 150 ms beyond the warm figure. The search is ``search_pmgs`` of a
2-character word (the generator's ``two_char_word``, 電池), as in ``first_answer.py``, which
measures the same figure for two trees of this project; this module measures it for the
earlier tool too, whose commands and interpreter differ.

* command: a child imports the command's entry point (that is the start), then calls it
  with ``search QUERY --db DB --json`` in the same process, first and warm, stdout to
  /dev/null (the command's own work, without a new interpreter each time);
* MCP: ``initialize`` (the start), then ``tools/call`` over stdio with a bare client;
* viewer: the process announces its address (the start), then ``GET /search?q=QUERY`` on one
  keep-alive connection. The earlier tool has no viewer.

``time.perf_counter`` is the system's monotonic clock, so a child's times and the parent's
spawn time can be subtracted. For a row of ours that misses, the profile is what the first
answer added: the command's first call under cProfile; for MCP, a profiled run that answers
once minus a profiled run that only starts, per function; for the viewer, the store's first
``search_pmgs`` in a fresh process (``first_profile`` says why).
"""

from __future__ import annotations

import http.client
import itertools
import json
import signal
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from benchmarks import versus_mcp
from benchmarks.round_three import Server
from benchmarks.versus_inprocess import Worker
from benchmarks.versus_mcp import Side

GOAL_MS = 150.0
CLI_SCRIPT = """
import cProfile, json, os, pstats, sys, time
started = time.perf_counter()
exec(sys.argv[1])
imported = time.perf_counter()
argv, n, profile = json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "profile"
answers = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
done, profiler = [], cProfile.Profile()
for index in range(n):
    if profile and index == 0:
        profiler.enable()
    try:
        main(argv)
    except SystemExit:
        pass
    sys.stdout.flush()
    if profile and index == 0:
        profiler.disable()
    done.append(time.perf_counter())
out = {"started": started, "imported": imported, "done": done}
if profile:
    sys.path.insert(0, sys.argv[5])
    from versus_worker import profile_rows
    out["top"] = profile_rows(pstats.Stats(profiler), 1, 8)
answers.write(json.dumps(out) + "\\n")
"""
"""Argv: the statement importing ``main``, the command's arguments (JSON), the number of
calls, ``profile`` or not, and this folder (for ``profile_rows``)."""


def _summary(
    spawned: float, first_done: float, first_s: float, warm: list[float]
) -> dict[str, Any]:
    warm_ms = statistics.median(warm) * 1000 if warm else 0.0
    return {
        "first_ms": first_s * 1000,
        "warm_ms": warm_ms,
        "extra_ms": first_s * 1000 - warm_ms,
        "spawn_to_first_ms": (first_done - spawned) * 1000,
    }


def cli_once(side: Side, query: str, warm: int, *, profile: bool = False) -> dict[str, Any]:
    entry = (
        "from pmgs_cli import main"
        if "pmgs_core" in side.store_import
        else "from pmgs_reference.cli import main"
    )
    argv = ["search", query, "--db", str(side.db), "--json"]
    spawned = time.perf_counter()
    done = subprocess.run(
        [
            side.python,
            "-c",
            CLI_SCRIPT,
            entry,
            json.dumps(argv),
            str(1 + warm),
            "profile" if profile else "-",
            str(Path(__file__).resolve().parent),
        ],
        env=side.env,
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    ends = [got["imported"], *got["done"]]
    times = [b - a for a, b in itertools.pairwise(ends)]
    out = _summary(spawned, got["done"][0], times[0], times[1:])
    out["start_ms"] = (got["imported"] - spawned) * 1000
    if profile:
        out["top"] = got["top"]
    return out


def mcp_once(side: Side, query: str, warm: int) -> dict[str, Any]:
    spawned = time.perf_counter()
    server = Server(side.db, side.env, side.server)
    try:
        server.initialize()
        ready = time.perf_counter()
        times, first_done = [], 0.0
        for _ in range(1 + warm):
            line = server.call_line("search_pmgs", {"query": query})
            begun = time.perf_counter()
            answer = json.loads(server.send(line))
            times.append(time.perf_counter() - begun)
            first_done = first_done or time.perf_counter()
            assert not answer["result"].get("isError"), answer
    finally:
        server.close()
    out = _summary(spawned, first_done, times[0], times[1:])
    out["start_ms"] = (ready - spawned) * 1000
    return out


class Viewer:
    """``python -m pmgs_web`` on a free loopback port, until it is stopped."""

    def __init__(self, side: Side, prefix: list[str]) -> None:
        self.process = subprocess.Popen(
            [*prefix, "-m", "pmgs_web", "--db", str(side.db), "--port", "0", "--no-open", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=side.env,
            text=True,
        )
        assert self.process.stdout is not None
        url = urlsplit(json.loads(self.process.stdout.readline())["url"])
        self.connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=600)

    def get(self, path: str) -> float:
        begun = time.perf_counter()
        self.connection.request("GET", path)
        response = self.connection.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status)
        assert body, path
        return time.perf_counter() - begun

    def stop(self) -> None:
        self.connection.close()
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)


def viewer_once(side: Side, query: str, warm: int) -> dict[str, Any]:
    spawned = time.perf_counter()
    viewer = Viewer(side, [side.python])
    ready = time.perf_counter()
    try:
        times = [viewer.get(f"/search?q={quote(query)}")]
        first_done = time.perf_counter()
        times += [viewer.get(f"/search?q={quote(query)}") for _ in range(warm)]
    finally:
        viewer.stop()
    out = _summary(spawned, first_done, times[0], times[1:])
    out["start_ms"] = (ready - spawned) * 1000
    return out


def _median_run(runs: list[dict[str, Any]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "top"}


def measure(
    sides: list[Side], query: str, *, starts: int, warm: int, viewer_side: str
) -> dict[str, dict[str, dict[str, float]]]:
    """Per side and interface, the medians over ``starts`` fresh processes, sides in turn."""
    kinds = {"cli": cli_once, "mcp": mcp_once, "viewer": viewer_once}
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        s.name: {k: [] for k in kinds} for s in sides
    }
    for _ in range(starts):
        for kind, once in kinds.items():
            for side in sides:
                if kind == "viewer" and side.name != viewer_side:
                    continue
                runs[side.name][kind].append(once(side, query, warm))
    return {
        name: {kind: _median_run(found) for kind, found in by_kind.items() if found}
        for name, by_kind in runs.items()
    }


def first_profile(side: Side, query: str, kind: str) -> list[Any]:
    """What the first answer added. MCP: a profiled server that answers once minus one that
    only starts. Viewer: cProfile sees only the server's main thread, and the viewer answers
    from a worker thread, so its profile is the store's first ``search_pmgs`` in a fresh
    process (what the viewer's first search asks of it)."""
    if kind == "mcp":
        arguments = {"query": query}
        once = versus_mcp.server_stats(side, "search_pmgs", arguments, 1)
        return versus_mcp.difference(once, versus_mcp.server_stats(side, "", {}, 0), 1)
    worker = Worker(side.python, side.store_import, side.db, side.env)
    try:
        request = {"op": "profile", "calls": [["search_pmgs", [query], {}]], "n": 1, "cold": True}
        top: list[Any] = worker.ask(request)["top"]
    finally:
        worker.close()
    return top


def profiles(side: Side, query: str, figures: dict[str, dict[str, float]]) -> dict[str, Any]:
    """The profile of each of our first-answer rows that misses the goal."""
    out: dict[str, Any] = {}
    for kind, row in figures.items():
        if row["extra_ms"] <= GOAL_MS:
            continue
        if kind == "cli":
            out[f"first_{kind}"] = cli_once(side, query, 0, profile=True)["top"]
        else:
            out[f"first_{kind}"] = first_profile(side, query, kind)
    return out
