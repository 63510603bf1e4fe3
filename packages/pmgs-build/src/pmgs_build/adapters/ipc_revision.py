"""Placeholder: being written (issue 5)."""

from __future__ import annotations

from pmgs_build.adapters.base import BuildContext, FileResult
from pmgs_build.model import SourceFile

__all__ = ["parse_ipc_revision"]


def parse_ipc_revision(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one ``IPC_KAISEI/*.html``."""
    raise NotImplementedError
