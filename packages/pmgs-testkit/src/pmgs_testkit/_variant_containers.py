"""Container edits behind :mod:`pmgs_testkit.variants`: the release as users hand it over.

The files of the release stay byte for byte; what changes is what holds them: the release
folder one or two folders down (Windows' "Extract All" makes ``X/X/JPPM…``), a ZIP of the
folder's contents, and what operating systems and people leave beside it. Each edit returns
the paths it added or moved, and where the build must start (ADR 0019).
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = [
    "MACOS_LEFTOVERS",
    "NOTES_AND_LOCKS",
    "leftovers",
    "nest",
    "zip_release",
]

_TIMESTAMP: Final = (2026, 1, 1, 0, 0, 0)

MACOS_LEFTOVERS: Final = (
    "__MACOSX/{name}/._COPYRGHT",
    "__MACOSX/{name}/FI/FI/._notes",
    ".DS_Store",
    "{name}/.DS_Store",
    "{name}/FI/.DS_Store",
    "{name}/FI/FI/._COPYRGHT",
)
"""What re-packing on a Mac leaves (``{name}``: the release folder): resource forks in
``__MACOSX/`` and beside the files, Finder's ``.DS_Store`` at every level it opened."""

NOTES_AND_LOCKS: Final = (
    "README.txt",
    "読んでください.txt",
    "Thumbs.db",
    "desktop.ini",
    "{name}/~$memo.docx",
    "{name}/IPC/Thumbs.db",
)
"""What people and Windows leave: read-me notes beside the release, thumbnail caches,
folder settings and an Office lock file inside it."""


def nest(root: Path, *folders: str) -> list[Path]:
    """Move the release's contents into ``root/<folders…>/<root's name>/``."""
    inner = root.joinpath(*folders, root.name)
    staging = root.parent / f".{root.name}.nesting"
    root.rename(staging)
    inner.parent.mkdir(parents=True)
    staging.rename(inner)
    return [inner]


def leftovers(root: Path, layout: tuple[str, ...]) -> list[Path]:
    """Write each of ``layout`` (``{name}``: the release folder's name) under ``root``."""
    added = []
    for pattern in layout:
        path = root / pattern.format(name=root.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\x00\x05\x16\x07 not part of the release\n")
        added.append(path)
    return added


def zip_release(root: Path, inside: str, *first: Callable[[Path], object]) -> list[Path]:
    """Run the edits ``first``, then replace everything under ``root`` by
    ``root/<root's name>.zip`` holding it, each path prefixed by ``inside`` (``""``: the
    contents at the top of the archive). Only the archive is left (and returned)."""
    for edit in first:
        edit(root)
    files = sorted(path for path in root.rglob("*") if path.is_file())
    staging = root.parent / f".{root.name}.zip"
    with zipfile.ZipFile(staging, "x", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            info = zipfile.ZipInfo(inside + path.relative_to(root).as_posix(), _TIMESTAMP)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    for child in root.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    target = root / f"{root.name}.zip"
    staging.rename(target)
    return [target]
