"""The adapter contract (:class:`Adapter`, :data:`GroupParser`) and the one place adapters
import their tools from: the build context (:mod:`.context`) and the CSV reader
(:mod:`.csv_reader`) are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.context import (
    NOT_TRANSLATED,
    BuildContext,
    Code,
    DocumentState,
    FileResult,
    SharedState,
)
from pmgs_build.source.parsers.csv_reader import CsvRecords, decode_cp932

__all__ = [
    "NOT_TRANSLATED",
    "Adapter",
    "BuildContext",
    "Code",
    "CsvRecords",
    "DocumentState",
    "FileResult",
    "GroupParser",
    "LevelStack",
    "SharedState",
    "decode_cp932",
]


class LevelStack:
    """Parents from level order: a row's parent is the nearest earlier row of a smaller level.

    Holds (level, concept id) of the current ancestor chain only.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, int]] = []

    def push(self, level: int, concept_id: int) -> int | None:
        """Enter a row; return its parent's concept id (None at the top)."""
        stack = self._stack
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        stack.append((level, concept_id))
        return parent


GroupParser = Callable[
    ["BuildContext", Sequence[SourceFile]], Iterator[tuple[SourceFile, FileResult]]
]
"""Reads all files of a group at once (yielding each file's result in input order), for
groups whose files are worth reading in parallel (the definition PDFs)."""


@dataclass(frozen=True, slots=True)
class Adapter:
    """One data group's parser: how it is named, when it runs and which files it reads.

    ``phase`` orders the groups so that references resolve: code tables (10-19) before the
    texts and translations that need them (20-29), before relations and documents (30-39).
    ``suffix`` selects the files the adapter reads; files of the group ending in one of
    ``retained_suffixes`` are expected companions (the FI revision stylesheet) and are kept
    unparsed without a warning. ``parse_group``, when set, is used instead of calling
    ``parse`` per file.
    """

    name: str
    data_group: str
    phase: int
    suffix: str
    parse: Callable[[BuildContext, SourceFile], FileResult]
    retained_suffixes: tuple[str, ...] = ()
    parse_group: GroupParser | None = None
