"""Which store answers a page: the current release, or an older one installed beside it.

A pmgs database holds one release; ``pmgs setup`` keeps older ones under
``data/releases/<release>/<source-sha256>/<database-sha256>.sqlite`` of the data directory.
``?release=`` picks one of those by its release id. A file is trusted as that release only
if the database's own metadata says so (the directory name is not enough), and an unknown
release is ``RELEASE_NOT_FOUND``: never the current one in its place.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Final

from pmgs_core import PMGSQueryError, PMGSStore, ReleaseInfo

__all__ = ["MAX_RELEASE_FILES", "StoreSet"]

MAX_RELEASE_FILES: Final = 64
"""At most this many installed databases are looked at (a data directory holds a few)."""

_RELEASE_RE: Final = re.compile(r"JPPM[0-9]{1,16}")


class StoreSet:
    """The current store and, on demand, the other installed releases of its data directory.

    Stores it opens itself are closed by :meth:`close`; the current store belongs to the
    caller when it was passed in (the MCP server shares its own).
    """

    def __init__(self, current: PMGSStore, root: Path | None = None, *, owns: bool = False) -> None:
        self.current = current
        self._root = root
        self._owns_current = owns
        self._others: dict[str, PMGSStore] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, db: Path | None = None, data_dir: Path | None = None) -> StoreSet:
        """Open the database the way every pmgs command finds it (``--db``, ``--data-dir``…)."""
        store = PMGSStore.open(db, data_dir=data_dir)
        root = data_dir
        if root is None and store.pointer is not None:
            # <root>/data/releases/<release>/<source>/<database>.sqlite
            root = store.database_path.parents[4]
        return cls(store, root, owns=True)

    @property
    def current_release(self) -> str:
        return self.current.release_info()["release_id"]

    def select(self, release: str | None) -> PMGSStore:
        """The store of ``release`` (``None``, ``current`` or the current id: the current one)."""
        if release in {None, "", "current", self.current_release}:
            return self.current
        assert release is not None
        if not _RELEASE_RE.fullmatch(release):
            raise PMGSQueryError(
                "RELEASE_NOT_FOUND", "a release id looks like JPPM2026002", {"release": "current"}
            )
        with self._lock:
            self._scan()
            store = self._others.get(release)
        if store is None:
            raise PMGSQueryError(
                "RELEASE_NOT_FOUND",
                "this release is not installed in the data directory",
                {"available": ["current", *self.release_ids()]},
            )
        return store

    def release_ids(self) -> list[str]:
        with self._lock:
            self._scan()
            return sorted({self.current_release, *self._others})

    def installed(self) -> list[ReleaseInfo]:
        """The release information of every installed release, newest id first."""
        with self._lock:
            self._scan()
            stores = [self.current, *self._others.values()]
        infos = [store.release_info() for store in stores]
        return sorted(infos, key=lambda info: info["release_id"], reverse=True)

    def _scan(self) -> None:
        """Open every installed database not opened yet; unreadable files are left out."""
        if self._root is None:
            return
        base = self._root / "data" / "releases"
        if not base.is_dir():
            return
        current = self.current_release
        for count, path in enumerate(sorted(base.glob("JPPM*/*/*.sqlite"))):
            if count >= MAX_RELEASE_FILES:
                break
            name = path.parents[1].name
            if name == current or name in self._others or not _RELEASE_RE.fullmatch(name):
                continue
            try:
                store = PMGSStore.open(path)
            except PMGSQueryError:
                continue
            if store.release_info()["release_id"] != name:
                store.close()
                continue
            self._others[name] = store

    def close(self) -> None:
        with self._lock:
            for store in self._others.values():
                store.close()
            self._others.clear()
        if self._owns_current:
            self.current.close()
