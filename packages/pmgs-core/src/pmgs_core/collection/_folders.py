"""Text files of a folder into the collection: what ``pmgs notes import`` and the folder
watcher share (ADR 0026). One note per file, idempotent by path and SHA-256 (an unchanged file
writes nothing), each file its own transaction; binary, non-UTF-8, oversized and linked files
are skipped and listed, never stored.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pmgs_core.errors import PMGSQueryError

if TYPE_CHECKING:
    from pmgs_core.collection._collection import Collection

__all__ = ["FolderSync", "skip_reason", "text_files"]

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
    if full.is_symlink():
        return "symlink"
    try:
        if not full.is_file():
            return "not a file"
        size = full.stat().st_size
        with full.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return "unreadable"
    if size > MAX_FILE_BYTES:
        return "too large"
    if b"\x00" in head:
        return "binary"
    return None


@dataclass
class FolderSync:
    """Counts of one import or watch batch, and the files skipped with their reasons."""

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def put(self, col: Collection, full: Path, logical: str, category: str | None) -> None:
        """Store ``full`` as the note at ``logical`` (or list it as skipped)."""
        reason = skip_reason(full)
        if reason is None:
            try:
                text = full.read_bytes().decode("utf-8-sig")
                status = col.put_document(text, logical, None, category)["status"]
                setattr(self, status, getattr(self, status) + 1)
            except UnicodeDecodeError:
                reason = "not UTF-8"
            except FileNotFoundError:
                reason = "gone"
            except PMGSQueryError as exc:
                if exc.code not in _SKIPPED_CODES:
                    raise
                reason = exc.code
        if reason is not None:
            self.skipped.append({"path": logical, "reason": reason})

    def remove(self, col: Collection, logical: str) -> None:
        if col.delete_path(logical):
            self.deleted += 1

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
        batch.put(col, full, logical, category)
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
        logical = watched_path(full)
        if full.is_dir() and not full.is_symlink():
            for inner, _ in text_files(full):
                batch.put(col, inner, watched_path(inner), roots[root])
            continue
        if not os.path.lexists(full):
            batch.remove(col, logical)
            for gone in col.paths_under(logical.rstrip("/") + "/"):  # a folder moved away
                batch.remove(col, gone)
            continue
        if full.is_symlink():
            batch.remove(col, logical)
        batch.put(col, full, logical, roots[root])
    return batch
