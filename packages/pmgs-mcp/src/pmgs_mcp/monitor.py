"""The folders of the settings' ``monitor_paths``, watched by the HTTP server that serves the
collection (``--allow-write``; ADR 0026): one background thread, restarted when ``POST
/settings`` changes them, stopped with the server. What it does to the collection is
:func:`pmgs_core.collection.watch_folders`, the same as ``pmgs notes watch``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pmgs_core import Collection

__all__ = ["FolderMonitor"]

logger = logging.getLogger(__name__)


class FolderMonitor:
    """Watches the folders of the latest settings; :meth:`apply` replaces them."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def apply(self, settings: Mapping[str, Any]) -> None:
        """Watch the folders of ``settings`` (a folder that is gone is logged and left out)."""
        roots: dict[Path, str | None] = {}
        for entry in settings.get("monitor_paths", []):
            folder = Path(entry["path"])
            if folder.is_dir() and not folder.is_symlink():
                roots[folder] = entry.get("category")
            else:
                logger.warning("monitor path is not a folder any more; not watched")
        with self._guard:
            self._halt()
            if not roots:
                return
            self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(roots, self._stop), name="pmgs-monitor", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        with self._guard:
            self._halt()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self, roots: dict[Path, str | None], stop: threading.Event) -> None:
        from pmgs_core import watch_folders

        def report(record: dict[str, Any]) -> None:
            changed = {k: record[k] for k in ("added", "replaced", "deleted", "skipped")}
            if any(changed.values()):
                logger.info("monitored folders: %s", changed)

        try:
            watch_folders(self.collection, roots, stop, report)
        except Exception:  # a watcher failure must not take the server down
            logger.exception("folder monitoring stopped")
