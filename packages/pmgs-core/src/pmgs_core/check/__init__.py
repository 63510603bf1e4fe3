"""``check_codes``: are the codes of a saved search formula still valid in a release?

Searchers keep formulas for years; each release abolishes, splits and retitles codes. This
capability reads the codes out of a formula, a CSV column or a list
(:mod:`pmgs_core.check._formula`) and reports each occurrence with its position, scheme and
status in the release, quoting the revision records that say what replaced it
(:mod:`pmgs_core.check._status`). Nothing is rewritten, nothing is guessed: an untagged code
two schemes can read is ``ambiguous_scheme``, a code no record names is ``not_found``.
"""

from __future__ import annotations

import datetime
from typing import Final

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
    CheckStatus,
    CodeCheckItem,
    CodeCheckRecord,
    RevisionEvidence,
)
from pmgs_core.check._status import Resolution, StatusReader
from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, parse_code
from pmgs_core.records import CONTENT_ROLE, EVIDENCE_NOTICE
from pmgs_core.schema import SCHEMES

__all__ = [
    "ATTENTION_STATUSES",
    "CHECK_STATUSES",
    "MAX_CHECK_CODES",
    "MAX_INPUT_CHARS",
    "CheckMixin",
    "CheckStatus",
    "CodeCheckItem",
    "CodeCheckRecord",
    "RevisionEvidence",
]

MAX_CHECK_CODES: Final = 10_000
"""Most code occurrences one call reads (the MCP tool allows 200)."""


def _check_since(since: object) -> str | None:
    if since is None:
        return None
    try:
        return datetime.date.fromisoformat(str(since)).isoformat()
    except ValueError:
        raise PMGSQueryError(
            "INVALID_ARGUMENT", "since must be an ISO date such as 2026-04-01"
        ) from None


def _item(index: int, found: Occurrence, default_scheme: str | None) -> CodeCheckItem:
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
    item["match"] = "exact" if found.body == parsed.canonical else "normalised"
    return item


class CheckMixin(StatusReader):
    """The check capability of :class:`pmgs_core.PMGSStore`."""

    def check_codes(
        self,
        text: str,
        *,
        release: str = "current",
        since: str | None = None,
        scheme: str | None = None,
        input_kind: InputKind | None = None,
        column: str | None = None,
        max_codes: int = MAX_CHECK_CODES,
    ) -> CodeCheckRecord:
        """Every code occurrence of ``text`` with its status in the release.

        ``since`` (ISO date): a present FI code with a revision record dated on or after it
        is ``changed``. ``scheme``: the scheme of untagged codes (else read from the shape;
        two readings are ``ambiguous_scheme``). ``input_kind`` / ``column``: force how the
        text is read. More than ``max_codes`` occurrences is ``TOO_MANY_ITEMS``; bad syntax or
        an unknown tag is ``INVALID_QUERY`` with ``details.reason`` and the position.
        """
        self._check_release(release)
        if not isinstance(text, str):
            raise PMGSQueryError("INVALID_ARGUMENT", "text must be a string")
        if scheme is not None and scheme not in SCHEMES:
            raise PMGSQueryError("INVALID_SCHEME", "scheme must be one of fi, ipc, fterm")
        if input_kind not in (None, "formula", "lines", "csv"):
            raise PMGSQueryError("INVALID_ARGUMENT", "input_kind must be formula, lines or csv")
        checked_since = _check_since(since)
        kind, occurrences = read_occurrences(
            text, kind=input_kind, column=column, limit=max(1, min(max_codes, MAX_CHECK_CODES))
        )
        items = [_item(index, found, scheme) for index, found in enumerate(occurrences)]
        return self._locked(lambda: self._check(items, kind, checked_since))

    def _check(
        self, items: list[CodeCheckItem], kind: InputKind, since: str | None
    ) -> CodeCheckRecord:
        cache: dict[tuple[str, str], Resolution] = {}
        counts: dict[str, int] = {}
        for item in items:
            scheme, code = item["scheme"], item["code"]
            if scheme is not None and code is not None:
                key = (scheme, code)
                if key not in cache:
                    cache[key] = self._resolve(scheme, code, since)
                status, message, evidence = cache[key]
                item["status"], item["message"], item["revisions"] = status, message, evidence
            counts[item["status"]] = counts.get(item["status"], 0) + 1
        return {
            "record_type": "code_check",
            "release": self._release_ref(),
            "since": since,
            "input_kind": kind,
            "code_count": len(items),
            "needs_attention": sum(1 for item in items if item["status"] in ATTENTION_STATUSES),
            "status_counts": dict(sorted(counts.items())),
            "items": items,
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }
