"""Placeholder: being written (issue 5)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pmgs_build.adapters.base import BuildContext, FileResult
from pmgs_build.model import SourceFile

__all__ = ["parse_ipc_definition", "parse_ipc_definitions"]


def parse_ipc_definition(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one ``REFERENCE/IPC_TEIGI/*.pdf``."""
    raise NotImplementedError


def parse_ipc_definitions(
    ctx: BuildContext, sources: Sequence[SourceFile]
) -> Iterator[tuple[SourceFile, FileResult]]:
    """Read every definition PDF, extracting text in a process pool."""
    raise NotImplementedError
