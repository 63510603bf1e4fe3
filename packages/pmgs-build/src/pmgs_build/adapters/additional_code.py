"""Placeholder: being written (issue 5)."""

from __future__ import annotations

from collections.abc import Callable

from pmgs_build.adapters.base import BuildContext, FileResult
from pmgs_build.model import SourceFile

__all__ = ["additional_code_parser"]


def additional_code_parser(language: str) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of ``FTERM/ADD_CODE`` (ja) or ``FTERM/ADD_CODE_E`` (en)."""

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        raise NotImplementedError(language)

    return parse
