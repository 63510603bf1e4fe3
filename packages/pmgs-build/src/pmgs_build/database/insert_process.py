"""The load's inserts in a second process, so that parsing and SQLite use both cores.

While the data groups are parsed, the builder only ever writes: ids come from Python (ADR
0003), nothing is read back until the load is committed. So the parsing process sends each
batch of rows (pickled, over a pipe) to a spawned writer process that holds its own
connection to the temporary file and runs the statements in the order they arrive: the same
statements, in the same order, as the builder runs alone, hence the same bytes (ADR 0028).
The pipe's buffer bounds what is in flight; ``sync`` waits until the writer has run
everything sent and raises the first error it met (an SQLite error keeps its code and name,
so a full disk is still ``OUTPUT_WRITE_FAILED``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from pmgs_build.worker_processes import WorkerContext as _WorkerContext

__all__ = ["LOAD_PRAGMAS", "WriteProcess", "open_for_load"]

logger = logging.getLogger("pmgs_build")

LOAD_PRAGMAS: Final = (
    "PRAGMA journal_mode = OFF",
    "PRAGMA synchronous = OFF",
    "PRAGMA cache_size = -131072",
    "PRAGMA temp_store = MEMORY",
)
"""The temporary file is written once and renamed into place: no journal, no syncs."""

_WRITER_CACHE: Final = "PRAGMA cache_size = -65536"
"""Half the builder's cache: the writer and the parsing process together stay within the
memory the builder alone used (measured at scale 1.0: docs/benchmarks.md); the cache only
holds the unique indexes' hot pages during the load, never the file's bytes."""
_POLL_SECONDS: Final = 0.5
_START_SECONDS: Final = 120.0
"""How long a spawned writer may take to start on a loaded machine before the build writes
in its own process instead."""


def open_for_load(path: Path, pragmas: Sequence[str] | None = None) -> sqlite3.Connection:
    """A connection to the temporary file with the load's pragmas (``LOAD_PRAGMAS`` as this
    module holds it when called: a writer process is handed the parent's)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in LOAD_PRAGMAS if pragmas is None else pragmas:
        conn.execute(pragma)
    return conn


def _watch_parent(parent: int) -> None:
    """End the writer once the build that started it is gone (killed, say)."""
    while True:
        time.sleep(_POLL_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def _error_record(error: BaseException) -> tuple[str, str, int | None, str | None]:
    return (
        type(error).__name__,
        str(error),
        getattr(error, "sqlite_errorcode", None),
        getattr(error, "sqlite_errorname", None),
    )


def _serve(path: str, parent: int, pragmas: tuple[str, ...], pipe: Connection) -> None:
    """Writer: run each statement received; answer ``sync`` with None or the first error."""
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    error: tuple[str, str, int | None, str | None] | None = None
    try:
        conn = open_for_load(Path(path), pragmas)
    except BaseException as failure:  # reported at the first sync
        error = _error_record(failure)
        conn = None
    pipe.send("ready")
    try:
        while True:
            op, sql, data = pipe.recv()
            if op == "close":
                break
            if op == "sync":
                pipe.send(error)
                continue
            if error is not None or conn is None:
                continue  # drain what was sent after the failure
            try:
                if op == "many":
                    conn.executemany(sql, data)
                else:
                    conn.execute(sql, data)
            except BaseException as failure:
                error = _error_record(failure)
    except EOFError:
        pass  # the build ended without closing (it failed): nothing more to do
    finally:
        if conn is not None:
            conn.close()
        pipe.close()


def _rebuild(record: tuple[str, str, int | None, str | None]) -> BaseException:
    """The writer's error as an exception of the same class, with SQLite's code and name."""
    name, message, code, errorname = record
    kind = getattr(sqlite3, name, None)
    if not (isinstance(kind, type) and issubclass(kind, sqlite3.Error)):  # pragma: no cover
        return RuntimeError(f"the build's writer process failed: {name}: {message}")
    error = kind(message)
    setattr(error, "sqlite_errorcode", code)  # noqa: B010 - typed as read-only
    setattr(error, "sqlite_errorname", errorname)  # noqa: B010
    return error


class WriteProcess:
    """The parent's handle on the writer process of one build."""

    def __init__(self, temporary: Path) -> None:
        context = _WorkerContext()
        self._pipe, child = context.Pipe(duplex=True)
        self._process = context.Process(
            target=_serve,
            args=(str(temporary), os.getpid(), (*LOAD_PRAGMAS, _WRITER_CACHE), child),
            daemon=True,
        )
        self._process.start()
        child.close()  # so that the parent sees end-of-file when the writer dies
        self._receive(_START_SECONDS)
        logger.info("the load's statements run in writer process %d", self._process.pid)

    @classmethod
    def start(cls, temporary: Path) -> WriteProcess | None:
        """A started writer, or None when none could start (the build then writes itself)."""
        try:
            return cls(temporary)
        except (OSError, EOFError, TimeoutError) as error:
            logger.warning("no writer process (%s); loading in this process", error)
            return None

    def _receive(self, timeout: float | None = None) -> Any:
        waited = 0.0
        while not self._pipe.poll(_POLL_SECONDS):
            waited += _POLL_SECONDS
            if not self._process.is_alive() and not self._pipe.poll(0):
                raise EOFError("the writer process ended")
            if timeout is not None and waited >= timeout:
                self.close()
                raise TimeoutError("the writer process did not start")
        return self._pipe.recv()

    def _send(self, message: tuple[str, str, Any]) -> None:
        try:
            self._pipe.send(message)
        except OSError:  # the writer died: say why if it can, else that it died
            self.sync()
            raise

    def execute(self, sql: str, params: Sequence[object] = ()) -> None:
        """Queue one statement."""
        self._send(("one", sql, params))

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """Queue one statement run per row."""
        self._send(("many", sql, rows))

    def sync(self) -> None:
        """Wait until every queued statement ran; raise the first error one raised."""
        try:
            self._pipe.send(("sync", "", None))
            record = self._receive()
        except (OSError, EOFError) as error:
            raise RuntimeError("the build's writer process ended unexpectedly") from error
        if record is not None:
            raise _rebuild(record)

    def close(self, *, kill: bool = False) -> None:
        """End the writer (its connection closes); ``kill``: at once (the build failed)."""
        if not kill:
            with contextlib.suppress(OSError):
                self._pipe.send(("close", "", None))
            self._process.join(timeout=60)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._pipe.close()
