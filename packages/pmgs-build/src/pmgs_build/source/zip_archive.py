"""One ZIP, checked whole on its central directory before any member is decompressed, then
read member by member through a counting stream (ADR 0006).

The same checks serve the ZIP the user gave and a ZIP inside it or inside the release folder
(issue 43): names decoded as their writer meant them and checked for safety (ADR 0032),
member count, declared total, ratio per member, overlapping entries, unique paths.
"""

from __future__ import annotations

import io
import struct
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, Final

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode, IssueLog
from pmgs_build.source.zip_names import MemberNames, decode_member_names, unsafe_member

__all__ = [
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_RATIO",
    "MAX_ZIP_TOTAL_BYTES",
    "RATIO_FLOOR_BYTES",
    "READ_ERRORS",
    "CheckedZip",
    "ZipLimits",
    "fail",
    "folded_name",
]

MAX_ZIP_TOTAL_BYTES: Final = 8 << 30
"""Declared uncompressed bytes of all members together. The real package is about 1.0 GB;
eight times that leaves room for growth and still fits the free space setup asks for."""
MAX_ZIP_MEMBERS: Final = 100_000
"""Entries in the central directory (files and directories). The real package has 6,870."""
MAX_ZIP_RATIO: Final = 200
"""Declared uncompressed size over compressed size of one member. The package's CSVs
compress about tenfold and its PDFs hardly at all; a bomb member is far beyond 200."""
RATIO_FLOOR_BYTES: Final = 1 << 20
"""Members declaring less than this are not ratio-checked: a few KiB of zeros may compress a
thousandfold and harm nobody (the total bound still counts them)."""

_BUFFER: Final = 1 << 16
_LOCAL_HEADER: Final = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE: Final = b"PK\x03\x04"
_SUPPORTED_METHODS: Final = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)
READ_ERRORS: Final = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """The bounds a ZIP must stay within (the module constants; tests pass smaller ones).
    A ZIP inside the source counts against the same bounds as the one that holds it."""

    total_bytes: int = MAX_ZIP_TOTAL_BYTES
    members: int = MAX_ZIP_MEMBERS
    ratio: int = MAX_ZIP_RATIO
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES


def fail(code: str, message: str, member: str | None = None) -> BuildError:
    """A one-issue :class:`BuildError`."""
    return BuildError([BuildIssue("error", code, message, member)])


class CheckedZip:
    """A ZIP read from ``source`` (a path, or a seekable stream of its bytes), checked.

    ``label`` names it in messages (the file name, or the path of a ZIP inside the source);
    ``members`` maps each file's decoded name to its entry, ``folders`` holds every folder.
    Raises :class:`BuildError` with the ``ZIP_*`` codes; closes what it opened when it does.
    """

    def __init__(self, label: str, source: Path | IO[bytes], limits: ZipLimits) -> None:
        self.label = label
        self.limits = limits
        self._stream = None if isinstance(source, Path) else source
        try:
            self.archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, EOFError, ValueError, *READ_ERRORS) as error:
            self._close_stream()
            raise fail(IssueCode.ZIP_INVALID, f"{label} is not a readable ZIP: {error}") from None
        except OSError as error:
            self._close_stream()
            raise fail(
                IssueCode.SOURCE_UNREADABLE, f"cannot read {label}: {error.strerror}"
            ) from None
        try:
            self.members, self.folders, self.names = self._check()
        except BaseException:
            self.close()
            raise
        self.declared = sum(info.file_size for info in self.members.values())

    def _check(self) -> tuple[dict[str, zipfile.ZipInfo], set[str], MemberNames]:
        infos = self.archive.infolist()
        limits, label = self.limits, self.label
        log = IssueLog()
        if len(infos) > limits.members:
            raise fail(
                IssueCode.ZIP_TOO_LARGE,
                f"{label} has {len(infos)} members, more than the bound of {limits.members}",
            )
        names = decode_member_names(infos)
        named = list(zip(names.names, infos, strict=True))
        for name, info in named:
            problem = unsafe_member(name, info)
            if problem is not None:
                log.error(IssueCode.ZIP_MEMBER_UNSAFE, problem, name)
        log.raise_if_errors()
        total = 0
        for name, info in named:
            if info.flag_bits & 0x1:
                log.error(IssueCode.ZIP_INVALID, "encrypted members are not read", name)
            elif info.compress_type not in _SUPPORTED_METHODS:
                log.error(
                    IssueCode.ZIP_INVALID,
                    f"unsupported compression method {info.compress_type}",
                    name,
                )
            total += info.file_size
            if total > limits.total_bytes:
                raise fail(
                    IssueCode.ZIP_TOO_LARGE,
                    f"{label} declares more than {limits.total_bytes} uncompressed bytes",
                    name,
                )
            if (
                info.file_size > limits.ratio_floor_bytes
                and info.file_size > limits.ratio * info.compress_size
            ):
                log.error(
                    IssueCode.ZIP_TOO_LARGE,
                    f"declares {info.file_size} bytes from {info.compress_size} compressed, "
                    f"a ratio beyond {limits.ratio}",
                    name,
                )
        log.raise_if_errors()
        self._check_no_overlap(named, log)
        log.raise_if_errors()
        files, folders = _layout(named, log)
        return files, folders, names

    def _check_no_overlap(self, named: list[tuple[str, zipfile.ZipInfo]], log: IssueLog) -> None:
        """Every member's data must end before the next member's header begins.

        Overlapping entries let a few KiB of compressed data be declared thousands of times
        over; the per-member checks cannot see that. The local headers are read for their
        real name and extra-field lengths (they may differ from the central directory's).
        """
        ordered = sorted(named, key=lambda item: item[1].header_offset)
        limit = self.archive.start_dir
        raw = self.archive.fp
        if raw is None:  # pragma: no cover - an open ZipFile always has one
            raise ValueError("the archive is closed")
        try:
            for number, (name, info) in enumerate(ordered):
                raw.seek(info.header_offset)
                header = raw.read(_LOCAL_HEADER.size)
                if len(header) < _LOCAL_HEADER.size:
                    log.error(IssueCode.ZIP_INVALID, "local header truncated", name)
                    continue
                fields = _LOCAL_HEADER.unpack(header)
                if fields[0] != _LOCAL_SIGNATURE:
                    log.error(IssueCode.ZIP_INVALID, "bad local header signature", name)
                    continue
                end = info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]
                end += info.compress_size
                following = (
                    ordered[number + 1][1].header_offset if number + 1 < len(ordered) else limit
                )
                if end > following:
                    log.error(
                        IssueCode.ZIP_TOO_LARGE,
                        "member data overlaps the next member or the central directory",
                        name,
                    )
        except OSError as error:
            log.error(IssueCode.SOURCE_UNREADABLE, f"cannot read {self.label}: {error.strerror}")
        except READ_ERRORS as error:
            log.error(IssueCode.ZIP_INVALID, f"{self.label} is unreadable: {error}")

    def data_offset(self, info: zipfile.ZipInfo) -> int:
        """Where a member's (compressed) data begins: after its local header."""
        raw = self.archive.fp
        if raw is None:  # pragma: no cover
            raise ValueError("the archive is closed")
        raw.seek(info.header_offset)
        fields = _LOCAL_HEADER.unpack(raw.read(_LOCAL_HEADER.size))
        return int(info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10])

    def open(self, name: str, shown: str) -> BinaryIO:
        """A counted binary stream of member ``name`` (``shown`` names it in errors)."""
        info = self.members[name]
        try:
            handle = self.archive.open(info)
        except READ_ERRORS as error:
            raise fail(IssueCode.ZIP_INVALID, f"member unreadable: {error}", shown) from None
        return io.BufferedReader(_MemberStream(handle, shown, info.file_size), _BUFFER)

    def close(self) -> None:
        """Close the archive, and the stream it was read from (a ZIP inside a ZIP)."""
        self.archive.close()
        self._close_stream()

    def _close_stream(self) -> None:
        if self._stream is not None:
            self._stream.close()


class _MemberStream(io.RawIOBase):
    """A member's bytes, counted: never more than declared, and exactly as many at the end."""

    def __init__(self, handle: IO[bytes], member: str, declared: int) -> None:
        super().__init__()
        self._handle = handle
        self._member = member
        self._declared = declared
        self._count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        try:
            data = self._handle.read(min(len(view), self._declared - self._count + 1))
        except READ_ERRORS as error:
            raise fail(IssueCode.ZIP_INVALID, f"member unreadable: {error}", self._member) from None
        self._count += len(data)
        if self._count > self._declared:
            raise fail(
                IssueCode.ZIP_TOO_LARGE,
                f"member yields more than its declared {self._declared} bytes",
                self._member,
            )
        if not data and len(view) and self._count != self._declared:
            raise fail(
                IssueCode.ZIP_INVALID,
                f"member yields {self._count} bytes but declares {self._declared}",
                self._member,
            )
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


def _layout(
    named: list[tuple[str, zipfile.ZipInfo]], log: IssueLog
) -> tuple[dict[str, zipfile.ZipInfo], set[str]]:
    """The file members by decoded name and the folders; unique paths, none both file and
    folder."""
    files: dict[str, zipfile.ZipInfo] = {}
    folded: dict[str, str] = {}
    directories: set[str] = set()
    for name, info in named:
        if name.endswith("/"):
            directories.add(name.rstrip("/"))
            continue
        if name in files:
            log.error(IssueCode.ZIP_LAYOUT_INVALID, "two members have this path", name)
            continue
        key = folded_name(name)
        if key in folded:
            log.error(
                IssueCode.ZIP_LAYOUT_INVALID,
                f"differs from member {folded[key]!r} only in case or Unicode normalisation",
                name,
            )
            continue
        folded[key] = name
        files[name] = info
        parts = name.split("/")
        directories.update("/".join(parts[:end]) for end in range(1, len(parts)))
    for name in sorted(files.keys() & directories):
        log.error(IssueCode.ZIP_LAYOUT_INVALID, "a path that is both a file and a directory", name)
    log.raise_if_errors()
    return files, directories


def folded_name(name: str) -> str:
    """The name as a case-insensitive, normalising file system would compare it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
