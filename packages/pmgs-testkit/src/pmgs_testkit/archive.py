"""Zip a package the way it is downloaded, so builder tests can start from the archive.

The real package arrives as one ZIP whose top entry is the release directory
(``JPPM2026002/...``). Tests of the unpacking step (hostile member names, bombs) build their
own hostile archives; this helper gives them the well-formed baseline, byte-identical for the
same package: members in sorted order, fixed timestamps and permissions, no extra fields.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Final

__all__ = ["make_zip", "stored_zip"]

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


def stored_zip(members: Sequence[tuple[bytes, bytes]], *, flags: int = 0) -> bytes:
    """A ZIP written byte by byte, not by zipfile: each member stored (no compression) under
    its raw name bytes with general-purpose flags ``flags`` (bit 11 clear: the name's code
    page unstated, as Windows Explorer writes CP932 names), then the central directory and
    the end record. For fixtures whose names zipfile would not write (issue 43)."""
    body = bytearray()
    central = bytearray()
    for name, data in members:
        crc = zlib.crc32(data)
        offset = len(body)
        body += struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 20, flags, 0, 0, 0x21, crc, len(data), len(data),
            len(name), 0,
        )  # fmt: skip
        body += name + data
        central += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, flags, 0, 0, 0x21, crc, len(data),
            len(data), len(name), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        central += name
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(body), 0
    )
    return bytes(body + central + end)
