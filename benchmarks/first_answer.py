"""Benchmark: issue 42's MCP call figures and every process's first answer, two trees in one run.

Not a test. The machine is shared, so the baseline is measured in the same run, interleaved:
``--baseline DIR`` is an exported tree of an earlier commit (``git archive main packages |
tar -x -C DIR``) whose ``packages/*/src`` go first on the baseline's ``PYTHONPATH``; the other
side is this working tree. Without it only this tree is measured. Per side:

* :func:`mcp_calls`: tool-call round trips over stdio with a bare JSON-lines client (p50, and
  the server's CPU time per call from ``/proc``, which the load disturbs less than the wall
  clock), and beside them the same calls from the SDK's own client (``mcp.Client``);
* :func:`first_answers`: for the MCP server (stdio), the viewer (``pmgs web``) and the CLI,
  the time from the process's start to ready (MCP: the ``initialize`` answer; viewer: the URL
  it prints once listening), the first answer after ready, and a warm answer of the same
  request in the same process. The goal: first − warm ≤ 150 ms. The CLI has no "ready": its
  figure is ``main(["search", …])`` called twice in one process, first against second.

Both functions return plain dicts, so that ``versus_reference.py`` can import and call them.

Usage::

    git archive main packages | tar -x -C /tmp/base
    uv run python benchmarks/first_answer.py --db DB --baseline /tmp/base [--calls 300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs import add_arguments
from benchmarks.results import finish, save, stamp
from benchmarks.round_three import Server, side_env

LOOKUP = ("lookup_classification", {"scheme": "fi", "code": "G06F3/048"})
SEARCHES: dict[str, tuple[str, dict[str, Any]]] = {
    "lookup FI": LOOKUP,
    "search_pmgs, 2 characters": ("search_pmgs", {"query": "電池"}),
    "search_pmgs, common phrase": ("search_pmgs", {"query": "制御するもの"}),
}
"""The calls measured: a lookup and a search page (the goals: 1.0 ms and 2.0 ms p50)."""
FIRST_QUERY = "電池"
GOAL_FIRST_MS = 150.0
SDK_DISPATCH = {"PMGS_MCP_SDK_DISPATCH": "1"}
"""The server's switch back to the SDK's dispatcher (the answer path before issue 42)."""


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bare_rounds(db: Path, envs: dict[str, dict[str, str]], count: int) -> dict[str, Any]:
    """Per side and call: round-trip p50, server CPU ms per call, response bytes; the sides
    answer call by call in turn, and each side's responses are checked equal to the first's."""
    servers = {name: Server(db, env) for name, env in envs.items()}
    out: dict[str, dict[str, Any]] = {name: {} for name in envs}
    try:
        for server in servers.values():
            server.initialize()
        for label, (tool, arguments) in SEARCHES.items():
            samples: dict[str, list[float]] = {name: [] for name in servers}
            cpu: dict[str, float] = dict.fromkeys(servers, 0.0)
            replies: dict[str, dict[str, Any]] = {}
            for name, server in servers.items():  # warm-up, and the answers to compare
                reply = json.loads(server.send(server.call_line(tool, arguments)))
                replies[name] = reply["result"]
            for _ in range(count):
                for name, server in servers.items():
                    line = server.call_line(tool, arguments)
                    before = _cpu_seconds(server.process.pid)
                    started = time.perf_counter()
                    server.send(line)
                    samples[name].append(time.perf_counter() - started)
                    cpu[name] += _cpu_seconds(server.process.pid) - before
            first = next(iter(replies.values()))
            for name in servers:
                out[name][label] = {
                    "p50_ms": _p50_ms(samples[name]),
                    "server_cpu_ms": cpu[name] / count * 1000,
                    "same_answer": replies[name] == first,
                }
    finally:
        for server in servers.values():
            server.close()
    return out


def sdk_client_rounds(db: Path, env: dict[str, str], count: int, mode: str) -> dict[str, float]:
    """p50 per call from the SDK's own client over stdio (its cost included); ``mode``
    ``legacy`` negotiates a handshake-era version, ``auto`` the per-request era (2026-07-28),
    whose calls the server leaves to the SDK's dispatcher."""
    import anyio
    from mcp import StdioServerParameters

    from benchmarks.mcp_roundtrip import sdk_rounds

    target = StdioServerParameters(
        command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(db)], env=env
    )
    calls = [(label, tool, arguments) for label, (tool, arguments) in SEARCHES.items()]
    samples = anyio.run(sdk_rounds, target, mode, calls, count)
    return {label: _p50_ms(values) for label, values in samples.items()}


def mcp_calls(db: Path, baseline: Path | None = None, count: int = 300) -> dict[str, Any]:
    """Issue 42's MCP figures: bare-client p50 and server CPU per call for this tree, this
    tree with the SDK's dispatcher (``PMGS_MCP_SDK_DISPATCH=1``) and the baseline if given;
    the SDK client's p50 for this tree."""
    envs = {"after": side_env(None), "after, SDK dispatch": {**side_env(None), **SDK_DISPATCH}}
    if baseline is not None:
        envs["before"] = side_env(baseline)
    result: dict[str, Any] = {"bare": bare_rounds(db, envs, count)}
    result["sdk_client"] = {
        f"{name}, {mode}": sdk_client_rounds(db, env, count, mode)
        for mode in ("legacy", "auto")
        for name, env in envs.items()
        if name != "after, SDK dispatch"
    }
    return result


def _mcp_first(
    db: Path, env: dict[str, str], tool: str, arguments: dict[str, Any]
) -> dict[str, float]:
    started = time.perf_counter()
    server = Server(db, env)
    try:
        server.initialize()
        ready = time.perf_counter()
        server.send(server.call_line(tool, arguments))
        first = time.perf_counter()
        warm = []
        for _ in range(5):
            line = server.call_line(tool, arguments)
            at = time.perf_counter()
            server.send(line)
            warm.append(time.perf_counter() - at)
    finally:
        server.close()
    return {
        "ready_ms": (ready - started) * 1000,
        "first_ms": (first - ready) * 1000,
        "warm_ms": _p50_ms(warm),
    }


def _web_first(db: Path, env: dict[str, str]) -> dict[str, float]:
    command = [sys.executable, "-m", "pmgs_web", "--db", str(db), "--port", "0"]
    started = time.perf_counter()
    child = subprocess.Popen(
        [*command, "--json", "--no-open", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert child.stdout is not None
        url = json.loads(child.stdout.readline())["url"]
        ready = time.perf_counter()
        page = url + "search?" + urllib.parse.urlencode({"q": FIRST_QUERY})

        def get() -> float:
            at = time.perf_counter()
            with urllib.request.urlopen(page, timeout=60) as response:
                response.read()
            return time.perf_counter() - at

        first = get()
        warm = [get() for _ in range(5)]
    finally:
        child.terminate()
        child.wait(timeout=30)
    return {
        "ready_ms": (ready - started) * 1000,
        "first_ms": first * 1000,
        "warm_ms": _p50_ms(warm),
    }


_CLI_TWICE = """
import contextlib, io, json, sys, time
from pmgs_cli import main
times = []
for _ in range(2):
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["search", sys.argv[1], "--db", sys.argv[2]])
    assert code == 0, code
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def _cli_first(db: Path, env: dict[str, str]) -> dict[str, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CLI_TWICE, FIRST_QUERY, str(db)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    total = time.perf_counter() - started
    first, second = json.loads(done.stdout.strip().splitlines()[-1])
    return {"process_ms": total * 1000, "first_ms": first * 1000, "warm_ms": second * 1000}


def first_answers(db: Path, baseline: Path | None = None, repeats: int = 3) -> dict[str, Any]:
    """Per side and process kind: medians over ``repeats`` starts of start→ready, first answer
    after ready and warm answer (ms), and ``excess_ms`` = first − warm against the 150 ms goal."""
    envs = {"after": side_env(None)}
    if baseline is not None:
        envs["before"] = side_env(baseline)
    probes = {
        "mcp search_pmgs": lambda env: _mcp_first(db, env, "search_pmgs", {"query": FIRST_QUERY}),
        "mcp lookup": lambda env: _mcp_first(db, env, *LOOKUP),
        "web search page": lambda env: _web_first(db, env),
        "cli search": lambda env: _cli_first(db, env),
    }
    runs: dict[str, dict[str, list[dict[str, float]]]] = {
        name: {kind: [] for kind in probes} for name in envs
    }
    for _ in range(repeats):
        for kind, probe in probes.items():
            for name, env in envs.items():
                runs[name][kind].append(probe(env))
    out: dict[str, Any] = {}
    for name, kinds in runs.items():
        out[name] = {}
        for kind, samples in kinds.items():
            figures = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
            figures["excess_ms"] = figures["first_ms"] - figures["warm_ms"]
            figures["goal_met"] = figures["excess_ms"] <= GOAL_FIRST_MS
            out[name][kind] = figures
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--baseline", type=Path, default=None, help="exported earlier tree")
    parser.add_argument("--label", default="", help="what the baseline is (commit), for the record")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--scale", type=float, default=None, help="the database's scale")
    parser.add_argument("--skip-calls", action="store_true")
    parser.add_argument("--skip-first", action="store_true")
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("first-answer", args.scale)
    record["baseline"] = str(args.baseline) if args.baseline else None
    record["label"] = args.label
    record["counts"] = {"calls": args.calls, "starts": args.starts}
    for env in (side_env(None), *([side_env(args.baseline)] if args.baseline else [])):
        Server(args.db, env).close()  # fill the bytecode cache of each side
    if not args.skip_first:
        record["first_answer"] = first_answers(args.db, args.baseline, args.starts)
    if not args.skip_calls:
        record["mcp_calls"] = mcp_calls(args.db, args.baseline, args.calls)
    save(finish(record), args.output_json)
    print(json.dumps(record, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
