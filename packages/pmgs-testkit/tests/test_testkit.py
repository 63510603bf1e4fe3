"""The shared test kit itself (``pmgs_testkit.kit`` and its pytest plugin, ADR 0024).

Its guards decide whether other suites' failures mean anything: a server started on a port
another run took must not be mistaken for ours, and a test that changes the reference
database must fail the session.
"""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_testkit.kit import file_sha256, owns_port, serve_on_free_port, stop_process

pytest_plugins = ["pytester"]

KIT = "pmgs_testkit.pytest_plugin"
"""How a suite loads the kit (its conftest says ``pytest_plugins = [KIT]``)."""

linux_only = pytest.mark.skipif(
    not Path("/proc/net/tcp").exists(), reason="socket owners are read from /proc"
)


def test_file_sha256_is_the_digest_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc" * 500_000)  # over one read block
    # The oracle is coreutils, not hashlib.
    expected = subprocess.run(
        ["sha256sum", str(path)], capture_output=True, text=True, check=True
    ).stdout.split()[0]
    assert file_sha256(path) == expected


@linux_only
def test_owns_port_tells_the_listener_from_another_process() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert owns_port(os.getpid(), port)
            assert not owns_port(other.pid, port)
        finally:
            stop_process(other)
    assert not owns_port(os.getpid(), port)  # closed: nobody listens


@pytest.fixture
def stranger() -> Iterator[list[http.server.HTTPServer]]:
    """HTTP servers of "another test run", answering 200 in this process's threads."""
    servers: list[http.server.HTTPServer] = []
    yield servers
    for server in servers:
        server.shutdown()
        server.server_close()


@linux_only
def test_a_port_taken_by_a_stranger_is_given_up_and_another_used(
    tmp_path: Path, stranger: list[http.server.HTTPServer]
) -> None:
    started: list[tuple[int, subprocess.Popen[bytes]]] = []

    def start(port: int) -> tuple[subprocess.Popen[bytes], Path]:
        if not started:  # the first port is taken just before the server binds it
            handler = http.server.SimpleHTTPRequestHandler
            taker = http.server.HTTPServer(("127.0.0.1", port), handler)
            threading.Thread(target=taker.serve_forever, daemon=True).start()
            stranger.append(taker)
        log = tmp_path / f"{port}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                cwd=tmp_path,
                stdout=out,
                stderr=out,
            )
        started.append((port, process))
        return process, log

    process, port = serve_on_free_port(start, "/", timeout=60)
    try:
        assert len(started) == 2
        first_port, first = started[0]
        assert port != first_port
        assert first.poll() is not None  # given up, and reaped
        assert process is started[1][1]
        assert owns_port(process.pid, port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
            assert answer.status == 200
    finally:
        stop_process(process)


def test_a_test_that_changes_the_reference_fails_the_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_reference="""
        def test_reads(store, examples):
            assert store.lookup("fi", examples["fi_with_file_symbol"])["match_status"] == "exact"

        def test_writes(reference):
            with reference.db.open("ab") as handle:
                handle.write(b"\\0")
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", KIT)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*a test changed the reference*"])


def test_a_suite_that_does_not_ask_for_the_kit_gets_none_of_it(
    pytester: pytest.Pytester,
) -> None:
    # The kit is installed here (a workspace member), yet a suite that does not load it sees
    # neither its fixtures nor its Hypothesis profile: nothing registers it behind the back
    # of a pytest run (no pytest11 entry point, issue 38).
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def reference():
            return "theirs"
        """
    )
    pytester.makepyfile(
        test_theirs=(
            "def test_it(reference, request):\n"
            "    assert reference == 'theirs'\n"
            "    names = request.config.pluginmanager.list_name_plugin()\n"
            "    assert not [n for n, _ in names if n and 'pmgs' in n], names\n"
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    fixtures = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fixtures")
    assert "pmgs_reference_factory" not in fixtures.stdout.str()
    loaded = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", KIT, "--fixtures")
    assert "pmgs_reference_factory" in loaded.stdout.str()


def test_two_suites_asking_for_different_references_fail_clearly(
    pytester: pytest.Pytester,
) -> None:
    for name, scale in (("a", 0.001), ("b", 0.002)):
        pytester.mkpydir(name)
        (pytester.path / name / "conftest.py").write_text(
            "import pytest\n"
            "from pmgs_testkit.pytest_plugin import ReferenceOptions\n\n"
            "@pytest.fixture(scope='session')\n"
            "def pmgs_reference_options():\n"
            f"    return ReferenceOptions(scale={scale})\n"
        )
        (pytester.path / name / f"test_{name}.py").write_text(
            "def test_it(reference):\n    assert reference.db.is_file()\n"
        )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", KIT, "a", "b")
    result.assert_outcomes(passed=1, errors=1)  # refused in the autouse check
    result.stdout.fnmatch_lines(["*asks for the reference at ReferenceOptions(scale=0.002*"])


def test_hypothesis_examples_are_not_timed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An example slower than Hypothesis's default 200 ms deadline (what a loaded machine
    # produced once) must not fail a suite that loads the kit; with the plugin disabled the
    # same file fails, which shows the test can tell the two apart.
    # Hypothesis drops its deadline by itself when it sees a CI variable (its "ci" profile),
    # which would make the comparison run pass on a CI machine: hide those variables from both
    # runs so the plugin is the only thing that differs.
    # One possible value: the failing run has nothing to shrink (with integers, Hypothesis
    # tried some hundred smaller ones after the deadline error, 0.25 s each: 30 s of sleep).
    from hypothesis import _settings

    for key in getattr(_settings, "_CI_VARS", {"CI": None}):
        monkeypatch.delenv(key, raising=False)
    pytester.makepyfile(
        test_slow=(
            "import time\n"
            "from hypothesis import given, settings, strategies as st\n\n"
            "@settings(max_examples=2, database=None)\n"
            "@given(st.just(0))\n"
            "def test_slow(n):\n"
            "    time.sleep(0.25)\n"
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", KIT)
    result.assert_outcomes(passed=1)
    without = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    without.assert_outcomes(failed=1)
