"""The records of ``check_codes`` (``record_type: code_check``); schema in check.schema.json."""

from __future__ import annotations

from typing import Final, Literal, TypedDict, get_args

from pmgs_core.records import ReleaseRef, SourceRef

__all__ = [
    "ATTENTION_STATUSES",
    "CHECK_STATUSES",
    "CheckStatus",
    "CodeCheckItem",
    "CodeCheckRecord",
    "RevisionEvidence",
]

CheckStatus = Literal[
    "present",
    "changed",
    "abolished",
    "not_found",
    "not_valid_at_release",
    "theme_not_present",
    "ambiguous_scheme",
    "invalid_code",
]
CHECK_STATUSES: Final[tuple[CheckStatus, ...]] = get_args(CheckStatus)
ATTENTION_STATUSES: Final = frozenset(CHECK_STATUSES) - {"present"}
"""Every status but ``present`` needs the searcher's attention (CLI exit code 1)."""


class RevisionEvidence(TypedDict):
    """One revision record as the package states it; ``targets`` quoted, never inferred.

    FI: the ``<infor>`` elements of one change of one code (one per transfer target in the
    package), merged; ``sources`` has one entry per element. IPC: one ``IPC_KAISEI`` row.
    """

    kind: Literal["fi_revision", "ipc_revision"]
    action: str
    date: str | None
    title: str | None
    old_title: str | None
    new_title: str | None
    targets: list[str]
    document_id: str | None
    sources: list[SourceRef]


class CodeCheckItem(TypedDict):
    """One code occurrence of the input and its status in the release.

    ``line`` and ``column`` are 1-based (for a CSV cell: its record and column number);
    ``offset`` is the 0-based character offset in the input, -1 for a CSV cell.
    """

    index: int
    text: str
    line: int
    column: int
    offset: int
    tag: str | None
    scheme: str | None
    scheme_from: Literal["tag", "shape", "default"] | None
    candidate_schemes: list[str]
    code: str | None
    match: Literal["exact", "normalised"] | None
    status: CheckStatus
    message: str
    revisions: list[RevisionEvidence]


class CodeCheckRecord(TypedDict):
    """The answer of ``check_codes``: every occurrence, in input order, with counts."""

    record_type: Literal["code_check"]
    release: ReleaseRef
    since: str | None
    input_kind: Literal["formula", "lines", "csv"]
    code_count: int
    needs_attention: int
    status_counts: dict[str, int]
    items: list[CodeCheckItem]
    attribution: str
    content_role: str
    notice: str
