"""The second core after the load: bigrams and the logical digest from a copy of the file.

Once every row is written (ADR 0003: parse, finalize, one commit), the content tables do not
change again; what follows is indexes, search indexes, statistics and the digest. The build
copies the temporary file (a *snapshot*: SQLite readers of the file itself would stop the
writer from spilling or committing) and starts two spawned processes on the copy: one
computes the logical digest, given the ``metadata`` rows the file will hold; the other cuts
the bigrams of every search-index chunk the builder has not reached yet, in the order the
builder inserts them, and sends them over a queue. The builder runs exactly the statements
it ran alone, so the file is the same bytes (ADR 0028, 0039). A worker that cannot start,
dies or answers out of step is not waited for: this process then does that work itself."""

from __future__ import annotations

import logging
import os
import queue
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, Final

from pmgs_build.database.digest import logical_digest, metadata_rows
from pmgs_build.worker_processes import WorkerContext as _WorkerContext
from pmgs_core.building import chunk_bigrams, search_chunk_rows, search_index_chunks

__all__ = ["SnapshotWorkers", "snapshot_path"]

logger = logging.getLogger("pmgs_build")

_POLL_SECONDS: Final = 0.5
_FREE_FACTOR: Final = 2
"""Free space wanted, in loaded-file sizes, before taking a snapshot: the copy itself and
what indexes and search indexes still add (about half the loaded size); a build that fits
its disk alone must not fail for the copy."""
_CHUNKS_AHEAD: Final = 2
"""Chunks of bigrams the worker may hold ready (each a few MB at most)."""
_STALL_SECONDS: Final = 2.0
"""How long the builder waits for a chunk the worker claimed (cutting one takes well under
a second on a free core) before it gives up on the worker and cuts that chunk and every
later one itself: a worker starved by other work costs the build this once, at most."""
_GIVEN_UP: Final = 1 << 62
"""``claimed`` once the builder gave up on the worker: the worker stops."""


def snapshot_path(temporary: Path) -> Path:
    """The copy beside the temporary file, named so that ``_remove_stale_temporaries``
    (``.NAME.tmp-*``, ending in the builder's pid) removes it after a killed build."""
    head, _, pid = temporary.name.rpartition("-")
    return temporary.with_name(f"{head}-snapshot-{pid}")


def _watch_parent(parent: int) -> None:
    """End this worker once the build that started it is gone (killed, say)."""
    while True:
        time.sleep(_POLL_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def _open(path: str, parent: int) -> sqlite3.Connection:
    # Not niced (ADR 0039): the builder waits for the digest, and a bigram chunk the worker
    # cuts is one the builder does not; niced, both starved on a busy machine (scale 0.1 at
    # load 9: the builder waited 35 s for the digest and cut 17 of 18 chunks itself).
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    conn.execute("PRAGMA cache_size = -8192")  # read once, in order: the OS caches the file
    return conn


def _cut_bigrams(
    path: str, parent: int, chunk_rows: int, claimed: Synchronized[int], out: Queue[Any]
) -> None:
    """Worker: (chunk number, last id, row count, bigrams) for every chunk it claims first.

    ``claimed`` is the highest chunk number either process has taken on; the worker takes
    the next chunk when the builder has not reached it yet, and skips the ones the builder
    cut itself. The queue's bound keeps the worker at most a few chunks ahead.
    """
    conn = _open(path, parent)
    lock = claimed.get_lock()
    try:
        for number, (_trigram, _bigram, rows) in enumerate(search_index_chunks(conn, chunk_rows)):
            with lock:
                if claimed.value == _GIVEN_UP:
                    break
                if claimed.value >= number:
                    continue
                claimed.value = number
            out.put((number, rows[-1][0], len(rows), chunk_bigrams(rows)))
    finally:
        conn.close()
        out.close()
        out.join_thread()


def _digest(path: str, parent: int, metadata: list[tuple[str, str]], pipe: Connection) -> None:
    """Worker: the logical digest of the copy, with the metadata the file will hold."""
    conn = _open(path, parent)
    try:
        pipe.send(logical_digest(conn, metadata=metadata))
    finally:
        conn.close()
        pipe.close()


class _Worker:
    """One spawned process and the parent's end of its pipe."""

    def __init__(self, context: _WorkerContext, target: Any, args: tuple[Any, ...]) -> None:
        self.pipe, child = context.Pipe(duplex=False)
        self.process = context.Process(target=target, args=(*args, child), daemon=True)
        self.process.start()
        child.close()  # so that the parent sees end-of-file when the worker dies

    def receive(self) -> Any:
        """The next message; raises ``EOFError`` when the worker is gone."""
        while not self.pipe.poll(_POLL_SECONDS):
            if not self.process.is_alive() and not self.pipe.poll(0):
                raise EOFError("the worker ended")
        return self.pipe.recv()

    def stop(self) -> None:
        self.pipe.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


class _BigramWorker:
    """The bigram worker: it cuts every chunk the builder has not reached yet.

    Each chunk is claimed once, by whichever process gets to it first (a shared counter
    under a lock), so neither cuts what the other cut, and the share adapts to the load:
    on an idle core the worker stays ahead and the builder only inserts; on a busy one the
    builder claims the chunks itself and is no slower than alone. A chunk the worker
    claimed is waited for (it is being cut, at most one chunk's work away) unless the
    worker dies or stalls longer than ``_STALL_SECONDS``; then the builder cuts it and
    every later chunk itself (ADR 0039).
    """

    def __init__(self, context: _WorkerContext, snapshot: Path, parent: int) -> None:
        self.claimed: Synchronized[int] = context.Value("q", -1)
        self.queue: Queue[Any] = context.Queue(maxsize=_CHUNKS_AHEAD)
        # The chunk size as this process reads it now (tests make it small).
        chunk_rows = search_chunk_rows()
        self.process = context.Process(
            target=_cut_bigrams,
            args=(str(snapshot), parent, chunk_rows, self.claimed, self.queue),
            daemon=True,
        )
        self.process.start()
        self.chunk = -1
        self.used = 0
        self.given_up = False

    def next_chunk(self, *, wait: bool) -> Any:
        """Move to the next chunk; the worker's message for it when the worker claimed it,
        else None (cut it here). ``wait``: leave every chunk to the worker and wait for it
        however long it takes, unless it is gone."""
        self.chunk += 1
        if self.given_up:
            return None
        with self.claimed.get_lock():
            if not wait and self.claimed.value < self.chunk:
                self.claimed.value = self.chunk  # the builder cuts it; the worker skips it
                return None
        waited = 0.0
        while True:
            try:
                message = self.queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                waited += _POLL_SECONDS
                if self.process.is_alive() and (wait or waited < _STALL_SECONDS):
                    continue
                self.given_up = True  # starved or gone: the builder cuts the rest
                self.claimed.value = _GIVEN_UP
                return None
            if message[0] == self.chunk:
                self.used += 1
                return message
            if message[0] > self.chunk:  # cannot happen: the worker sends in order
                return None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.queue.close()
        self.queue.cancel_join_thread()


class SnapshotWorkers:
    """The bigram and digest workers of one build, and the snapshot they read."""

    wait_for_bigrams: bool = False
    """True: leave every chunk to the worker and wait for it instead of cutting any here
    (tests set it, so that the worker's part of the index is certain to be used)."""

    def __init__(
        self, temporary: Path, metadata: Sequence[tuple[str, str]], *, parallel: bool
    ) -> None:
        self._snapshot = snapshot_path(temporary)
        self._metadata = sorted(metadata)
        self._bigrams: _BigramWorker | None = None
        self._digest: _Worker | None = None
        self._ready = False
        if not parallel:
            return
        try:
            size = temporary.stat().st_size
            if shutil.disk_usage(temporary.parent).free < _FREE_FACTOR * size:
                logger.info("not enough free space for a snapshot; indexing in this process")
                return
            shutil.copyfile(temporary, self._snapshot)
        except OSError as error:
            logger.warning("no snapshot (%s); indexing in this process", error)
            self.close()
            return
        self._ready = True
        # The digest worker starts at once, so that it runs beside the builder's secondary
        # indexes: about 65 MB beside that memory peak, and its 18 s (scale 1.0) end that
        # much earlier, leaving the second core to the bigram worker (ADR 0039).
        self._start(self._start_digest)

    def _start_digest(self, context: _WorkerContext, parent: int) -> None:
        self._digest = _Worker(context, _digest, (str(self._snapshot), parent, self._metadata))

    def _start(self, start: Callable[[_WorkerContext, int], None]) -> None:
        if not self._ready:
            return
        try:
            start(_WorkerContext(), os.getpid())
        except OSError as error:
            logger.warning("no snapshot workers (%s); indexing in this process", error)
            self.close()

    def start(self) -> None:
        """Start the bigram worker on the snapshot. The builder calls this once its
        secondary indexes exist: their sorts are its memory peak, which the worker's chunks
        should not add to."""

        def start_bigrams(context: _WorkerContext, parent: int) -> None:
            self._bigrams = _BigramWorker(context, self._snapshot, parent)

        self._start(start_bigrams)

    def bigrams(self, rows: list[tuple[int, str]]) -> list[str]:
        """The bigrams of the next chunk: the worker's if it has them ready, else cut here."""
        worker = self._bigrams
        message = None if worker is None else worker.next_chunk(wait=self.wait_for_bigrams)
        if message is not None and message[1] == rows[-1][0] and message[2] == len(rows):
            return list(message[3])
        return chunk_bigrams(rows)

    def digest(self, conn: sqlite3.Connection) -> str:
        """The logical digest: the worker's when the metadata it was given is what the file
        holds, else computed here from ``conn``."""
        worker = self._digest
        if worker is not None and metadata_rows(conn) == self._metadata:
            try:
                digest = worker.receive()
            except (EOFError, OSError):
                digest = None
            if isinstance(digest, str):
                logger.info("logical digest from the digest worker")
                return digest
            logger.warning("the digest worker stopped; computing the digest here")
        return logical_digest(conn)

    def close(self) -> None:
        """Stop the workers and remove the snapshot (also after a failure)."""
        if self._bigrams is not None:
            logger.info(
                "bigram worker: %d of %d search-index chunks",
                self._bigrams.used,
                self._bigrams.chunk + 1,
            )
        for worker in (self._bigrams, self._digest):
            if worker is not None:
                worker.stop()
        self._bigrams = self._digest = None
        self._ready = False
        self._snapshot.unlink(missing_ok=True)
