"""Where the package's bytes come from: a directory, or the ZIP as downloaded, read in place.

Every ZIP check is made on the central directory before a member is decompressed, and a
member's declared size is still not trusted while it is read (ADR 0006;
:mod:`pmgs_build.source.zip_archive`). ZIPs inside the source are read in place one level
deep, other archive formats refused with the command that unpacks them
(:mod:`pmgs_build.source.nested`, ADR 0032). In either form the
release is found by its structure (:mod:`pmgs_build.source.find_release`, ADR 0019); paths
are relative to the release folder, so a ZIP and the tree it extracts to give the same
manifest.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO, Final, Protocol

from pmgs_build.build_issues import BuildError, IssueCode, IssueLog
from pmgs_build.source.files import SourceFile
from pmgs_build.source.find_release import SCAN_DEPTH, Located, in_leftover, is_leftover
from pmgs_build.source.nested import (
    Listing,
    Window,
    archive_kind,
    locate_with_archives,
    unsupported,
)
from pmgs_build.source.next_steps import with_next_steps
from pmgs_build.source.zip_archive import (
    MAX_ZIP_MEMBERS,
    MAX_ZIP_RATIO,
    MAX_ZIP_TOTAL_BYTES,
    RATIO_FLOOR_BYTES,
    READ_ERRORS,
    CheckedZip,
    ZipLimits,
    fail,
    folded_name,
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

_SCAN_ENTRIES: Final = 100_000
"""Entries the search for the release lists at most (a source far larger is not a release)."""
_READ_CHUNK: Final = 1 << 20
_BUFFER: Final = 1 << 16
_SNIFF: Final = 512
"""Bytes read to tell an archive's format (a tar header's magic is at 257)."""


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


_fail = fail


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
    member_names: str = ""
    """How a ZIP's member names were decoded (``cp932``, ``utf-8``, …; ADR 0032); ``""`` for
    a directory."""

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
    a link could make the manifest describe files outside the package. ZIPs in it (a data
    group zipped on its own, the download kept in the folder) are read in place
    (:mod:`pmgs_build.source.nested`)."""

    kind = "directory"

    def __init__(self, path: Path, limits: ZipLimits | None = None) -> None:
        self.limits = limits if limits is not None else ZipLimits()
        files, folders = _scan(path)
        self._listing = Listing(files, folders)
        try:
            located = locate_with_archives(
                self._listing,
                source_name=path.name,
                root_folder=path.name,
                open_zip=lambda name: CheckedZip(name, path / name, self.limits),
                limits=self.limits,
            )
        except BaseException:
            _close_all(self._listing.opened)
            raise
        super().__init__(path, located)
        self.member_names = _describe(self._listing.opened)
        self._replaced = {archive.label for archive in self._listing.opened}
        self._leftovers: list[str] = []

    @property
    def ignored(self) -> tuple[str, ...]:
        return tuple(sorted({*self.located.ignored, *self._leftovers}))

    def entries(self, log: IssueLog) -> list[PackageEntry]:
        prefix = self.located.prefix
        found: list[PackageEntry] = []
        top = self.path / prefix
        pending: list[tuple[Path, str]] = [(top, "")] if top.is_dir() else []
        while pending:
            directory, within = pending.pop()
            try:
                listed = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as error:
                log.error(IssueCode.SOURCE_UNREADABLE, f"cannot list a directory: {error.strerror}")
                continue
            for item in listed:
                relative = within + item.name
                if is_leftover(item.name, folder=item.is_dir(follow_symlinks=False)):
                    self._leftovers.append(prefix + relative + "/" * item.is_dir())
                    continue
                if prefix + relative in self._replaced:
                    continue  # a ZIP read in place: its members follow
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
        for placed, (archive, name) in self._listing.placed.items():
            if placed.startswith(prefix) and not in_leftover(placed[len(prefix) :]):
                size = archive.members[name].file_size
                member = f"{archive.label}/{name}"
                found.append(PackageEntry(placed[len(prefix) :], self.path, size, member))
        return _unique(found, log)

    def hash(self, entry: PackageEntry) -> tuple[str, int]:
        # The manifest of a directory records the size the file system reports, as it
        # always has; the byte count read is only used for archives.
        digest, size = super().hash(entry)
        return digest, entry.bytes if entry.member is None else size

    def open_entry(self, entry: PackageEntry) -> BinaryIO:
        if entry.member is not None:
            return _open_placed(self._listing, entry, self.path.name)
        return entry.absolute.open("rb")

    def read_bytes(self, source: SourceFile) -> bytes:
        if source.member is not None:
            return super().read_bytes(source)
        return FILE_READER.read_bytes(source)

    def open_binary(self, source: SourceFile) -> BinaryIO:
        if source.member is not None:
            return super().open_binary(source)
        return FILE_READER.open_binary(source)

    def close(self) -> None:
        _close_all(self._listing.opened)


class ZipPackage(Package):
    """The ZIP as downloaded, checked whole on opening and read member by member; ZIPs in it
    (one level) are opened and checked the same way and read in place.

    Holds the open archives until :meth:`close`.
    """

    kind = "zip"

    def __init__(self, path: Path, limits: ZipLimits | None = None) -> None:
        self.limits = limits if limits is not None else ZipLimits()
        self.path = path  # before the release is located: inner ZIPs are read from it
        self._zip = CheckedZip(path.name, path, self.limits)
        self._listing = Listing(list(self._zip.members), sorted(self._zip.folders))
        try:
            located = locate_with_archives(
                self._listing,
                source_name=path.name,
                root_folder=None,
                open_zip=self._open_inner,
                limits=self.limits,
                spent=self._zip.declared,
            )
        except BaseException:
            self.close()
            raise
        super().__init__(path, located)
        self.member_names = _describe(self._listing.opened, self._zip)

    def _open_inner(self, name: str) -> CheckedZip:
        """The ZIP member ``name`` as a ZIP: a stored one through a window on the file, a
        compressed one through zipfile's seekable member stream (no copy on disk)."""
        outer = self._zip
        info = outer.members[name]
        stream: IO[bytes]
        try:
            if info.compress_type == zipfile.ZIP_STORED:
                offset = outer.data_offset(info)
                window = Window(self.path.open("rb"), offset, info.compress_size)
                stream = io.BufferedReader(window, _BUFFER)
            else:
                stream = outer.archive.open(info)
        except READ_ERRORS as error:
            raise _fail(IssueCode.ZIP_INVALID, f"member unreadable: {error}", name) from None
        return CheckedZip(name, stream, self.limits)

    # -- reading ---------------------------------------------------------------------------

    def entries(self, log: IssueLog) -> list[PackageEntry]:
        prefix = self.located.prefix
        found: list[PackageEntry] = []
        for name in self._listing.files:
            if not name.startswith(prefix) or in_leftover(name[len(prefix) :]):
                continue
            placed = self._listing.placed.get(name)
            archive, member = placed if placed is not None else (self._zip, name)
            key = member if placed is None else f"{archive.label}/{member}"
            size = archive.members[member].file_size
            found.append(PackageEntry(name[len(prefix) :], self.path, size, key))
        return _unique(found, log)

    def open_entry(self, entry: PackageEntry) -> BinaryIO:
        if entry.member is not None and entry.member in self._zip.members:
            return self._zip.open(entry.member, entry.member)
        return _open_placed(self._listing, entry, self.path.name)

    def close(self) -> None:
        _close_all([*self._listing.opened, self._zip] if hasattr(self, "_listing") else [])


def _open_placed(listing: Listing, entry: PackageEntry, source: str) -> BinaryIO:
    """A member of a ZIP inside the source (``entry.member`` is ``zip path/member name``)."""
    found = listing.by_member.get(entry.member) if entry.member is not None else None
    if found is None or entry.member is None:
        raise ValueError(f"{entry.path} is not a member of {source}")
    archive, name = found
    return archive.open(name, entry.member)


def _unique(found: list[PackageEntry], log: IssueLog) -> list[PackageEntry]:
    """``found`` sorted by path; two of one path (in any case) are logged as errors."""
    found.sort(key=lambda entry: entry.path)
    seen: dict[str, str] = {}
    for entry in found:
        key = folded_name(entry.path)
        if key in seen:
            log.error(
                IssueCode.ZIP_LAYOUT_INVALID,
                f"two files have this path (also {seen[key]!r}), one of them from a ZIP",
                entry.path,
            )
        seen[key] = entry.path
    return found


def _describe(archives: list[CheckedZip], source: CheckedZip | None = None) -> str:
    """``member_names`` of the report: how the names of the source's ZIP (``source``) and of
    the ZIPs inside it were read; each labelled when there is more than the source's."""
    if source is not None and not archives:
        return source.names.describe()
    every = [source, *archives] if source is not None else archives
    return "; ".join(f"{archive.label}: {archive.names.describe()}" for archive in every)


def _close_all(archives: list[CheckedZip]) -> None:
    for archive in archives:
        archive.close()


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


def open_package(source: str | os.PathLike[str], *, zip_limits: ZipLimits | None = None) -> Package:
    """Open the package at ``source``: a release directory, or a ZIP holding one.

    Raises :class:`BuildError` (``SOURCE_NOT_DIRECTORY`` when ``source`` is neither,
    ``SOURCE_ARCHIVE_UNSUPPORTED`` with the command that unpacks a tar, 7z, rar … archive,
    the ``ZIP_*`` codes for an archive that fails the checks). Close the result (it is a
    context manager): a ZIP stays open until then.
    """
    path = Path(os.path.abspath(source))
    try:
        return _open(path, zip_limits)
    except BuildError as error:
        raise with_next_steps(error) from None


def _open(path: Path, zip_limits: ZipLimits | None) -> Package:
    if path.is_dir():
        return DirectoryPackage(path, zip_limits)
    if path.is_file():
        try:
            with path.open("rb") as handle:
                head = handle.read(_SNIFF)
        except OSError as error:
            raise _fail(
                IssueCode.SOURCE_UNREADABLE, f"cannot read {path.name}: {error.strerror}"
            ) from None
        kind = None if head.startswith(b"PK") else archive_kind(path.name, head)
        if kind is not None:
            raise unsupported(path.name, kind)
        return ZipPackage(path, zip_limits)
    raise _fail(IssueCode.SOURCE_NOT_DIRECTORY, "the source is neither a directory nor a ZIP file")
