"""Helpers that every test suite of the workspace shares (ADR 0024).

One copy of each: the file hash the suites compare databases with, the reference database
built from a generated package, and starting a server on a loopback port without racing the
other test runs of a busy machine. The fixtures built on them are in
:mod:`pmgs_testkit.pytest_plugin`.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmgs_build import file_sha256
from pmgs_testkit.generator import GeneratedPackage, generate_package

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Loopback requests never go through a proxy named in the environment."""

__all__ = [
    "SCRIPT_COLUMNS",
    "PortTakenError",
    "ReferenceDatabase",
    "build_reference",
    "console_script",
    "file_sha256",
    "free_port",
    "owns_port",
    "pdf_page_texts",
    "run_script",
    "script_environment",
    "serve_on_free_port",
    "stop_process",
    "tree_sha256",
    "wait_until_serving",
]


def tree_sha256(root: Path) -> dict[str, str]:
    """Every file below ``root`` (``/``-separated relative path) and its SHA-256: two trees
    are equal byte for byte when these are equal."""
    return {
        path.relative_to(root).as_posix(): file_sha256(path)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def pdf_page_texts(path: Path) -> list[str]:
    """The text layer of each page, read with pdfium (the reader the builder uses too)."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]  # ships no py.typed marker

    document = pdfium.PdfDocument(path)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


@dataclass(frozen=True)
class ReferenceDatabase:
    """A database built by pmgs-build from a generated package, and that package."""

    db: Path
    package: GeneratedPackage

    @property
    def path(self) -> Path:
        return self.db

    @property
    def examples(self) -> dict[str, str]:
        """Named example codes and documents the package is known to hold."""
        return dict(self.package.examples)


def build_reference(
    root: Path,
    *,
    scale: float,
    seed: int = 7,
    with_documents: bool = False,
    release: str = "JPPM2026002",
    name: str = "reference.sqlite",
) -> ReferenceDatabase:
    """Generate a package under ``root`` and build ``root/<name>`` from it."""
    from pmgs_build import build_database

    package = generate_package(
        root / f"package-{release}",
        scale=scale,
        seed=seed,
        with_documents=with_documents,
        release=release,
    )
    db = root / name
    build_database(package.path, db)
    return ReferenceDatabase(db, package)


SCRIPT_COLUMNS = "160"
"""The terminal width every test run of ``pmgs`` gets (Rich reads ``COLUMNS``)."""


def console_script(name: str = "pmgs") -> str:
    """The installed console script beside the running interpreter (never another on PATH)."""
    exe = shutil.which(name, path=str(Path(sys.executable).parent))
    assert exe is not None, f"the {name} console script is not installed"
    return exe


def script_environment(changes: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a ``pmgs`` child: fixed width, none of the variables
    that would point it at another database or pause it (unless ``changes`` sets them)."""
    env = dict(os.environ, COLUMNS=SCRIPT_COLUMNS)
    for name in ("PMGS_REFERENCE_DB", "PMGS_TEST_PAUSE_AT", "PMGS_TEST_PAUSE_MARKER"):
        env.pop(name, None)
    env.update(changes or {})
    return env


def run_script(
    *args: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    **popen: Any,
) -> subprocess.CompletedProcess[str]:
    """Run ``pmgs ARGS`` to completion as a child process, its output captured as text.

    ``env`` changes :func:`script_environment`; ``popen`` passes on (a ``preexec_fn`` that
    limits the child, for example).
    """
    return subprocess.run(  # noqa: S603 - the argv is the caller's own test command
        [console_script(), *(os.fspath(arg) for arg in args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=script_environment(env),
        check=False,
        timeout=timeout,
        **popen,
    )


def free_port() -> int:
    """A TCP port that was free a moment ago on 127.0.0.1.

    Another process may take it before the server binds it: start servers with
    :func:`wait_until_serving`, which notices both that and a stranger answering on it.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def owns_port(pid: int, port: int) -> bool:
    """True when process ``pid`` (or, on systems without ``/proc``, anyone) listens on ``port``.

    Linux only says which socket listens on a port (``/proc/net/tcp``) and which sockets a
    process holds (``/proc/<pid>/fd``); matching the two tells our server from another test
    run's server that took the port first.
    """
    table = Path("/proc/net/tcp")
    if not sys.platform.startswith("linux") or not table.exists():
        return True
    listening = set()
    for line in table.read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            listening.add(f"socket:[{fields[9]}]")
    held = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            held.add(os.readlink(fd))
        except OSError:
            continue
    return bool(listening & held)


def wait_until_serving(
    process: subprocess.Popen[bytes], port: int, path: str, *, timeout: float, log: Path
) -> None:
    """Wait until ``process`` itself answers 200 on ``http://127.0.0.1:<port><path>``.

    Raises :class:`PortTakenError` when the port turned out to be someone else's (the caller
    starts again on another port) and :class:`RuntimeError` when the server exited or never
    answered; the server's log is in the message.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = log.read_text("utf-8", errors="replace")
            if "address already in use" in text.lower():
                raise PortTakenError(port)
            raise RuntimeError(f"server exited early ({process.returncode}): {text}")
        try:
            with _DIRECT.open(f"http://127.0.0.1:{port}{path}", timeout=2.0) as answer:
                status = answer.status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = None
        if status == 200:
            if owns_port(process.pid, port):
                return
            raise PortTakenError(port)
        time.sleep(0.1)
    text = log.read_text("utf-8", errors="replace")
    raise RuntimeError(f"server did not answer 200 on {path} within {timeout} s: {text}")


class PortTakenError(RuntimeError):
    """The free port chosen for a server was taken by another process before it bound it."""

    def __init__(self, port: int) -> None:
        super().__init__(f"port {port} was taken by another process")
        self.port = port


def serve_on_free_port(
    start: Callable[[int], tuple[subprocess.Popen[bytes], Path]],
    path: str,
    *,
    timeout: float,
    attempts: int = 5,
) -> tuple[subprocess.Popen[bytes], int]:
    """Start a server with ``start(port)`` on a free port until it is the one answering.

    ``start`` returns the process and the file its output goes to. A port lost to another
    process is given up (the process stopped) and a new one tried, ``attempts`` times.
    """
    for _ in range(attempts):
        port = free_port()
        process, log = start(port)
        try:
            wait_until_serving(process, port, path, timeout=timeout, log=log)
        except PortTakenError:
            stop_process(process)
            continue
        except BaseException:
            stop_process(process)
            raise
        return process, port
    raise RuntimeError(f"no free port could be kept in {attempts} attempts")


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """Terminate, then kill after ``timeout`` seconds; always reaped."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@dataclass(frozen=True)
class ReferenceOptions:
    """How the session's reference database is generated."""

    scale: float = 0.001
    seed: int = 7
    with_documents: bool = False
