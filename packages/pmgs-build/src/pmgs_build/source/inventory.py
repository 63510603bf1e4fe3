"""The inventory of a PMGS package: every file, its size, hash, data group and parser.

It comes before any parsing because it identifies the source: the SHA-256 of its manifest
names the package a database was built from (setup re-takes it to prove the source did not
change), and it fixes the release id and the reference date every answer cites (ADR 0003).
Paths are relative to the release folder wherever it lies (ADR 0006, ADR 0019).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode, IssueLog
from pmgs_build.source.container import Package, ZipLimits, open_package
from pmgs_build.source.data_groups import (
    CLASSIFICATION_GROUPS,
    CSV_GROUPS,
    DOCUMENT_GROUPS,
    KNOWN_GROUPS,
)
from pmgs_build.source.files import ProgressEvent, SourceFile
from pmgs_build.source.next_steps import with_next_steps
from pmgs_build.source.parsers import ADAPTERS

__all__ = [
    "CLASSIFICATION_GROUPS",
    "CSV_GROUPS",
    "DOCUMENT_GROUPS",
    "KNOWN_GROUPS",
    "Inventory",
    "data_group_of",
    "inventory_of",
    "take_inventory",
    "validate_release_id",
]

_GROUPS_LONGEST_FIRST: Final = tuple(sorted(KNOWN_GROUPS, key=len, reverse=True))
_RELEASE_RE: Final = re.compile(r"JPPM[0-9]+")
_NAME_DATE_RE: Final = re.compile(r"_([0-9]{8})\.csv", re.IGNORECASE)
_UNKNOWN_ROOT_GROUP: Final = "."


@dataclass(frozen=True, slots=True)
class Inventory:
    """What a package is: its files, release id, reference date and manifest hash.

    ``root`` is the release directory, or the ZIP for a package read in place.
    """

    root: Path
    release_id: str
    reference_date: str
    files: tuple[SourceFile, ...]
    manifest_sha256: str
    warnings: tuple[BuildIssue, ...]
    release_path: str = ""
    """Where the release folder lies in the source (``""``: the source is the release)."""
    ignored: tuple[str, ...] = ()
    """What the source holds besides the release, not read (``SOURCE_IGNORED``)."""
    member_names: str = ""
    """How a ZIP's member names were decoded (``cp932``, ``utf-8``, …; ADR 0032)."""

    @property
    def total_bytes(self) -> int:
        """The size of the whole package."""
        return sum(f.bytes for f in self.files)

    def files_of(self, data_group: str) -> tuple[SourceFile, ...]:
        """The files of one data group, in path order (the order they are parsed in)."""
        return tuple(f for f in self.files if f.data_group == data_group)

    def manifest_text(self) -> str:
        """The canonical manifest: one JSON array ``[path, bytes, sha256]`` per line, sorted.

        JSON so that no file name (spaces, newlines, non-ASCII) can make two manifests equal.
        """
        return manifest_text(self.files)


def manifest_text(files: Iterable[SourceFile]) -> str:
    """The canonical manifest of ``files`` (see :meth:`Inventory.manifest_text`)."""
    lines = sorted(
        json.dumps([f.path, f.bytes, f.sha256], ensure_ascii=False, separators=(",", ":"))
        for f in files
    )
    return "".join(line + "\n" for line in lines)


def validate_release_id(release: str) -> str:
    """Return ``release`` if it is ``JPPM`` + digits, else raise ``RELEASE_ID_INVALID``."""
    if not _RELEASE_RE.fullmatch(release):
        raise BuildError(
            [
                BuildIssue(
                    "error",
                    IssueCode.RELEASE_ID_INVALID,
                    f"release id {release!r} is not JPPM followed by digits (e.g. JPPM2026002)",
                )
            ]
        )
    return release


def data_group_of(relative_path: str) -> str:
    """The data group of a file from its directory (``FI/FI/fi_G_….csv`` → ``FI/FI``).

    The longest known group that contains the file wins, so files in subdirectories of a
    group stay in it. A file in no known group gets its directory (``.`` at the root) as
    group, and the build warns about it. A root file named ``COPYRGHT…`` is the COPYRGHT.
    Directory names match in any letter case (``fi/fi_text``), as case-insensitive file
    systems and other writers of the format spell them.
    """
    directory, _, name = relative_path.rpartition("/")
    folded = directory.upper()
    for group in _GROUPS_LONGEST_FIRST:
        if folded == group or folded.startswith(group + "/"):
            return group
    if not directory and name.split(".", 1)[0].upper() == "COPYRGHT":
        return "COPYRGHT"
    return directory or _UNKNOWN_ROOT_GROUP


def _parser_for(group: str, relative_path: str) -> str | None:
    adapter = ADAPTERS.get(group)
    if adapter is None:
        return None
    if adapter.suffix and not relative_path.lower().endswith(adapter.suffix):
        return None
    return adapter.name


def _expected_companion(group: str, relative_path: str) -> bool:
    """A file its group's adapter knows to keep unparsed (the FI revision stylesheet)."""
    adapter = ADAPTERS.get(group)
    return adapter is not None and relative_path.lower().endswith(adapter.retained_suffixes)


def _reference_date(files: Iterable[SourceFile], log: IssueLog) -> str:
    """The single ``_YYYYMMDD`` of the classification CSV names, as an ISO date."""
    dates: dict[str, str] = {}
    for source in files:
        if source.data_group not in CLASSIFICATION_GROUPS:
            continue
        match = _NAME_DATE_RE.search(source.name)
        if match is not None:
            dates.setdefault(match.group(1), source.path)
    if not dates:
        log.error(
            IssueCode.REFERENCE_DATE_MISSING,
            "no FI, F-term or IPC code/text CSV name carries a _YYYYMMDD date",
        )
        return ""
    if len(dates) > 1:
        shown = ", ".join(f"{date} ({path})" for date, path in sorted(dates.items()))
        log.error(
            IssueCode.REFERENCE_DATE_AMBIGUOUS,
            f"classification CSV names carry {len(dates)} different dates: {shown}",
        )
        return ""
    (text, path), *_ = dates.items()
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:])).isoformat()
    except ValueError:
        log.error(IssueCode.REFERENCE_DATE_INVALID, f"{text} is not a calendar date", path)
        return ""


def take_inventory(
    source: str | os.PathLike[str],
    *,
    release: str | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
    zip_limits: ZipLimits | None = None,
) -> Inventory:
    """Walk, hash and classify every file of the package at ``source`` (directory or ZIP).

    Raises :class:`BuildError` for a package that cannot be identified with certainty (neither
    a directory nor a sound ZIP, links or special files, no valid release id, no single
    reference date). Warnings (unknown files) are returned in :attr:`Inventory.warnings`.
    ``zip_limits`` overrides the bounds a ZIP must stay within (:mod:`pmgs_build.source.container`).
    """
    with open_package(source, zip_limits=zip_limits) as package:
        return inventory_of(package, release=release, progress=progress)


def inventory_of(
    package: Package,
    *,
    release: str | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
) -> Inventory:
    """The inventory of an opened package (the build keeps it open to parse from it).
    A refusal of the source carries its next step (:mod:`pmgs_build.source.next_steps`)."""
    try:
        return _inventory_of(package, release, progress)
    except BuildError as error:
        raise with_next_steps(error) from None


def _inventory_of(
    package: Package, release: str | None, progress: Callable[[ProgressEvent], None] | None
) -> Inventory:
    log = IssueLog()
    release_id = validate_release_id(release if release is not None else _folder_id(package))
    entries = package.entries(log)
    log.raise_if_errors()
    total_bytes = sum(entry.bytes for entry in entries)
    done_bytes = 0
    files: list[SourceFile] = []
    for number, entry in enumerate(entries, start=1):
        relative = entry.path
        group = data_group_of(relative)
        try:
            digest, size = package.hash(entry)
        except OSError as error:
            log.error(IssueCode.SOURCE_UNREADABLE, f"cannot read: {error.strerror}", relative)
            continue
        parser = _parser_for(group, relative)
        if group not in KNOWN_GROUPS:
            log.warning(
                IssueCode.UNKNOWN_DATA_GROUP,
                f"file outside every known data group (group {group!r}); retained unparsed",
                relative,
            )
        elif parser is None and group in ADAPTERS and not _expected_companion(group, relative):
            log.warning(
                IssueCode.UNEXPECTED_FILE,
                f"not a {ADAPTERS[group].suffix} file of data group {group}; retained unparsed",
                relative,
            )
        files.append(
            SourceFile(number, relative, entry.absolute, size, digest, group, parser, entry.member)
        )
        done_bytes += entry.bytes
        if progress is not None:
            progress(ProgressEvent("inventory", group, done_bytes, total_bytes, "bytes"))
    log.raise_if_errors()
    for ignored in package.ignored:
        log.warning(IssueCode.SOURCE_IGNORED, "beside the release or left by a system", ignored)
    reference_date = _reference_date(files, log)
    log.raise_if_errors()
    manifest = manifest_text(files)
    return Inventory(
        root=package.path,
        release_id=release_id,
        reference_date=reference_date,
        files=tuple(files),
        manifest_sha256=hashlib.sha256(manifest.encode("utf-8")).hexdigest(),
        warnings=tuple(log.warnings()),
        release_path=package.located.prefix.rstrip("/"),
        ignored=package.ignored,
        member_names=package.member_names,
    )


def _folder_id(package: Package) -> str:
    """The release id its folder gives, or the error that asks for ``release=``."""
    folder = package.located.folder
    if folder is not None and _RELEASE_RE.fullmatch(folder):
        return folder
    if folder is None:
        why = "the release's files lie at the top of the archive, without their JPPM… folder"
    else:
        why = f"the release folder {folder!r} is not named JPPM followed by digits"
    message = f"{why}; name the release to build it (--release JPPM2026002, release=)"
    raise BuildError([BuildIssue("error", IssueCode.RELEASE_ID_INVALID, message)])
