"""The records of ``check_codes`` (``record_type: code_check``); schema in check.schema.json."""

from __future__ import annotations

from typing import Final, Literal, TypedDict, get_args

from pmgs_core.records import ReleaseRef, SourceRef

__all__ = [
    "ATTENTION_STATUSES",
    "CHECK_STATUSES",
    "MAX_TRANSFER_DEPTH",
    "MAX_TRANSFER_STEPS",
    "PRESENT_STATUSES",
    "CheckStatus",
    "CodeCheckItem",
    "CodeCheckRecord",
    "RevisionEvidence",
    "TransferStep",
    "TransferTarget",
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
PRESENT_STATUSES: Final = frozenset({"present", "changed"})
"""A code with one of these is in the release: a transfer chain ends there."""
MAX_TRANSFER_DEPTH: Final = 8
"""How many records deep a chain of transfers is followed from one target. Real chains are a
revision or two; the bound is there so that a damaged or hostile record set cannot make one
call walk without end."""
MAX_TRANSFER_STEPS: Final = 64
"""Most steps listed for one target (a chain can branch at every record)."""


TransferStep = TypedDict(
    "TransferStep",
    {
        "from": str,
        "depth": int,
        "text": str,
        "code": str | None,
        "status": CheckStatus,
        "cycle": bool,
    },
)
"""One transfer record followed beyond a target: ``from`` moved to ``code`` (functional
form: ``from`` is a keyword). ``text`` is the record's own text, ``code`` its canonical
reading (None when it reads as no code of the scheme); ``depth`` 1 is a target of the
target. ``cycle``: ``code`` is already on this chain, so it is not followed again."""


class TransferTarget(TypedDict):
    """One transfer target of a revision record, read and checked in the release.

    ``text`` is what the record writes (evidence; the package writes some targets in its
    fixed-width layout), ``code`` the canonical notation (parseable by
    :func:`pmgs_core.parse_code`, pasteable into a formula; None when the text reads as no
    code of ``scheme``) and ``status`` its own status in the release. An abolished target's
    records are followed (``chain``, depth first in record order) to the codes present in
    the release (``leads_to``; the target itself when present). ``cycle``: a record leads
    back to a code already on the chain; ``depth_limited``: the chain went deeper than
    :data:`MAX_TRANSFER_DEPTH` records or past :data:`MAX_TRANSFER_STEPS` steps, and was
    not followed further.
    """

    text: str
    scheme: Literal["fi", "ipc"]
    code: str | None
    status: CheckStatus
    message: str
    leads_to: list[str]
    chain: list[TransferStep]
    cycle: bool
    depth_limited: bool


class RevisionEvidence(TypedDict):
    """One revision record as the package states it; ``targets`` read, never inferred.

    FI: the ``<infor>`` elements of one change of one code (one per transfer target in the
    package), merged; ``sources`` has one entry per element. IPC: one ``IPC_KAISEI`` row.
    Each target keeps the record's own text beside its canonical code and status.
    """

    kind: Literal["fi_revision", "ipc_revision"]
    action: str
    date: str | None
    title: str | None
    old_title: str | None
    new_title: str | None
    targets: list[TransferTarget]
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
