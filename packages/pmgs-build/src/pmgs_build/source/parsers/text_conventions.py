"""Text conventions of other platforms, read instead of quarantined (issue 43, ADR 0032).

A CSV that passed through DOS-era or Windows tools may end in a 0x1A end-of-file mark or in
NUL padding, mix CRLF, LF and CR line ends, or carry a byte-order mark where a record
starts. None of them is data: no record of any group can hold a 0x1A or NUL at the end of
the file, and a U+FEFF before a code is never part of it. Left in, they became one more
record or a first cell no notation reads, quarantined, and a few files of them pushed a
group past its error budget. Here they are taken out before the CSV reader sees the text,
and counted, so the build report says which files had them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Final

from pmgs_build.build_issues import IssueCode, IssueLog

__all__ = ["DOS_TAIL", "Conventions", "TailStripped", "record_lines", "report_tail"]

DOS_TAIL: Final = b"\x00\x1a"
"""The bytes DOS-era tools leave at the end of a text file: the 0x1A end-of-file mark and
NUL padding to a block."""
_BOM: Final = "\ufeff"
_CHUNK: Final = 1 << 16


@dataclass(slots=True)
class Conventions:
    """What one reading of a file met: the bytes left out at its end, the BOMs removed at
    record starts, and how its records ended (``crlf``, ``lf``, ``cr``: counts)."""

    tail: bytes = b""
    boms: int = 0
    ends: dict[str, int] = field(default_factory=lambda: {"crlf": 0, "lf": 0, "cr": 0})

    def mixed_ends(self) -> str | None:
        """``crlf 3, lf 1`` when records end in more than one way, else None."""
        used = [f"{kind} {count}" for kind, count in self.ends.items() if count]
        return ", ".join(used) if len(used) > 1 else None


class TailStripped(io.RawIOBase):
    """The bytes of ``handle`` without their trailing run of 0x1A and NUL bytes.

    Held back while more may follow (a run in the middle of the file passes through
    unchanged, only the run at the very end is left out), so the file is still streamed.
    """

    def __init__(self, handle: BinaryIO, conventions: Conventions) -> None:
        super().__init__()
        self._handle = handle
        self._conventions = conventions
        self._held = b""
        self._ready = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._ready:
            chunk = self._handle.read(_CHUNK)
            if not chunk:  # the end (a text stream may ask again after it)
                self._conventions.tail += self._held
                self._held = b""
                return 0
            data = self._held + chunk
            kept = data.rstrip(DOS_TAIL)
            self._held = data[len(kept) :]
            self._ready = memoryview(kept)
        view = memoryview(buffer).cast("B")
        count = min(len(view), len(self._ready))
        view[:count] = self._ready[:count]
        self._ready = self._ready[count:]
        return count

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


def record_lines(lines: Iterable[str], conventions: Conventions) -> Iterator[str]:
    """``lines`` (as a text stream with ``newline=""`` yields them) for the CSV reader, a
    BOM removed where a record starts, each record's line end counted.

    A line ends a record when the quotes seen so far are balanced (``""`` inside a quoted
    cell counts twice), so the newlines quoted cells hold are neither counted nor touched.
    """
    inside = False
    for given in lines:
        line = given
        if not inside and line.startswith(_BOM):
            line = line.lstrip(_BOM)
            conventions.boms += len(given) - len(line)
        inside ^= line.count('"') % 2 == 1
        if not inside:
            if line.endswith("\r\n"):
                conventions.ends["crlf"] += 1
            elif line.endswith("\n"):
                conventions.ends["lf"] += 1
            elif line.endswith("\r"):
                conventions.ends["cr"] += 1
        yield line


def report_tail(log: IssueLog, tail: bytes, path: str) -> None:
    """One warning each for the end-of-file marks and the NUL padding ``tail`` held."""
    marks, nuls = tail.count(0x1A), tail.count(0)
    if marks:
        log.warning(
            IssueCode.CSV_EOF_MARKER,
            f"ends in {marks} end-of-file mark bytes (0x1A); left out",
            path,
        )
    if nuls:
        log.warning(IssueCode.CSV_NUL_PADDING, f"ends in {nuls} NUL padding bytes; left out", path)
