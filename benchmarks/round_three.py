"""Benchmark: issue 33's MCP and lookup figures, one tree against another in the same run.

Not a test. The machine is shared, so the baseline is measured in the same run, interleaved:
``--baseline DIR`` is an exported tree of an earlier commit (``git archive COMMIT packages |
tar -x -C DIR``) whose ``packages/*/src`` go first on ``PYTHONPATH`` of the baseline's child
processes; the other side is this working tree. Per side:

* stdio start → initialized (bare JSON-lines client; spawn, ``initialize``), against the floor
  ``python -c "import mcp.server.lowlevel"``;
* tool-call round trip p50 over stdio (bare client: the server's cost plus the pipes) and the
  response line's size on the wire (structured content and text, both);
* in-process ``PMGSStore.lookup`` p50 per scheme.

Usage::

    git archive main packages | tar -x -C /tmp/base
    uv run python benchmarks/round_three.py --db DB --examples EXAMPLES.json \
        --baseline /tmp/base --scale 1 [--calls 300] [--starts 9] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.docs import add_arguments, publish
from benchmarks.mcp_roundtrip import percentile
from benchmarks.results import finish, stamp

_INIT = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}\n'
)

LOOKUP_SCRIPT = """
import json, statistics, sys, time
exec(sys.argv[1])
codes = json.loads(sys.argv[3]); n = int(sys.argv[4]); out = {}
store = PMGSStore.open(sys.argv[2])
for scheme, code in codes:
    assert store.lookup(scheme, code)["match_status"] != "not_found", (scheme, code)
    samples = []
    for _ in range(n):
        t = time.perf_counter(); store.lookup(scheme, code)
        samples.append(time.perf_counter() - t)
    out[scheme] = statistics.median(samples) * 1000
print(json.dumps(out))
"""
"""p50 of ``lookup`` per scheme in a child: argv is the statement that imports ``PMGSStore``
(any tool whose store has ``open`` and ``lookup``), the database, the codes and the count."""


def side_env(baseline: Path | None) -> dict[str, str]:
    """The child's environment: bytecode cached under a scratch prefix, as in an installed
    tool (this machine sets PYTHONDONTWRITEBYTECODE, which makes every start compile)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "pmgs-bench-pycache"))
    if baseline is not None:
        srcs = [str(p) for p in sorted((baseline / "packages").glob("*/src"))]
        env["PYTHONPATH"] = os.pathsep.join([*srcs, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


class Server:
    """One ``python -m pmgs_mcp`` over stdio, driven by JSON lines."""

    def __init__(self, db: Path, env: dict[str, str], command: list[str] | None = None) -> None:
        """``command`` starts another stdio server (its ``--db`` appended); default ours."""
        self.process = subprocess.Popen(
            [*(command or [sys.executable, "-m", "pmgs_mcp"]), "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 0

    def send(self, line: bytes) -> bytes:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(line)
        self.process.stdin.flush()
        return self.process.stdout.readline()

    def initialize(self) -> None:
        self.send(_INIT)
        assert self.process.stdin is not None
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()

    def call_line(self, tool: str, arguments: dict[str, Any]) -> bytes:
        self.next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        return json.dumps(message).encode() + b"\n"

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def start_once(db: Path, env: dict[str, str], command: list[str] | None = None) -> float:
    started = time.perf_counter()
    server = Server(db, env, command)
    server.initialize()
    elapsed = time.perf_counter() - started
    server.close()
    return elapsed


def floor_once(python: str = sys.executable, env: dict[str, str] | None = None) -> float:
    """Spawn and ``import mcp.server.lowlevel``, up to a line the child prints after the import
    (not its exit, which the server's figure does not include either)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [python, "-c", "import mcp.server.lowlevel; print(flush=True); input()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None
    child.stdout.readline()
    elapsed = time.perf_counter() - started
    child.communicate(b"\n", timeout=30)
    return elapsed


def calls_of(examples: dict[str, str], document_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("lookup IPC", "lookup_classification", {"scheme": "ipc", "code": "G06F3/048"}),
        ("lookup FI", "lookup_classification", {"scheme": "fi", "code": "G06F3/048"}),
        (
            "lookup F-term theme",
            "lookup_classification",
            {"scheme": "fterm", "code": examples["fterm_large_theme"]},
        ),
        ("search_pmgs, common phrase", "search_pmgs", {"query": examples["common_phrase"]}),
        ("search_pmgs, 2 characters", "search_pmgs", {"query": examples["two_char_word"]}),
        (
            "get_pmgs_document, 20 segments",
            "get_pmgs_document",
            {"document_id": document_id, "segment_limit": 20},
        ),
    ]


def round_trips(
    db: Path, envs: dict[str, dict[str, str]], calls: list[tuple[str, str, dict[str, Any]]], n: int
) -> dict[str, dict[str, dict[str, float]]]:
    """p50 and wire bytes per call and side; the two servers answer call by call in turn."""
    servers = {name: Server(db, env) for name, env in envs.items()}
    out: dict[str, dict[str, dict[str, float]]] = {name: {} for name in envs}
    try:
        for server in servers.values():
            server.initialize()
        for label, tool, arguments in calls:
            samples: dict[str, list[float]] = {name: [] for name in servers}
            sizes: dict[str, int] = {}
            texts: dict[str, int] = {}
            for name, server in servers.items():
                answer = json.loads(server.send(server.call_line(tool, arguments)))
                assert not answer["result"].get("isError"), (name, label, answer)
                # the text copy as it crosses the wire: a JSON string inside the line
                text = answer["result"]["content"][0]["text"]
                texts[name] = len(json.dumps(text, ensure_ascii=False).encode())
            for _ in range(n):
                for name, server in servers.items():
                    line = server.call_line(tool, arguments)
                    started = time.perf_counter()
                    reply = server.send(line)
                    samples[name].append(time.perf_counter() - started)
                    sizes[name] = len(reply)
            for name in servers:
                out[name][label] = {
                    "p50_ms": percentile(samples[name], 0.5) * 1000,
                    "bytes": sizes[name],
                    "text_bytes": texts[name],
                }
    finally:
        for server in servers.values():
            server.close()
    return out


def lookups(db: Path, env: dict[str, str], codes: list[tuple[str, str]], n: int) -> Any:
    argv = ["from pmgs_core import PMGSStore", str(db), json.dumps(codes), str(n)]
    done = subprocess.run(
        [sys.executable, "-c", LOOKUP_SCRIPT, *argv],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--examples", type=Path, required=True, help="the generator's examples")
    parser.add_argument("--baseline", type=Path, required=True, help="exported earlier tree")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=9)
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--label", default="", help="what the database is, for the report")
    parser.add_argument("--scale", type=float, default=None, help="the database's scale")
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("round-three", args.scale)
    loaded = json.loads(args.examples.read_text("utf-8"))
    examples: dict[str, str] = loaded.get("examples", loaded)
    envs = {"before": side_env(args.baseline), "after": side_env(None)}

    from pmgs_core import PMGSStore

    with PMGSStore.open(args.db) as store:
        document_id = store.list_documents("fterm_explanation", limit=1)["items"][0]["document_id"]
    for env in envs.values():  # warm-up: fill the bytecode cache
        start_once(args.db, env)
    floor_env = side_env(None)
    starts: dict[str, list[float]] = {"floor": [], "before": [], "after": []}
    for _ in range(args.starts):
        starts["floor"].append(floor_once(env=floor_env))
        for name, env in envs.items():
            starts[name].append(start_once(args.db, env))
    codes = [("fi", "G06F3/048"), ("ipc", "G06F3/048"), ("fterm", examples["fterm_large_theme"])]
    in_process = {name: lookups(args.db, env, codes, args.lookups) for name, env in envs.items()}
    trips = round_trips(args.db, envs, calls_of(examples, document_id), args.calls)

    record.update(
        baseline=str(args.baseline),
        label=args.label,
        counts={"starts": args.starts, "calls": args.calls, "lookups": args.lookups},
        floor_ms=statistics.median(starts["floor"]) * 1000,
        start_ms={k: statistics.median(starts[k]) * 1000 for k in ("before", "after")},
        lookup_ms=in_process,
        calls=trips,
    )
    publish(finish(record), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
