"""Three stateless ``pmgs mcp`` replicas behind a real HAProxy, through stops, a kill and a roll.

What a team's deployment meets, on one machine (issue 21, docs/deploy.md):

* three real ``pmgs mcp --transport http`` processes on loopback ports, each started with
  ``--no-sse`` (no affinity at the balancer) and ``--allow-host`` naming the balancer's
  address, which is the Host header clients send;
* a real HAProxy (Debian package ``haproxy``) with its *default* HTTP health check request
  (``option httpchk GET /ready``: HTTP/1.0, no Host header) — the replicas must answer it;
  ``option http-buffer-request`` so that a request can be replayed, and ``retry-on`` for
  connection failures and empty responses (a replica that dies mid-request);
* official MCP Python SDK clients, each holding a session and calling tools in a loop,
  while one replica is stopped gracefully and restarted, one is SIGKILLed and restarted
  later, and then all three are switched one by one to a second release (rolling update).

The oracle: every call must succeed (zero failed requests), except an answer that the SIGKILL
cut on the wire (its head already passed to the client, so no balancer can replay it: at most
one per client, seen within moments of the kill); both releases must have answered,
and after the roll only the second release answers. Figures (requests, failures, p50/p99
latency, when each release answered) go to the suite's figures. No timing is asserted: the
machine may be slow; only correctness is.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pmgs_testkit.kit import build_reference, console_script, free_port, wait_until_serving

RELEASES = ("JPPM2026002", "JPPM2026003")
REPLICAS = 3
START_TIMEOUT = 90.0
CLIENT_TIMEOUT = 120.0
"""How long a client waits for an answer. Generous on purpose: on a shared 2-core machine
50 clients, 3 servers and the balancer queue for the CPU, and a slow answer is reported in
the p99 figure, not counted as a failure; a refused or broken request is a failure."""

HAPROXY_CONFIG = """\
global
    maxconn 4096
    stats socket {socket} mode 600 level admin

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 100s
    timeout check 2s
    # A request is buffered so that it can be sent again to another replica when the first
    # one refuses the connection or dies before answering (read-only calls: safe to replay).
    option http-buffer-request
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response junk-response response-timeout 502 503 504

frontend mcp
    bind 127.0.0.1:{port}
    default_backend replicas

backend replicas
    balance roundrobin
    # HAProxy's default check request: HTTP/1.0, no Host header.
    option httpchk GET /ready
    http-check expect status 200
    default-server check inter 300ms fall 1 rise 1
{servers}
"""


def _haproxy() -> str:
    """The haproxy binary; installed with apt-get when missing and possible, else skip."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "haproxy"],
            env=env,
            capture_output=True,
            timeout=600,
            check=False,
        )
        found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if found is None:
        pytest.skip("haproxy is not installed and cannot be installed here (apt-get as root)")
    return found


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One database per release, built from synthetic packages."""
    root = tmp_path_factory.mktemp("replica-releases")
    built = {}
    for release in RELEASES:
        made = build_reference(root, scale=0.001, seed=7, release=release, name=f"{release}.sqlite")
        built[release] = made.db
    return built


@dataclass
class Replica:
    """One ``pmgs mcp --transport http`` process on a fixed port (restarts keep the port)."""

    name: str
    port: int
    workdir: Path
    allow_host: str
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self, db: Path) -> None:
        self.starts += 1
        log = self.workdir / f"{self.name}-{self.starts}.log"
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [
                    console_script(),
                    "mcp",
                    "--transport",
                    "http",
                    "--port",
                    str(self.port),
                    "--db",
                    str(db),
                    "--tools",
                    "all",
                    "--no-sse",
                    "--allow-host",
                    self.allow_host,
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
            )
        # The port is fixed (HAProxy's configuration names it): a stranger answering on it
        # is an error here, not a retry.
        wait_until_serving(self.process, self.port, "/ready", timeout=START_TIMEOUT, log=log)

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Send ``sig`` and wait for the exit (uvicorn finishes in-flight requests on TERM)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


@dataclass
class Balancer:
    process: subprocess.Popen[bytes]
    port: int
    socket_path: Path

    def status(self) -> dict[str, str]:
        """Server name -> HAProxy's status (UP, DOWN, …) from the stats socket."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(self.socket_path))
            sock.sendall(b"show stat\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        lines = b"".join(chunks).decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        status_at, name_at = header.index("status"), header.index("svname")
        rows = [line.split(",") for line in lines[1:] if line.startswith("replicas,")]
        return {row[name_at]: row[status_at] for row in rows}

    def wait_up(self, name: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.status().get(name, "").startswith("UP"):
                return
            time.sleep(0.1)
        raise AssertionError(f"HAProxy never saw {name} up: {self.status()}")


@contextlib.contextmanager
def cluster(
    workdir: Path, db: Path, replicas: int = REPLICAS
) -> Iterator[tuple[Balancer, list[Replica]]]:
    """``replicas`` replicas serving ``db`` behind a fresh HAProxy; everything stopped after."""
    front = free_port()
    nodes = [Replica(f"r{i}", free_port(), workdir, f"127.0.0.1:{front}") for i in range(replicas)]
    sock = workdir / "haproxy.sock"
    servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port}" for r in nodes)
    config = workdir / "haproxy.cfg"
    config.write_text(HAPROXY_CONFIG.format(socket=sock, port=front, servers=servers))
    haproxy: subprocess.Popen[bytes] | None = None
    try:
        for node in nodes:
            node.start(db)
        log = (workdir / "haproxy.log").open("wb")
        haproxy = subprocess.Popen(
            [_haproxy(), "-f", str(config), "-db"], stdout=log, stderr=log, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + START_TIMEOUT
        balancer = Balancer(haproxy, front, sock)
        # The socket file exists from bind(); it answers only once HAProxy listens on it.
        while time.monotonic() < deadline:
            assert haproxy.poll() is None, (workdir / "haproxy.log").read_text()
            with contextlib.suppress(OSError, IndexError, ValueError):
                balancer.status()
                break
            time.sleep(0.1)
        for node in nodes:
            balancer.wait_up(node.name)
        yield balancer, nodes
    finally:
        for node in nodes:
            node.stop(signal.SIGKILL)
        if haproxy is not None:
            haproxy.terminate()
            haproxy.wait(timeout=10)


KILL_WINDOW_S = 3.0
"""How long after a SIGKILL a client may still see an answer that the kill cut short."""


@dataclass
class Load:
    """What the clients saw."""

    started: float = field(default_factory=time.monotonic)
    latencies: list[float] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)
    """When each successful call ended (seconds since ``started``)."""
    failures: list[str] = field(default_factory=list)
    failure_times: list[float] = field(default_factory=list)
    """When each failure was seen (seconds since ``started``), beside :attr:`failures`."""
    releases: list[tuple[float, str]] = field(default_factory=list)
    """(when the call was begun, the release that answered it): a call begun after the last
    old replica exited can only be answered by the new release, however late it returns."""
    sessions: int = 0

    def fail(self, what: str) -> None:
        self.failures.append(what[:300])
        self.failure_times.append(time.monotonic() - self.started)

    def cut_by(self, at: float) -> tuple[list[str], list[str]]:
        """The failures that are answers cut on the wire by a kill at ``at``, and the rest.

        A replica killed while one of its answers is on the wire loses the rest of that
        answer: the balancer has already passed the head to the client, so no balancer can
        send the request again (``retry-on`` covers a replica that dies *before* answering).
        The client sees a body shorter than its ``Content-Length`` within moments of the kill.
        """
        cut, other = [], []
        for what, when in zip(self.failures, self.failure_times, strict=True):
            wire = "RemoteProtocolError" in what and "complete message body" in what
            (cut if wire and at <= when <= at + KILL_WINDOW_S else other).append(what)
        return cut, other

    def figures(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)

        def pct(p: float) -> float | None:
            if not ordered:
                return None
            return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 1)

        seen: dict[str, list[float]] = {}
        for at, release in self.releases:
            seen.setdefault(release, []).append(at)
        return {
            "requests": len(self.latencies) + len(self.failures),
            "failed": len(self.failures),
            "sessions": self.sessions,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "release_seen_s": {k: [round(min(v), 1), round(max(v), 1)] for k, v in seen.items()},
            "first_failures": self.failures[:5],
        }


async def _client(url: str, load: Load, stop: anyio.Event, code: str) -> None:
    """One agent: a session, then tool calls until told to stop (reconnects if refused)."""
    while not stop.is_set():
        try:
            async with (
                httpx2.AsyncClient(timeout=CLIENT_TIMEOUT) as http,
                Client(
                    streamable_http_client(url, http_client=http),
                    read_timeout_seconds=CLIENT_TIMEOUT,
                ) as client,
            ):
                load.sessions += 1
                calls = 0
                while not stop.is_set():
                    calls += 1
                    begun = time.monotonic()
                    if calls % 2:
                        result = await client.call_tool(
                            "lookup_classification", {"scheme": "fi", "code": code}
                        )
                    else:
                        result = await client.call_tool("release_info", {})
                    took = time.monotonic() - begun
                    if result.is_error or result.structured_content is None:
                        load.fail(f"tool error: {result.content!r}")
                        continue
                    load.latencies.append(took)
                    load.finished.append(time.monotonic() - load.started)
                    if calls % 2 == 0:
                        release = str(result.structured_content["release_id"])
                        load.releases.append((begun - load.started, release))
                    await anyio.sleep(0.01)
        except Exception as exc:  # any failure a user would see counts
            while isinstance(exc, ExceptionGroup) and exc.exceptions:
                exc = exc.exceptions[0]  # the SDK's task groups wrap the real cause
            load.fail(f"{type(exc).__name__}: {exc}")
            await anyio.sleep(0.1)


async def _drive(url: str, clients: int, code: str, script: Any) -> Load:
    """Run ``clients`` agents while ``script`` (blocking, in a thread) does its faults."""
    load = Load()
    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(_client, url, load, stop, code)
        await anyio.to_thread.run_sync(script, load)
        stop.set()
    return load


def _sleep_until(load: Load, at: float) -> None:
    time.sleep(max(0.0, at - (time.monotonic() - load.started)))


def test_replicas_survive_stop_kill_and_rolling_release(
    databases: dict[str, Path], tmp_path: Path, figures: Any, profile: dict[str, int]
) -> None:
    clients, duration = profile["replica_clients"], float(profile["replica_seconds"])
    old, new = (databases[r] for r in RELEASES)
    code = "B60J5/00@A"
    events: list[tuple[float, str]] = []
    with cluster(tmp_path, old) as (balancer, nodes):
        url = f"http://127.0.0.1:{balancer.port}/mcp"

        def script(load: Load) -> None:
            def note(what: str) -> None:
                events.append((round(time.monotonic() - load.started, 1), what))

            _sleep_until(load, 0.15 * duration)
            note("r0 SIGTERM (graceful stop)")
            nodes[0].stop(signal.SIGTERM)
            nodes[0].start(old)
            balancer.wait_up("r0")
            note("r0 back")
            _sleep_until(load, 0.3 * duration)
            note("r1 SIGKILL")
            nodes[1].stop(signal.SIGKILL)
            _sleep_until(load, 0.45 * duration)
            nodes[1].start(old)
            balancer.wait_up("r1")
            note("r1 back")
            _sleep_until(load, 0.55 * duration)
            for node in nodes:
                note(f"{node.name} rolling to {RELEASES[1]}")
                node.stop(signal.SIGTERM)
                node.start(new)
                balancer.wait_up(node.name)
            note("roll done")
            # Keep the load on for a while after the roll, however long the roll took.
            _sleep_until(load, max(duration, events[-1][0] + 5.0))

        load = anyio.run(_drive, url, clients, code, script)

    result = load.figures()
    result.update(clients=clients, seconds=duration, replicas=REPLICAS, events=events)
    figures.sections["replicas_haproxy"] = result
    print(f"replicas behind HAProxy: {result}")
    killed_at = next(at for at, what in events if what == "r1 SIGKILL")
    cut, other = load.cut_by(killed_at)
    result["cut_by_the_kill"] = len(cut)
    assert other == [], result  # graceful stops and the roll lose nothing, nor does the kill
    assert len(cut) <= clients, result  # at most the answers in flight on the killed replica
    assert set(result["release_seen_s"]) == set(RELEASES), result
    roll_done = next(at for at, what in events if what == "roll done")
    after = [release for at, release in load.releases if at > roll_done]
    assert after, "no release_info answer after the roll"
    assert set(after) == {RELEASES[1]}, result


def _steady(load: Load, clients: int, seconds: float) -> tuple[float, float]:
    """Wait until every client has its session, then measure for ``seconds``: (start, end).

    Session set-up is left out: 50 SDK clients in one Python process spend their first
    seconds on their own start (it is the load generator's cost, not the servers').
    """
    deadline = time.monotonic() + 300
    while load.sessions < clients and time.monotonic() < deadline:
        time.sleep(0.1)
    begin = time.monotonic() - load.started
    time.sleep(seconds)
    return begin, time.monotonic() - load.started


@pytest.mark.parametrize("replicas", [1, 3])
def test_one_and_three_replicas_figures(
    databases: dict[str, Path],
    tmp_path: Path,
    figures: Any,
    profile: dict[str, int],
    replicas: int,
) -> None:
    """The same load on 1 and 3 replicas, no faults: figures only (a 2-core machine shared
    with the clients and the balancer cannot show scaling; see docs/reliability.md)."""
    clients, seconds = profile["replica_clients"], float(profile["replica_seconds"]) / 3
    window: list[tuple[float, float]] = []
    with cluster(tmp_path, databases[RELEASES[0]], replicas) as (balancer, _):
        url = f"http://127.0.0.1:{balancer.port}/mcp"
        load = anyio.run(
            _drive,
            url,
            clients,
            "B60J5/00@A",
            lambda ld: window.append(_steady(ld, clients, seconds)),
        )
    begin, end = window[0]
    inside = [t for t in load.finished if begin <= t <= end]
    result = load.figures()
    result.update(clients=clients, replicas=replicas, warm_up_s=round(begin, 1))
    result["steady_s"] = round(end - begin, 1)
    result["steady_requests_per_s"] = round(len(inside) / (end - begin), 1)
    figures.sections[f"replicas_haproxy_{replicas}_no_faults"] = result
    print(f"{replicas} replica(s), no faults: {result}")
    assert load.failures == [], result
