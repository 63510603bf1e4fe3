"""Text files of a folder into the collection: what ``pmgs notes import`` and the folder
watcher share (ADR 0026). One note per file, idempotent by path and SHA-256 (an unchanged file
writes nothing), each file its own transaction; binary, non-UTF-8, oversized and linked files,
and files whose path cannot be a note's (control characters, undecodable bytes, white space at
its end, over 1,024 characters), are skipped and listed, never stored: whether they are
created, changed, renamed or deleted (issue 41).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pmgs_core.collection._limits import check_path
from pmgs_core.errors import PMGSQueryError

if TYPE_CHECKING:
    from pmgs_core.collection._collection import Collection

__all__ = ["FolderSync", "path_refusal", "skip_reason", "text_files", "watched_path"]

SNIFF_BYTES: Final = 8192
MAX_FILE_BYTES: Final = 4_000_000
"""A 1,000,000-character note in UTF-8 is at most 4 MB."""
_SKIPPED_CODES: Final = frozenset({"INVALID_CONTENT", "ITEM_TOO_LARGE", "INVALID_PATH"})


def text_files(root: Path) -> Iterator[tuple[Path, str]]:
    """Files under ``root`` (links not followed), with their paths relative to it, in a
    stable order; linked files are yielded too so that they can be listed as skipped."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            full = Path(dirpath) / name
            yield full, full.relative_to(root).as_posix()


def skip_reason(full: Path) -> str | None:
    """Why ``full`` is not stored (``symlink``, ``not a file``, ``too large``, ``binary``,
    ``unreadable``), or ``None``."""
    reason, _ = _read_regular(full, SNIFF_BYTES)
    return reason


def _read_regular(full: Path, limit: int | None) -> tuple[str | None, bytes]:
    """The reason ``full`` is not read, or its first ``limit`` bytes (all of them: ``None``).

    Opened without following a link and without blocking (a FIFO, or a file swapped for one
    after a check, can never hang the watcher); what was opened must be a regular file.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        mode = os.lstat(full).st_mode
        if stat.S_ISLNK(mode):
            return "symlink", b""
        if not stat.S_ISREG(mode):
            return "not a file", b""
        fd = os.open(full, flags)
    except FileNotFoundError:
        return "gone", b""
    except OSError:
        return ("symlink" if os.path.islink(full) else "unreadable"), b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a file", b""
        if info.st_size > MAX_FILE_BYTES:
            return "too large", b""
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit)
    except OSError:
        return "unreadable", b""
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        return "too large", b""
    if b"\x00" in data[:SNIFF_BYTES]:
        return "binary", b""
    return None, data


def path_refusal(logical: str) -> str | None:
    """``INVALID_PATH`` when ``logical`` cannot be a note's path as it is (the check would
    refuse it, or store it changed: white space at its ends), else ``None``."""
    try:
        return None if check_path(logical) == logical else "INVALID_PATH"
    except PMGSQueryError as exc:
        return exc.code


@dataclass
class FolderSync:
    """Counts of one import or watch batch, and the files skipped with their reasons."""

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def put(
        self,
        col: Collection,
        full: Path,
        logical: str,
        category: str | None,
        *,
        watched: bool = False,
    ) -> None:
        """Store ``full`` as the note at ``logical`` (or list it as skipped). ``watched``: the
        note mirrors the file, so a file that can no longer be stored (now binary, a FIFO, a
        link) loses the note its earlier text left."""
        reason = path_refusal(logical)
        if reason is None:
            reason, data = _read_regular(full, None)
        if reason is None:
            try:
                text = data.decode("utf-8-sig")
                status = col.put_document(text, logical, None, category)["status"]
                setattr(self, status, getattr(self, status) + 1)
            except UnicodeDecodeError:
                reason = "not UTF-8"
            except PMGSQueryError as exc:
                if exc.code not in _SKIPPED_CODES:
                    raise
                reason = exc.code
        if reason is not None:
            self.skip(logical, reason)
            if watched and reason != "INVALID_PATH" and col.delete_path(logical):
                self.deleted += 1

    def remove(self, col: Collection, logical: str) -> None:
        """Delete the note at ``logical``; a path no note can have was skipped when it was
        created, and is listed as skipped again (never an error that stops a watch)."""
        reason = path_refusal(logical)
        if reason is not None:
            self.skip(logical, reason)
            return
        if col.delete_path(logical):
            self.deleted += 1

    def skip(self, logical: str, reason: str) -> None:
        """List ``logical`` as skipped (a path that cannot be printed as it is, shown with
        its undecodable bytes and control characters escaped)."""
        shown = logical.encode("utf-8", "backslashreplace").decode("utf-8")
        if not shown.isprintable():
            shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
        self.skipped.append({"path": shown, "reason": reason})

    def record(self, record_type: str, **extra: Any) -> dict[str, Any]:
        return {
            "record_type": record_type,
            **extra,
            "added": self.added,
            "replaced": self.replaced,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "skipped": len(self.skipped),
            "skipped_files": self.skipped,
        }


def watched_path(full: Path) -> str:
    """The logical path of a watched file: its absolute path (unique across folders)."""
    return Path(os.path.abspath(full)).as_posix()


def sync_folder(
    col: Collection,
    root: Path,
    category: str | None,
    stopped: Callable[[], bool] | None = None,
) -> FolderSync:
    """Make the notes under ``root``'s absolute path match its files: store new and changed
    ones, delete the notes of files that are gone (the watcher's first pass). When
    ``stopped()`` turns true it ends after the file in hand and deletes nothing."""
    batch = FolderSync()
    present: set[str] = set()
    for full, _ in text_files(root):
        if stopped is not None and stopped():
            return batch
        logical = watched_path(full)
        present.add(logical)
        batch.put(col, full, logical, category, watched=True)
    prefix = watched_path(root).rstrip("/") + "/"
    for logical in col.paths_under(prefix):
        if logical not in present:
            batch.remove(col, logical)
    return batch


def apply_changes(
    col: Collection, paths: Iterable[Path], roots: dict[Path, str | None]
) -> FolderSync:
    """Reflect changed ``paths`` (created, edited, moved, deleted) under the watched
    ``roots`` (folder → category); a path that is gone, or that became a link or a folder,
    loses its note."""
    batch = FolderSync()
    for full in sorted(set(paths)):
        root = next((r for r in roots if full == r or r in full.parents), None)
        if root is None:
            continue
        try:
            _apply_one(col, batch, full, roots[root])
        except OSError:  # a path the OS itself refuses (too long, a loop): listed, not fatal
            batch.skip(watched_path(full), "unreadable")
    return batch


def _apply_one(col: Collection, batch: FolderSync, full: Path, category: str | None) -> None:
    logical = watched_path(full)
    if full.is_dir() and not full.is_symlink():
        for inner, _ in text_files(full):
            batch.put(col, inner, watched_path(inner), category, watched=True)
        return
    if not os.path.lexists(full):
        batch.remove(col, logical)
        for gone in col.paths_under(logical.rstrip("/") + "/"):  # a folder moved away
            batch.remove(col, gone)
        return
    batch.put(col, full, logical, category, watched=True)
