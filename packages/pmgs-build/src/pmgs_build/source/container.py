"""Where the package's bytes come from: a directory, or the ZIP as downloaded, read in place.

Every ZIP check is made on the central directory before a member is decompressed, and a
member's declared size is still not trusted while it is read (ADR 0006). In either form the
release is found by its structure (:mod:`pmgs_build.source.find_release`, ADR 0019); paths
are relative to the release folder, so a ZIP and the tree it extracts to give the same
manifest.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import struct
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO, Final, Protocol

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode, IssueLog
from pmgs_build.source.files import SourceFile
from pmgs_build.source.find_release import (
    SCAN_DEPTH,
    Located,
    in_leftover,
    is_leftover,
    locate_release,
)

__all__ = [
    "FILE_READER",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_RATIO",
    "MAX_ZIP_TOTAL_BYTES",
    "RATIO_FLOOR_BYTES",
    "DirectoryPackage",
    "Package",
    "PackageEntry",
    "PackageReader",
    "ZipLimits",
    "ZipPackage",
    "open_package",
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

_SCAN_ENTRIES: Final = 100_000
"""Entries the search for the release lists at most (a source far larger is not a release)."""
_READ_CHUNK: Final = 1 << 20
_BUFFER: Final = 1 << 16
_LOCAL_HEADER: Final = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE: Final = b"PK\x03\x04"
_DRIVE_RE: Final = re.compile(r"[A-Za-z]:")
_SUPPORTED_METHODS: Final = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)
_READ_ERRORS: Final = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """The bounds a ZIP must stay within (the module constants; tests pass smaller ones)."""

    total_bytes: int = MAX_ZIP_TOTAL_BYTES
    members: int = MAX_ZIP_MEMBERS
    ratio: int = MAX_ZIP_RATIO
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES


@dataclass(frozen=True, slots=True)
class PackageEntry:
    """One file of a package before hashing: its path relative to the release directory,
    where it lives (the file, or the archive plus ``member``) and its size."""

    path: str
    absolute: Path
    bytes: int
    member: str | None = None


class PackageReader(Protocol):
    """What the adapters read package files through (``BuildContext.read_bytes``)."""

    def read_bytes(self, source: SourceFile) -> bytes:
        """The whole content of ``source``."""
        ...

    def open_binary(self, source: SourceFile) -> BinaryIO:
        """A binary stream of ``source``; the caller closes it."""
        ...


def _fail(code: str, message: str, member: str | None = None) -> BuildError:
    return BuildError([BuildIssue("error", code, message, member)])


class _FileReader:
    """Reads sources that are files on disk (``source.absolute``)."""

    def read_bytes(self, source: SourceFile) -> bytes:
        if source.member is not None:
            raise ValueError(f"{source.path} is a ZIP member; read it through its ZipPackage")
        return source.absolute.read_bytes()

    def open_binary(self, source: SourceFile) -> BinaryIO:
        if source.member is not None:
            raise ValueError(f"{source.path} is a ZIP member; read it through its ZipPackage")
        return source.absolute.open("rb")


FILE_READER: Final[PackageReader] = _FileReader()
"""The reader of a package directory (and of a context no build gave a package)."""


class Package:
    """An opened package: list its files, read them, close it.

    ``path`` is the directory or the archive; ``located`` says where the release is in it,
    its folder name (the default release id) and what beside it is ignored.
    """

    kind: str = ""

    def __init__(self, path: Path, located: Located) -> None:
        self.path = path
        self.located = located

    @property
    def ignored(self) -> tuple[str, ...]:
        """What the source holds besides the release (folders end in ``/``), not read."""
        return self.located.ignored

    def entries(self, log: IssueLog) -> list[PackageEntry]:
        """Every file, sorted by path; problems are logged (the caller raises)."""
        raise NotImplementedError

    def hash(self, entry: PackageEntry) -> tuple[str, int]:
        """SHA-256 and byte count of ``entry``'s content as actually read."""
        digest = hashlib.sha256()
        size = 0
        with self.open_entry(entry) as handle:
            while chunk := handle.read(_READ_CHUNK):
                digest.update(chunk)
                size += len(chunk)
        return digest.hexdigest(), size

    def open_entry(self, entry: PackageEntry) -> BinaryIO:
        """A binary stream of ``entry``."""
        raise NotImplementedError

    def read_bytes(self, source: SourceFile) -> bytes:
        """The whole content of ``source``."""
        with self.open_binary(source) as handle:
            return handle.read()

    def open_binary(self, source: SourceFile) -> BinaryIO:
        """A binary stream of ``source``."""
        return self.open_entry(
            PackageEntry(source.path, source.absolute, source.bytes, source.member)
        )

    def close(self) -> None:
        """Release the archive (nothing to do for a directory)."""

    def __enter__(self) -> Package:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class DirectoryPackage(Package):
    """The extracted release directory. Links and special files are refused, not followed:
    a link could make the manifest describe files outside the package."""

    kind = "directory"

    def __init__(self, path: Path) -> None:
        files, folders = _scan(path)
        super().__init__(
            path,
            locate_release(files, folders, source_name=path.name, root_folder=path.name),
        )
        self._leftovers: list[str] = []

    @property
    def ignored(self) -> tuple[str, ...]:
        return tuple(sorted({*self.located.ignored, *self._leftovers}))

    def entries(self, log: IssueLog) -> list[PackageEntry]:
        found: list[PackageEntry] = []
        pending: list[tuple[Path, str]] = [(self.path / self.located.prefix, "")]
        while pending:
            directory, prefix = pending.pop()
            try:
                listed = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as error:
                log.error(IssueCode.SOURCE_UNREADABLE, f"cannot list a directory: {error.strerror}")
                continue
            for item in listed:
                relative = prefix + item.name
                if is_leftover(item.name, folder=item.is_dir(follow_symlinks=False)):
                    self._leftovers.append(self.located.prefix + relative + "/" * item.is_dir())
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError as error:
                    log.error(
                        IssueCode.SOURCE_UNREADABLE, f"cannot stat: {error.strerror}", relative
                    )
                    continue
                if stat.S_ISLNK(info.st_mode):
                    log.error(
                        IssueCode.SOURCE_SYMLINK,
                        "symbolic links are refused (the package must be plain files)",
                        relative,
                    )
                elif stat.S_ISDIR(info.st_mode):
                    pending.append((Path(item.path), relative + "/"))
                elif stat.S_ISREG(info.st_mode):
                    found.append(PackageEntry(relative, Path(item.path), info.st_size))
                else:
                    log.error(
                        IssueCode.SOURCE_NOT_REGULAR_FILE,
                        "not a regular file or directory",
                        relative,
                    )
        found.sort(key=lambda entry: entry.path)
        return found

    def hash(self, entry: PackageEntry) -> tuple[str, int]:
        # The manifest of a directory records the size the file system reports, as it
        # always has; the byte count read is only used for archives.
        digest, _read = super().hash(entry)
        return digest, entry.bytes

    def open_entry(self, entry: PackageEntry) -> BinaryIO:
        return entry.absolute.open("rb")

    def read_bytes(self, source: SourceFile) -> bytes:
        return FILE_READER.read_bytes(source)

    def open_binary(self, source: SourceFile) -> BinaryIO:
        return FILE_READER.open_binary(source)


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
        except _READ_ERRORS as error:
            raise _fail(
                IssueCode.ZIP_INVALID, f"member unreadable: {error}", self._member
            ) from None
        self._count += len(data)
        if self._count > self._declared:
            raise _fail(
                IssueCode.ZIP_TOO_LARGE,
                f"member yields more than its declared {self._declared} bytes",
                self._member,
            )
        if not data and len(view) and self._count != self._declared:
            raise _fail(
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


class ZipPackage(Package):
    """The ZIP as downloaded, checked whole on opening and read member by member.

    Holds one open :class:`zipfile.ZipFile` until :meth:`close`.
    """

    kind = "zip"

    def __init__(self, path: Path, limits: ZipLimits | None = None) -> None:
        self.limits = limits if limits is not None else ZipLimits()
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, EOFError, ValueError) as error:
            raise _fail(
                IssueCode.ZIP_INVALID, f"{path.name} is not a readable ZIP: {error}"
            ) from None
        except OSError as error:
            raise _fail(
                IssueCode.SOURCE_UNREADABLE, f"cannot read {path.name}: {error.strerror}"
            ) from None
        self._zip = archive
        try:
            files, folders = self._check(path, archive)
            located = locate_release(files, folders, source_name=path.name, root_folder=None)
        except BaseException:
            archive.close()
            raise
        super().__init__(path, located)
        prefix = located.prefix
        self._members = {
            name: info
            for name, info in files.items()
            if name.startswith(prefix) and not in_leftover(name[len(prefix) :])
        }

    # -- checks on the central directory, before any member is read ----------------------

    def _check(
        self, path: Path, archive: zipfile.ZipFile
    ) -> tuple[dict[str, zipfile.ZipInfo], set[str]]:
        infos = archive.infolist()
        limits = self.limits
        log = IssueLog()
        if len(infos) > limits.members:
            raise _fail(
                IssueCode.ZIP_TOO_LARGE,
                f"{path.name} has {len(infos)} members, more than the bound of {limits.members}",
            )
        for info in infos:
            problem = _unsafe(info)
            if problem is not None:
                log.error(IssueCode.ZIP_MEMBER_UNSAFE, problem, info.filename)
        log.raise_if_errors()
        total = 0
        for info in infos:
            name = info.filename
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
                raise _fail(
                    IssueCode.ZIP_TOO_LARGE,
                    f"{path.name} declares more than {limits.total_bytes} uncompressed bytes",
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
        _check_no_overlap(path, archive, infos, log)
        log.raise_if_errors()
        return _layout(infos, log)

    # -- reading ---------------------------------------------------------------------------

    def entries(self, log: IssueLog) -> list[PackageEntry]:
        prefix = self.located.prefix
        found = [
            PackageEntry(name[len(prefix) :], self.path, info.file_size, name)
            for name, info in self._members.items()
        ]
        found.sort(key=lambda entry: entry.path)
        return found

    def open_entry(self, entry: PackageEntry) -> BinaryIO:
        member = entry.member
        info = self._members.get(member) if member is not None else None
        if member is None or info is None:
            raise ValueError(f"{entry.path} is not a member of {self.path.name}")
        try:
            handle = self._zip.open(info)
        except _READ_ERRORS as error:
            raise _fail(IssueCode.ZIP_INVALID, f"member unreadable: {error}", member) from None
        return io.BufferedReader(_MemberStream(handle, member, info.file_size), _BUFFER)

    def close(self) -> None:
        self._zip.close()


def _unsafe(info: zipfile.ZipInfo) -> str | None:
    """Why a member could leave the package, or None."""
    name = info.filename
    if "\x00" in name:
        return "member name contains NUL"
    if "\\" in name:
        return "member name contains a backslash"
    if name.startswith("/"):
        return "member name is absolute"
    parts = name.split("/")
    if _DRIVE_RE.match(parts[0]):
        return "member name starts with a drive letter"
    inner = parts[:-1] if info.is_dir() else parts
    if any(part in {"", ".", ".."} for part in inner):
        return "member name has an empty, '.' or '..' component"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "symbolic-link members are refused"
    return None


def _check_no_overlap(
    path: Path, archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], log: IssueLog
) -> None:
    """Every member's data must end before the next member's header begins.

    Overlapping entries let a few KiB of compressed data be declared thousands of times over;
    the per-member checks cannot see that. The local headers are read for their real name and
    extra-field lengths (they may differ from the central directory's).
    """
    ordered = sorted(infos, key=lambda info: info.header_offset)
    limit = archive.start_dir
    try:
        with path.open("rb") as raw:
            for number, info in enumerate(ordered):
                raw.seek(info.header_offset)
                header = raw.read(_LOCAL_HEADER.size)
                if len(header) < _LOCAL_HEADER.size:
                    log.error(IssueCode.ZIP_INVALID, "local header truncated", info.filename)
                    continue
                fields = _LOCAL_HEADER.unpack(header)
                if fields[0] != _LOCAL_SIGNATURE:
                    log.error(IssueCode.ZIP_INVALID, "bad local header signature", info.filename)
                    continue
                end = info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]
                end += info.compress_size
                following = (
                    ordered[number + 1].header_offset if number + 1 < len(ordered) else limit
                )
                if end > following:
                    log.error(
                        IssueCode.ZIP_TOO_LARGE,
                        "member data overlaps the next member or the central directory",
                        info.filename,
                    )
    except OSError as error:
        log.error(IssueCode.SOURCE_UNREADABLE, f"cannot read {path.name}: {error.strerror}")


def _layout(
    infos: list[zipfile.ZipInfo], log: IssueLog
) -> tuple[dict[str, zipfile.ZipInfo], set[str]]:
    """The file members by name and the folders; unique paths, none both file and folder."""
    files: dict[str, zipfile.ZipInfo] = {}
    folded: dict[str, str] = {}
    directories: set[str] = set()
    for info in infos:
        name = info.filename
        if info.is_dir():
            directories.add(name.rstrip("/"))
            continue
        if name in files:
            log.error(IssueCode.ZIP_LAYOUT_INVALID, "two members have this path", name)
            continue
        key = _folded(name)
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


def _scan(root: Path) -> tuple[list[str], list[str]]:
    """Files and folders of the top :data:`SCAN_DEPTH` levels of a directory, links not
    followed (the walk of the release refuses them), leftover folders not entered."""
    files: list[str] = []
    folders: list[str] = []
    pending: list[tuple[Path, str, int]] = [(root, "", 0)]
    while pending and len(files) + len(folders) < _SCAN_ENTRIES:
        directory, prefix, depth = pending.pop()
        try:
            listed = list(os.scandir(directory))
        except OSError:
            continue  # the walk of the release reports what it cannot list
        for item in listed:
            relative = prefix + item.name
            try:
                is_folder = item.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if not is_folder:
                files.append(relative)
                continue
            folders.append(relative)
            if depth + 1 < SCAN_DEPTH and not is_leftover(item.name, folder=True):
                pending.append((Path(item.path), relative + "/", depth + 1))
    return files, folders


def _folded(name: str) -> str:
    """The name as a case-insensitive, normalising file system would compare it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def open_package(source: str | os.PathLike[str], *, zip_limits: ZipLimits | None = None) -> Package:
    """Open the package at ``source``: a release directory, or a ZIP holding one.

    Raises :class:`BuildError` (``SOURCE_NOT_DIRECTORY`` when ``source`` is neither, the
    ``ZIP_*`` codes for an archive that fails the checks). Close the result (it is a context
    manager): a ZIP stays open until then.
    """
    path = Path(os.path.abspath(source))
    if path.is_dir():
        return DirectoryPackage(path)
    if path.is_file():
        return ZipPackage(path, zip_limits)
    raise _fail(IssueCode.SOURCE_NOT_DIRECTORY, "the source is neither a directory nor a ZIP file")
