"""The folders of the settings' ``monitor_paths``, watched by the HTTP server that serves the
collection (``--allow-write``; ADR 0026): one background thread, restarted when ``POST
/settings`` changes them, stopped with the server. What it does to the collection is
:func:`pmgs_core.collection.watch_folders`, the same as ``pmgs notes watch``.

It never stops silently (issue 41): when the watch fails, :meth:`FolderMonitor.failure` says
so with a code (``/indexing_status`` and ``/ready`` answer ``failed``) and the watch is tried
again after 1, 2, 4 … at most 30 seconds; the first pass of a watch that starts again clears
the failure. A thread that ended without a word (``MONITOR_STOPPED``) is started again when
its state is read.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pmgs_core import Collection

__all__ = ["MONITOR_STOPPED", "FolderMonitor"]

logger = logging.getLogger(__name__)

MONITOR_STOPPED: Final = "MONITOR_STOPPED"
"""The watching thread ended without saying why (it is started again)."""
RETRY_FIRST_S: Final = 1.0
RETRY_MAX_S: Final = 30.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class FolderMonitor:
    """Watches the folders of the latest settings; :meth:`apply` replaces them."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()  # the thread: start, stop, replace
        self._state = threading.Lock()  # the failure: the thread writes it, readers read it
        self._roots: dict[Path, str | None] = {}
        self._failure: dict[str, Any] | None = None
        self._failures = 0

    def apply(self, settings: Mapping[str, Any]) -> None:
        """Watch the folders of ``settings``. A link is left out (never followed); a folder
        that is gone is watched all the same: the watch fails with ``WATCH_FOLDER_GONE``, says
        so, and starts once the folder is back."""
        roots: dict[Path, str | None] = {}
        for entry in settings.get("monitor_paths", []):
            folder = Path(entry["path"])
            if folder.is_symlink():
                logger.warning("monitor path is a link; not watched")
            else:
                roots[folder] = entry.get("category")
        with self._guard:
            self._halt()
            self._roots = roots
            self._clear()
            self._start()

    def stop(self) -> None:
        with self._guard:
            self._halt()

    def failure(self) -> dict[str, Any] | None:
        """``None`` while the watch runs (or nothing is watched); else ``status: failed``
        with the ``error`` (code, message), how many times it failed in a row, since when,
        and when it is tried again."""
        with self._guard:
            thread = self._thread
            if thread is not None and not thread.is_alive() and not self._stop.is_set():
                self._fail(MONITOR_STOPPED, "the folder monitor's thread ended", 0.0)
                self._start()
        with self._state:
            return None if self._failure is None else dict(self._failure)

    def _start(self) -> None:
        if not self._roots:
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(dict(self._roots), self._stop), name="pmgs-monitor", daemon=True
        )
        self._thread.start()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _clear(self) -> None:
        with self._state:
            self._failure = None
            self._failures = 0

    def _fail(self, code: str, message: str, retry_in: float) -> None:
        with self._state:
            self._failures += 1
            since = self._failure["since"] if self._failure is not None else _now()
            self._failure = {
                "status": "failed",
                "error": {"code": code, "message": message},
                "failures": self._failures,
                "since": since,
                "retry_in_seconds": retry_in,
            }

    def _run(self, roots: dict[Path, str | None], stop: threading.Event) -> None:
        from pmgs_core import PMGSQueryError, watch_folders

        def report(record: dict[str, Any]) -> None:
            if record.get("event") in ("initial", "change", "rescan") and self._failure is not None:
                logger.info("folder monitoring works again")
                self._clear()
            changed = {k: record[k] for k in ("added", "replaced", "deleted", "skipped")}
            if any(changed.values()):
                logger.info("monitored folders: %s", changed)

        delay = RETRY_FIRST_S
        while not stop.is_set():
            try:
                watch_folders(self.collection, roots, stop, report)
            except PMGSQueryError as exc:
                code, message = str(exc.code), exc.message
                logger.error("folder monitoring stopped: %s %s", code, message)
            except Exception as exc:  # a watcher failure must not take the server down
                code = "INTERNAL_ERROR"
                message = f"folder monitoring stopped: unexpected {type(exc).__name__}"
                logger.exception("folder monitoring stopped")
            else:
                return
            self._fail(code, message, delay)
            if stop.wait(delay):
                return
            delay = min(delay * 2, RETRY_MAX_S)
