"""Zip a package the way it is downloaded, so builder tests can start from the archive.

The real package arrives as one ZIP whose top entry is the release directory
(``JPPM2026002/...``). Tests of the unpacking step (hostile member names, bombs) build their
own hostile archives; this helper gives them the well-formed baseline, byte-identical for the
same package: members in sorted order, fixed timestamps and permissions, no extra fields.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Final

__all__ = ["make_zip"]

_TIMESTAMP: Final = (2026, 1, 1, 0, 0, 0)
_FILE_MODE: Final = 0o100644 << 16
_DIR_MODE: Final = (0o040755 << 16) | 0x10


def make_zip(package_path: Path, zip_path: Path) -> Path:
    """Write ``package_path`` (a release directory) to ``zip_path`` and return ``zip_path``.

    Entries are ``<release>/`` and everything below it, directories included (as common ZIP
    tools write them), deflate-compressed. Refuses to overwrite an existing file.
    """
    package = Path(package_path)
    target = Path(zip_path)
    if not package.is_dir():
        raise NotADirectoryError(f"{package} is not a package directory")
    if target.exists():
        raise FileExistsError(f"{target} exists")
    entries = sorted(p for p in package.rglob("*") if p.is_dir() or p.is_file())
    with zipfile.ZipFile(target, "x", compression=zipfile.ZIP_DEFLATED) as archive:
        root = zipfile.ZipInfo(f"{package.name}/", _TIMESTAMP)
        root.external_attr = _DIR_MODE
        archive.writestr(root, b"")
        for path in entries:
            name = f"{package.name}/{path.relative_to(package).as_posix()}"
            if path.is_dir():
                info = zipfile.ZipInfo(name + "/", _TIMESTAMP)
                info.external_attr = _DIR_MODE
                archive.writestr(info, b"")
                continue
            info = zipfile.ZipInfo(name, _TIMESTAMP)
            info.external_attr = _FILE_MODE
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return target
