"""Watching folders (``pmgs notes watch``, ``monitor_paths`` of the HTTP server; ADR 0026):
a first pass makes the notes match the files, then every change watchfiles reports (it uses
the OS's notifications) is reflected. ``watchfiles`` comes with the ``pmgs-core[watch]`` extra.

Nothing a folder holds stops the watch (issue 41): a path no note can have is skipped and
listed whether it is created, renamed or deleted; when watchfiles itself gives up on a batch
(a name that is not valid UTF-8 makes it raise: the batch is lost, and a folder of such a
name with folders in it cannot be watched at all), a full pass brings the notes back in step,
and the watch is armed again; until it can be, a pass runs every second. What does stop it
is said with a code: a watched folder that is gone is ``WATCH_FOLDER_GONE``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pmgs_core.collection._folders import FolderSync, apply_changes, sync_folder
from pmgs_core.errors import PMGSQueryError

if TYPE_CHECKING:
    from pmgs_core.collection._collection import Collection

__all__ = ["watch_folders"]

_WATCHFILES_ERROR: Final = "WatchfilesRustInternalError"
"""The class watchfiles raises for a batch it cannot decode (private to its Rust module)."""
RESCAN_S: Final = 1.0
"""How long to wait between the full passes that stand in for a watch that cannot be armed."""


def watch_folders(
    col: Collection,
    roots: dict[Path, str | None],
    stop: threading.Event,
    report: Callable[[dict[str, Any]], None],
) -> None:
    """Sync ``roots`` (folder → category), then reflect their changes until ``stop`` is set;
    ``report`` hears each batch's record (``collection_watch``). Raises
    :class:`PMGSQueryError` (``WATCH_FOLDER_GONE``, or the collection's own codes) when it
    cannot go on."""
    folders = {Path(root).absolute(): category for root, category in roots.items()}
    while not stop.is_set():
        try:
            _watch(col, folders, stop, report)
            return
        except RuntimeError as exc:
            if type(exc).__name__ != _WATCHFILES_ERROR:
                raise
        _check_folders(folders)
        for root, category in folders.items():
            if stop.is_set():
                return
            again = sync_folder(col, root, category, stop.is_set)
            report(again.record("collection_watch", event="rescan", folder=str(root)))
        stop.wait(RESCAN_S)


def _watch(
    col: Collection,
    folders: dict[Path, str | None],
    stop: threading.Event,
    report: Callable[[dict[str, Any]], None],
) -> None:
    from watchfiles import watch

    synced = False
    # The first pass runs once the OS watch is armed (watchfiles arms it before its first
    # wake-up), so a file written during the pass is caught by the pass or by the watch:
    # never by neither. No filter: every name is a file of the folder, ``x.swp`` too.
    for changes in watch(
        *folders,
        watch_filter=None,
        stop_event=stop,
        debounce=200,
        step=50,
        rust_timeout=200,
        yield_on_timeout=True,
    ):
        _check_folders(folders)
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


def _check_folders(folders: dict[Path, str | None]) -> None:
    for root in folders:
        if not root.is_dir():
            raise PMGSQueryError(
                "WATCH_FOLDER_GONE",
                "a watched folder is gone (deleted, moved or unmounted); the watch stopped",
                {"folder": root.name},
            )
