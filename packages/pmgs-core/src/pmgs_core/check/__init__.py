"""``check_codes``: are the codes of a saved search formula still valid in a release?

Searchers keep formulas for years; each release abolishes, splits and retitles codes. This
capability reads the codes out of a formula, a CSV column or a list
(:mod:`pmgs_core.check._formula`) and reports each occurrence with its position, scheme and
status in the release, quoting the revision records that say what replaced it
(the store's ``check_codes``, :mod:`pmgs_core.store._check`). Nothing is rewritten, nothing
is guessed: an untagged code two schemes can read is ``ambiguous_scheme``, a code no record
names is ``not_found``.
"""

from __future__ import annotations

import datetime

from pmgs_core.check._formula import (
    MAX_INPUT_CHARS,
    TAGS,
    InputKind,
    Occurrence,
    code_text,
    read_occurrences,
    schemes_of,
)
from pmgs_core.check._records import (
    ATTENTION_STATUSES,
    CHECK_STATUSES,
    MAX_TRANSFER_DEPTH,
    MAX_TRANSFER_STEPS,
    PRESENT_STATUSES,
    CheckStatus,
    CodeCheckItem,
    CodeCheckRecord,
    RevisionEvidence,
    TransferStep,
    TransferTarget,
)
from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, parse_code
from pmgs_core.records import MAX_CHECK_CODES

__all__ = [
    "ATTENTION_STATUSES",
    "CHECK_STATUSES",
    "MAX_CHECK_CODES",
    "MAX_INPUT_CHARS",
    "MAX_TRANSFER_DEPTH",
    "MAX_TRANSFER_STEPS",
    "PRESENT_STATUSES",
    "CheckStatus",
    "CodeCheckItem",
    "CodeCheckRecord",
    "InputKind",
    "RevisionEvidence",
    "TransferStep",
    "TransferTarget",
    "check_since",
    "occurrence_item",
    "read_occurrences",
]


def check_since(since: object) -> str | None:
    if since is None:
        return None
    try:
        return datetime.date.fromisoformat(str(since)).isoformat()
    except ValueError:
        raise PMGSQueryError(
            "INVALID_ARGUMENT", "since must be an ISO date such as 2026-04-01"
        ) from None


def occurrence_item(index: int, found: Occurrence, default_scheme: str | None) -> CodeCheckItem:
    """The item of one occurrence before its status is known (scheme and canonical code)."""
    body = code_text(found.body)
    item: CodeCheckItem = {
        "index": index,
        "text": found.text,
        "line": found.line,
        "column": found.column,
        "offset": found.offset,
        "tag": found.tag,
        "scheme": None,
        "scheme_from": None,
        "candidate_schemes": [],
        "code": None,
        "match": None,
        "status": "invalid_code",
        "message": "",
        "revisions": [],
    }
    if found.tag is not None:
        schemes, item["scheme_from"] = [TAGS[found.tag]], "tag"
    elif default_scheme is not None:
        schemes, item["scheme_from"] = [default_scheme], "default"
    else:
        schemes, item["scheme_from"] = schemes_of(found.body), "shape"
        item["candidate_schemes"] = list(schemes)
        if len(schemes) > 1:
            item["status"] = "ambiguous_scheme"
            item["message"] = f"read as {' or '.join(schemes)}; add /FI, /FT or /IP"
            return item
        if not schemes:
            item["message"] = "no FI, F-term or IPC notation reads this code"
            return item
    scheme = schemes[0]
    item["scheme"] = scheme
    try:
        parsed = parse_code(scheme, body)
    except InvalidCodeError as error:
        item["message"] = f"not a valid {scheme} code; expected {error.expected}"
        return item
    item["code"] = parsed.canonical
    # ``body`` is the folded text: full-width input is never an exact match
    exact = found.body == parsed.canonical and found.text.isascii()
    item["match"] = "exact" if exact else "normalised"
    return item
