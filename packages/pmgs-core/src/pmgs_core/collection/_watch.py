"""Watching folders (``pmgs notes watch``, ``monitor_paths`` of the HTTP server; ADR 0026):
a first pass makes the notes match the files, then every change watchfiles reports (it uses
the OS's notifications) is reflected. ``watchfiles`` comes with the ``pmgs-core[watch]`` extra.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pmgs_core.collection._folders import FolderSync, apply_changes, sync_folder

if TYPE_CHECKING:
    from pmgs_core.collection._collection import Collection

__all__ = ["watch_folders"]


def watch_folders(
    col: Collection,
    roots: dict[Path, str | None],
    stop: threading.Event,
    report: Callable[[dict[str, Any]], None],
) -> None:
    """Sync ``roots`` (folder → category), then reflect their changes until ``stop`` is set;
    ``report`` hears each batch's record (``collection_watch``)."""
    from watchfiles import watch

    folders = {Path(root).absolute(): category for root, category in roots.items()}
    synced = False
    # The first pass runs once the OS watch is armed (watchfiles arms it before its first
    # wake-up), so a file written during the pass is caught by the pass or by the watch:
    # never by neither.
    for changes in watch(
        *folders, stop_event=stop, debounce=200, step=50, rust_timeout=200, yield_on_timeout=True
    ):
        if not synced:
            synced = True
            for root, category in folders.items():
                if stop.is_set():
                    return
                first = sync_folder(col, root, category, stop.is_set)
                report(first.record("collection_watch", event="initial", folder=str(root)))
            continue
        if not changes:
            continue
        batch: FolderSync = apply_changes(col, (Path(p) for _, p in changes), folders)
        report(batch.record("collection_watch", event="change", folder=None))
