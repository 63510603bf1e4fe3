"""Small value types shared by the inventory, the adapters and the build driver."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["FileStatus", "ProgressEvent", "SourceFile"]

FileStatus = Literal["parsed", "retained", "failed"]


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of the package as the inventory found it.

    ``id`` is the file's 1-based position in path order, which is also its
    ``source_file.id``: every row of the database points back at it. ``parser`` is the
    adapter that will read the file, or None when the file is only retained (its group has
    no adapter yet, or it is not of its group's format).

    For a package read from its ZIP, ``absolute`` is the archive and ``member`` the member's
    full name in it (``JPPM…/FI/FI/….csv``); ``path`` is the same either way, so the manifest
    of a ZIP equals the manifest of the tree it extracts to. Only the build's package reader
    (``BuildContext.read_bytes``) knows how to open either.
    """

    id: int
    path: str
    absolute: Path
    bytes: int
    sha256: str
    data_group: str
    parser: str | None
    member: str | None = None

    @property
    def name(self) -> str:
        """The file name, without directories."""
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A progress report of a running build, for progress bars and logs.

    ``phase`` is one of ``inventory``, ``parse``, ``finalize``, ``index``, ``search_index``,
    ``analyze``, ``digest``, ``validate``, ``done``. ``data_group`` is set while a group is parsed.
    ``done``/``total`` count ``unit``s (``files``, ``bytes``, ``rows`` or ``steps``); ``total``
    is None when it is not known in advance.
    """

    phase: str
    data_group: str | None
    done: int
    total: int | None
    unit: str
    message: str = ""
