"""Finding the release inside what the user gave, by its structure (ADR 0019).

A directory or a ZIP may hold the release folder at its top, a few folders down (Windows'
"Extract All" makes ``X/X/JPPM…``), or its contents without the folder. The release is the
shallowest folder that holds a data group folder; what operating systems and people leave
beside it is ignored and listed, never read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode
from pmgs_build.source.data_groups import CLASSIFICATION_GROUPS, KNOWN_GROUPS

__all__ = [
    "MAX_DEPTH",
    "SCAN_DEPTH",
    "Located",
    "in_leftover",
    "is_leftover",
    "locate_release",
]

MAX_DEPTH: Final = 3
"""How many folders down the release folder may sit: ``X/X/JPPM…`` is two, and a ZIP of
that (``Y/X/X/JPPM…``) three."""
SCAN_DEPTH: Final = MAX_DEPTH + max(group.count("/") + 1 for group in KNOWN_GROUPS)
"""How many folder levels must be listed to see every group folder of every candidate."""

_EVIDENCE: Final = tuple(sorted(CLASSIFICATION_GROUPS))
"""Folders whose presence makes a folder the release: the code/text groups every release has
(a lone ``JUDGE`` or ``COPYRGHT`` folder is too common a name to be evidence)."""

_LEFTOVER_FOLDERS: Final = frozenset(
    {
        "__macosx",
        ".spotlight-v100",
        ".fseventsd",
        ".trashes",
        ".temporaryitems",
        "$recycle.bin",
        "system volume information",
    }
)
_LEFTOVER_FILES: Final = frozenset({".ds_store", "thumbs.db", "ehthumbs.db", "desktop.ini"})
_LEFTOVER_PREFIXES: Final = ("._", "~$")
_SHOWN: Final = 12
_EXAMPLE: Final = "FI/FI/fi_A_20260331.csv"


def is_leftover(name: str, *, folder: bool) -> bool:
    """A file or folder an operating system or an editor leaves behind (resource forks,
    Finder and Explorer caches, Office lock files): never part of a release."""
    folded = name.casefold()
    if folder:
        return folded in _LEFTOVER_FOLDERS
    return folded in _LEFTOVER_FILES or folded.startswith(_LEFTOVER_PREFIXES)


@dataclass(frozen=True, slots=True)
class Located:
    """Where the release is: ``prefix`` (``""``, ``"A/"`` or ``"A/B/"``) starts its paths,
    ``folder`` is the release folder's name (None: its contents lie at the top of a ZIP),
    ``ignored`` lists what beside it is not read (folders end in ``/``)."""

    prefix: str
    folder: str | None
    ignored: tuple[str, ...]


def locate_release(
    files: Iterable[str], directories: Iterable[str], *, source_name: str, root_folder: str | None
) -> Located:
    """The release among ``files`` and ``directories`` (paths relative to the source, ``/``
    separated, at least :data:`SCAN_DEPTH` folder levels of them).

    ``root_folder`` is the source's own folder name (a directory) or None (a ZIP). Raises
    ``RELEASE_FOLDER_NOT_FOUND`` or ``RELEASE_FOLDER_AMBIGUOUS``.
    """
    files, directories = list(files), list(directories)
    file_list = [f for f in files if not in_leftover(f)]
    folders = {d.rstrip("/") for d in directories if d and not in_leftover(d + "/")}
    for path in file_list:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    folded = {folder.casefold() for folder in folders}
    for depth in range(MAX_DEPTH + 1):
        found = [
            prefix
            for prefix in _candidates(folders, depth)
            if any((prefix + group).casefold() in folded for group in _EVIDENCE)
        ]
        if len(found) > 1:
            raise _error(
                IssueCode.RELEASE_FOLDER_AMBIGUOUS,
                f"{source_name} holds {len(found)} releases at the same depth: "
                f"{', '.join(found)}; give the one to build",
            )
        if found:
            prefix = found[0]
            folder = prefix.rstrip("/").rsplit("/", 1)[-1] if prefix else root_folder
            return Located(prefix, folder, _ignored(prefix, files, directories))
    raise _not_found(source_name, file_list, folders)


def _candidates(folders: set[str], depth: int) -> list[str]:
    if depth == 0:
        return [""]
    return sorted(f + "/" for f in folders if f.count("/") == depth - 1)


def in_leftover(path: str) -> bool:
    """``path`` (folders end in ``/``) is a leftover or lies in a leftover folder."""
    parts = path.split("/")
    return any(is_leftover(part, folder=True) for part in parts[:-1]) or is_leftover(
        parts[-1], folder=False
    )


def _ignored(prefix: str, files: Iterable[str], directories: Iterable[str]) -> tuple[str, ...]:
    """Every file outside the release, and every leftover inside it, folders collapsed: a
    leftover folder to itself, anything else to its entry at the top two levels."""
    shown: set[str] = set()
    for path in [*files, *(d.rstrip("/") + "/" for d in directories if d)]:
        parts = path.split("/")
        leftover = next(
            (end for end, part in enumerate(parts[:-1]) if is_leftover(part, folder=True)), None
        )
        if leftover is not None:
            shown.add("/".join(parts[: leftover + 1]) + "/")
        elif not path.startswith(prefix):
            if path.endswith("/") and prefix.startswith(path):  # holds the release
                continue
            depth = 2 if len(parts) > 2 else len(parts)
            entry = "/".join(parts[:depth])
            shown.add(entry + "/" if depth < len(parts) else entry)
        elif parts[-1] and is_leftover(parts[-1], folder=False):
            shown.add(path)
    return tuple(sorted(shown))


def _not_found(source_name: str, files: list[str], folders: set[str]) -> BuildError:
    top = sorted(
        {f + "/" for f in folders if f.count("/") <= 1} | {f for f in files if f.count("/") <= 1}
    )
    shown = ", ".join(top[:_SHOWN]) + (
        f" and {len(top) - _SHOWN} more" if len(top) > _SHOWN else ""
    )
    return _error(
        IssueCode.RELEASE_FOLDER_NOT_FOUND,
        f"no PMGS release in {source_name}: looked at its top and up to {MAX_DEPTH} folders "
        f"down for a folder holding a code/text data group folder ({', '.join(_EVIDENCE)}; "
        f"files such as {_EXAMPLE}); its top two levels hold {shown or 'nothing'}. Give the "
        "JPPM… release folder or the ZIP as downloaded",
    )


def _error(code: str, message: str) -> BuildError:
    return BuildError([BuildIssue("error", code, message)])
