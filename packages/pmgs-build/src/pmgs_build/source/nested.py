"""ZIPs inside the source, one level deep, read in place; other archive formats refused with
the command that unpacks them (issue 43, ADR 0032).

People zip each data group on its own (``JPPM…/FI.zip``, ``JPPM…/FTERM.zip``) or keep the
download's ZIP in the folder they hand over. Such a ZIP stands for the folder of its name:
its members are placed in a folder named after it beside it (``JPPM…/FI.zip`` holding
``FI/FI_TEXT/x.csv`` gives ``JPPM…/FI/FI/FI_TEXT/x.csv``) — unless every member already lies
in a folder of that name (what "Send to > Compressed folder" makes), which is then not
doubled: ``FI.zip`` holding ``FI/FI/x.csv`` gives ``JPPM…/FI/FI/x.csv``. The placed paths
join the source's listing, so the release is found and the manifest made exactly as for the
tree the ZIPs extract to.

Which ZIPs are opened: those inside the release folder once it is found; when no release is
found without them, every ZIP of the listing (the release may be inside one). A ZIP beside
a found release is not opened (it is listed as ignored). A ZIP inside an inner ZIP is not
read: two levels of archive are refused with the step that unpacks the outer one.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO, Final

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode
from pmgs_build.source.find_release import Located, in_leftover, locate_release
from pmgs_build.source.zip_archive import CheckedZip, ZipLimits, fail

__all__ = [
    "Listing",
    "Window",
    "archive_kind",
    "locate_with_archives",
    "unpack_step",
    "unsupported",
]

_OTHER_SUFFIXES: Final = (
    (".tar.gz", "gzip-compressed tar"),
    (".tgz", "gzip-compressed tar"),
    (".tar.bz2", "bzip2-compressed tar"),
    (".tar.xz", "xz-compressed tar"),
    (".tar", "tar"),
    (".7z", "7-Zip"),
    (".rar", "RAR"),
    (".lzh", "LHA"),
    (".gz", "gzip"),
)
_MAGIC: Final = (
    (b"\x1f\x8b", "gzip-compressed tar"),
    (b"BZh", "bzip2-compressed tar"),
    (b"\xfd7zXZ\x00", "xz-compressed tar"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip"),
    (b"Rar!\x1a\x07", "RAR"),
)
_TAR_MAGIC: Final = (257, b"ustar")


def archive_kind(name: str, head: bytes = b"") -> str | None:
    """The archive format pmgs does not read that ``name`` (or its first bytes) shows, or
    None (a ZIP, or not an archive)."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    offset, magic = _TAR_MAGIC
    if head[offset : offset + len(magic)] == magic:
        return "tar"
    lower = name.lower()
    return next((kind for suffix, kind in _OTHER_SUFFIXES if lower.endswith(suffix)), None)


def unpack_step(name: str, kind: str, folder: str) -> str:
    """The command that unpacks the archive ``name`` of format ``kind`` into ``folder``
    (paths as the user sees them, relative to where the source lies)."""
    if kind == "ZIP":
        return f"unzip {name} -d {folder} (Windows: tar -xf {name} -C {folder})"
    if kind == "gzip":
        return f"gunzip -k {name}"
    command = f"mkdir {folder} && tar -xf {name} -C {folder}"
    if kind in {"7-Zip", "RAR", "LHA"}:
        return (
            f"{command} (Windows' tar and bsdtar read {kind}; elsewhere 7-Zip: "
            f"7z x {name} -o{folder})"
        )
    return command


def _stem(name: str) -> str:
    return PurePosixPath(name).name.split(".", 1)[0] or "unpacked"


def _inside(source: str, source_is_zip: bool, step: str) -> str:
    """``step`` (paths relative to the source's top) said for a folder or a ZIP source."""
    if not source_is_zip:
        return f"in the folder {source}: {step}; then run pmgs setup {source} again"
    folder = _stem(source)
    return (
        f"unpack {source} first ({unpack_step(source, 'ZIP', folder)}), then in the folder "
        f"{folder}: {step}; then run pmgs setup {folder}"
    )


def unsupported(
    name: str, kind: str, *, source: str | None = None, source_is_zip: bool = False
) -> BuildError:
    """``SOURCE_ARCHIVE_UNSUPPORTED`` for ``name`` (the source itself when ``source`` is
    None, else a file of the source ``source``), with the step that unpacks it."""
    stem = _stem(name)
    if source is None:
        where = f"the source {name}"
        step = f"{unpack_step(name, kind, stem)}, then run pmgs setup {stem}"
    else:
        where = f"{name} in {source}"
        folder = str(PurePosixPath(name).parent / stem)
        step = _inside(
            source, source_is_zip, f"{unpack_step(name, kind, folder)} and delete {name}"
        )
    return BuildError(
        [
            BuildIssue(
                "error",
                IssueCode.SOURCE_ARCHIVE_UNSUPPORTED,
                f"{where} is a {kind} archive; pmgs reads folders and ZIPs in place and no "
                f"other archive format. Next step: {step}",
                name,
            )
        ]
    )


class Window(io.RawIOBase):
    """``size`` bytes of the file ``path`` from ``offset``, seekable: a ZIP stored (not
    compressed) inside another ZIP, read in place without decompressing anything."""

    def __init__(self, handle: BinaryIO, offset: int, size: int) -> None:
        super().__init__()
        self._handle = handle
        self._offset = offset
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        count = max(0, min(len(view), self._size - self._position))
        if not count:
            return 0
        self._handle.seek(self._offset + self._position)
        data = self._handle.read(count)
        view[: len(data)] = data
        self._position += len(data)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


@dataclass(slots=True)
class Listing:
    """The source's files and folders with each opened ZIP replaced by its placed members;
    ``placed`` maps a placed path to its archive and name inside it."""

    files: list[str]
    folders: list[str]
    placed: dict[str, tuple[CheckedZip, str]] = field(default_factory=dict)
    opened: list[CheckedZip] = field(default_factory=list)
    by_member: dict[str, tuple[CheckedZip, str]] = field(default_factory=dict)
    """The same entries by their member key, ``zip path/name in it``."""


def locate_with_archives(
    listing: Listing,
    *,
    source_name: str,
    root_folder: str | None,
    open_zip: Callable[[str], CheckedZip],
    limits: ZipLimits,
    spent: int = 0,
) -> Located:
    """Find the release (ADR 0019), opening the ZIPs the module docstring says are opened
    (``open_zip(path)`` opens the one at ``path`` of the source) and splicing their members
    into ``listing``. ``spent`` is what the source's own archive already declares.

    Raises ``SOURCE_ARCHIVE_UNSUPPORTED`` for a tar, 7z, rar … archive inside the release
    (or anywhere, when no release is found), ``SOURCE_ARCHIVE_NESTED`` for an archive inside
    an inner ZIP, and the release finder's and the ZIP checks' errors.
    """
    try:
        located: Located | None = locate_release(
            listing.files, listing.folders, source_name=source_name, root_folder=root_folder
        )
    except BuildError as error:
        if error.code != IssueCode.RELEASE_FOLDER_NOT_FOUND:
            raise
        located, not_found = None, error
    prefix = located.prefix if located is not None else ""
    candidates = [f for f in listing.files if f.startswith(prefix) and not in_leftover(f)]
    for name in candidates:
        kind = archive_kind(name)
        if kind is not None:
            raise unsupported(name, kind, source=source_name, source_is_zip=root_folder is None)
    zips = sorted(name for name in candidates if name.lower().endswith(".zip"))
    if located is not None and not zips:
        return located
    if located is None and not zips:
        raise not_found
    for name in zips:
        inner = open_zip(name)
        listing.opened.append(inner)
        spent += inner.declared
        if spent > limits.total_bytes:
            raise fail(
                IssueCode.ZIP_TOO_LARGE,
                f"the source and the ZIPs in it declare more than {limits.total_bytes} "
                "uncompressed bytes",
                name,
            )
        _splice(listing, name, inner, source_name, root_folder is None)
    return locate_release(
        listing.files, listing.folders, source_name=source_name, root_folder=root_folder
    )


def _splice(
    listing: Listing, at: str, inner: CheckedZip, source_name: str, source_is_zip: bool
) -> None:
    place = _placement(at, inner.members)
    for name in inner.members:
        kind = archive_kind(name) or ("ZIP" if name.lower().endswith(".zip") else None)
        if kind is not None:
            folder = place.rstrip("/") or "."
            raise BuildError(
                [
                    BuildIssue(
                        "error",
                        IssueCode.SOURCE_ARCHIVE_NESTED,
                        f"{at} in {source_name} holds {name}, a {kind} archive inside a ZIP; "
                        "pmgs reads one level of ZIP in place. Next step: "
                        + _inside(
                            source_name,
                            source_is_zip,
                            f"{unpack_step(at, 'ZIP', folder)} and delete {at}",
                        ),
                        f"{at}/{name}",
                    )
                ]
            )
    listing.files.remove(at)
    folders = {place.rstrip("/")} if place else set()
    for name in inner.folders:
        folders.add(place + name)
    taken = {path.casefold() for path in listing.files}
    for name in inner.members:
        path = place + name
        if path.casefold() in taken:
            raise fail(
                IssueCode.ZIP_LAYOUT_INVALID,
                f"{at} holds {name}, whose place {path} the source already has a file at",
                path,
            )
        listing.files.append(path)
        listing.placed[path] = (inner, name)
        listing.by_member[f"{at}/{name}"] = (inner, name)
        parts = path.split("/")
        folders.update("/".join(parts[:end]) for end in range(1, len(parts)))
    listing.folders = sorted({*listing.folders, *folders})


def _placement(at: str, names: Iterable[str]) -> str:
    """The folder (ending in ``/``, or ``""``) the members of the ZIP at ``at`` go into."""
    parent, _, file = at.rpartition("/")
    base = parent + "/" if parent else ""
    stem = file[: -len(".zip")]
    folded = stem.casefold() + "/"
    if all(name.casefold().startswith(folded) for name in names):
        return base
    return base + stem + "/"
