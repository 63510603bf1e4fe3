"""ZIP member names read as their writer meant them, then checked for safety (ADR 0032).

A ZIP stores each name as bytes. Only a name whose UTF-8 flag (general-purpose bit 11) is
set says its encoding; every other name is in whatever code page the writer used, and what
Windows Explorer on a Japanese system writes is CP932 with the flag clear. Python's zipfile
reads such names as CP437, which turns ``ソフト`` into mojibake and, worse, shows the second
byte of ``ソ``, ``表`` or ``能`` (0x5C) as a backslash. So the raw bytes are recovered and
decoded here, one rule for the whole archive (one writer writes one code page):

1. a name with the UTF-8 flag is UTF-8; one with Info-ZIP's Unicode Path extra field
   (0x7075) whose CRC matches the raw name takes the UTF-8 name that field carries;
2. the other names that are not plain ASCII are read as UTF-8 when every one of them is
   valid UTF-8 (writers that omit the flag: macOS Archive Utility, Linux tools; CP932 text
   is practically never valid UTF-8, its kana lead bytes 0x82/0x83 are UTF-8 continuation
   bytes), else as CP932 when every one of them is valid CP932, else as CP437 (the ZIP
   specification's default, which every byte sequence is);
3. backslashes in the decoded name are separators (old Windows writers use them), and only
   then are the safety checks made, on the decoded ``/`` path.

The ZipInfo objects are left as zipfile made them, so reading a member still matches its
local header; only the package's paths and messages use the decoded names.
"""

from __future__ import annotations

import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pmgs_build.source.text import decode_cp932, decode_utf8

__all__ = ["UTF8_FLAG", "MemberNames", "decode_member_names", "unsafe_member"]

UTF8_FLAG: Final = 0x800
"""General-purpose bit 11: the name (and comment) are UTF-8."""
_UNICODE_PATH: Final = 0x7075
_EXTRA_HEADER: Final = struct.Struct("<HH")
_DRIVE_RE: Final = re.compile(r"[A-Za-z]:")
_DEVICE_RE: Final = re.compile(r"(CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(\..*)?", re.IGNORECASE)
"""Windows device names: a file named so (with any extension) opens the device, not a file."""


@dataclass(frozen=True, slots=True)
class MemberNames:
    """The decoded name of every member (in ``infolist()`` order) and how they were read.

    ``encoding`` is the code page chosen for the names without the UTF-8 flag (``ascii``
    when all of them are ASCII, or when every name carries the flag); ``backslashes`` counts
    the names whose separators were backslashes.
    """

    names: tuple[str, ...]
    encoding: str
    backslashes: int

    def describe(self) -> str:
        """One line for the build report (``member_names``)."""
        text = self.encoding
        if self.backslashes:
            text += f", {self.backslashes} names with backslash separators"
        return text


def decode_member_names(infos: Sequence[zipfile.ZipInfo]) -> MemberNames:
    """The names of ``infos`` as their writer meant them (the rule in the module docstring)."""
    given: list[str | None] = []
    undeclared: list[bytes] = []
    for info in infos:
        name = _declared_name(info)
        given.append(name)
        if name is None:
            raw = _raw_name(info)
            if not raw.isascii():
                undeclared.append(raw)
    encoding = _code_page(undeclared)
    names: list[str] = []
    backslashes = 0
    for info, name in zip(infos, given, strict=True):
        text = name if name is not None else _raw_name(info).decode(_CODECS[encoding])
        if "\\" in text:
            backslashes += 1
            text = text.replace("\\", "/")
        names.append(text)
    return MemberNames(tuple(names), encoding, backslashes)


_CODECS: Final = {"ascii": "ascii", "utf-8": "utf-8", "cp932": "cp932", "cp437": "cp437"}


def _code_page(undeclared: list[bytes]) -> str:
    if not undeclared:
        return "ascii"
    if all(decode_utf8(raw) is not None for raw in undeclared):
        return "utf-8"
    if all(decode_cp932(raw) is not None for raw in undeclared):
        return "cp932"
    return "cp437"


def _raw_name(info: zipfile.ZipInfo) -> bytes:
    """The name's bytes as stored (zipfile decoded them as CP437, which maps every byte)."""
    return info.orig_filename.encode("cp437")


def _declared_name(info: zipfile.ZipInfo) -> str | None:
    """The name when the archive says its encoding (the flag, or a Unicode Path field)."""
    if info.flag_bits & UTF8_FLAG:
        return info.orig_filename
    extra = info.extra
    offset = 0
    while offset + _EXTRA_HEADER.size <= len(extra):
        kind, size = _EXTRA_HEADER.unpack_from(extra, offset)
        body = extra[offset + _EXTRA_HEADER.size : offset + _EXTRA_HEADER.size + size]
        offset += _EXTRA_HEADER.size + size
        if kind != _UNICODE_PATH or len(body) < 5 or body[0] != 1:
            continue
        (crc,) = struct.unpack_from("<L", body, 1)
        if crc == zlib.crc32(_raw_name(info)):
            return decode_utf8(body[5:])
    return None


def unsafe_member(name: str, info: zipfile.ZipInfo) -> str | None:
    """Why the member of decoded ``name`` could leave the package or harm on extraction,
    or None. ``name`` uses ``/`` only (backslashes were separators)."""
    if "\x00" in info.orig_filename:
        return "member name contains NUL"
    if name.startswith("/"):
        return "member name is absolute"
    parts = name.split("/")
    if _DRIVE_RE.match(parts[0]):
        return "member name starts with a drive letter"
    inner = parts[:-1] if name.endswith("/") else parts
    if any(part in {"", ".", ".."} for part in inner):
        return "member name has an empty, '.' or '..' component"
    device = next((part for part in inner if _DEVICE_RE.fullmatch(part.rstrip(" ."))), None)
    if device is not None:
        return f"member name has the Windows device name {device!r} as a component"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "symbolic-link members are refused"
    return None
