"""Finding a concept and its revisions: what lookup, hierarchy and documents all start from.

A code is parsed with :mod:`pmgs_core.notation`, matched on the ``UNIQUE (scheme, edition,
code)`` index, and its revision valid at the release's reference date is chosen; two valid
revisions are an error rather than a guess (ADR 0004).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, TypedDict, cast

from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, InvalidSchemeError, parse_code, parse_ipc_version
from pmgs_core.records import DocumentRef, VersionInfo
from pmgs_core.schema import IPC_EDITIONS
from pmgs_core.store._arguments import (
    check_edition,
    check_language,
    check_scheme,
    placeholders,
    valid_at,
)
from pmgs_core.store._connection import StoreConnection

__all__ = ["ConceptReader", "DocumentHead", "document_head"]


class DocumentHead(TypedDict):
    """What every document summary opens with (a ``DocumentRef`` or ``DocumentListItem``)."""

    document_id: str
    kind: str
    language: str | None
    title: str


def document_head(row: Sequence[Any]) -> DocumentHead:
    """The head of a summary from a row that starts ``document_key, kind, language, title``."""
    return {
        "document_id": str(row[0]),
        "kind": str(row[1]),
        "language": row[2],
        "title": str(row[3]),
    }


@lru_cache(maxsize=4096)
def _parsed(scheme: str, code: str) -> tuple[str, str | None]:
    """Parsing an IPC code costs about as much as two of lookup's statements; agents ask the
    same codes again and again, and a code parses the same way every time (errors are not
    cached: they are raised again)."""
    parsed = parse_code(scheme, code)
    return parsed.canonical, parsed.version


_EDITION_PRIORITY = {name: index for index, name in enumerate(IPC_EDITIONS)}


def _preferred(rows: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The row of the concept to answer: canonical first, then by IPC edition priority (one
    candidate outside IPC); rows of the same concept tie, so the first of them is kept."""
    if not rows:
        return None
    return min(
        rows,
        key=lambda row: (row[5] != "canonical", _EDITION_PRIORITY.get(row[2], len(IPC_EDITIONS))),
    )


class ConceptReader(StoreConnection):
    """Concept resolution shared by the capability mixins (none of it is public)."""

    def _check_address(
        self, scheme: object, release: object, edition: object, language: object = "ja"
    ) -> tuple[str, str | None, str]:
        """The checked scheme, edition and language of a call that names one code, checked in
        the order every such call reports them (the code itself is parsed by the caller, after
        its own paging arguments)."""
        checked_scheme = check_scheme(scheme)
        self._check_release(release)
        checked_language = check_language(language)
        return checked_scheme, check_edition(checked_scheme, edition), checked_language

    def _parse(self, scheme: str, code: object) -> tuple[str, str | None]:
        """The canonical code and the IPC version written into it, if any."""
        try:
            if isinstance(code, str):
                return _parsed(scheme, code)
            parsed = parse_code(scheme, cast(str, code))
        except InvalidSchemeError:  # pragma: no cover - scheme checked before
            raise PMGSQueryError("INVALID_SCHEME", "scheme must be one of fi, ipc, fterm") from None
        except InvalidCodeError as error:
            raise PMGSQueryError(
                "INVALID_CODE",
                f"not a valid {scheme} code; expected {error.expected}",
                {"reason": error.reason} if error.reason else None,
            ) from None
        return parsed.canonical, parsed.version

    def _find_concept(self, scheme: str, code: str, edition: str | None) -> tuple[Any, ...] | None:
        """(id, scheme, edition, code, kind, status, source_file_id, locator) or None.

        Without an edition, an IPC code is taken from the first edition in the contract's
        priority (8U, 8B, 7, 7E, 6, 5, 4) that defines it; reference-only records are used
        only when no edition defines it.
        """
        return _preferred(self._concept_rows(scheme, code, edition, with_revisions=False))

    def _find_concept_revisions(
        self, scheme: str, code: str, edition: str | None
    ) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]] | None:
        """:meth:`_find_concept` and the concept's revisions in one statement (lookup's start).

        Revisions are (id, version, valid_from, valid_to, level, sequence, source_file_id,
        locator), undated first, then by date, version and id.
        """
        rows = self._concept_rows(scheme, code, edition, with_revisions=True)
        chosen = _preferred(rows)
        if chosen is None:
            return None
        revisions = [row[8:] for row in rows if row[0] == chosen[0] and row[8] is not None]
        return chosen[:8], revisions

    def _concept_rows(
        self, scheme: str, code: str, edition: str | None, *, with_revisions: bool
    ) -> list[tuple[Any, ...]]:
        """The candidate concepts of a code, each joined to its revisions when asked."""
        columns = "c.id, c.scheme, c.edition, c.code, c.kind, c.status, c.source_file_id, c.locator"
        source, order = "concept AS c", ""
        if with_revisions:
            columns += (
                ", v.id, v.version, v.valid_from, v.valid_to, v.level, v.sequence, "
                "v.source_file_id, v.locator"
            )
            source += " LEFT JOIN revision AS v ON v.concept_id = c.id"
            order = " ORDER BY c.id, v.valid_from IS NOT NULL, v.valid_from, v.version, v.id"
        one_edition = (
            f"SELECT {columns} FROM {source} "  # noqa: S608
            f"WHERE c.scheme = ? AND c.edition = ? AND c.code = ?{order}"
        )
        if scheme != "ipc" or edition is not None:
            return self._rows(one_edition, (scheme, edition or "", code))
        # A canonical code of the first edition wins whatever the others hold, and most codes
        # are one: one seek of the index instead of one per edition.
        first = self._rows(one_edition, ("ipc", IPC_EDITIONS[0], code))
        if first and first[0][5] == "canonical":
            return first
        # The edition list makes this a few seeks of the UNIQUE (scheme, edition, code) index
        # whatever the statistics say; there is no second index on code alone (ADR 0008).
        return self._rows(
            f"SELECT {columns} FROM {source} WHERE c.scheme = 'ipc' "  # noqa: S608
            f"AND c.edition IN ({placeholders(len(IPC_EDITIONS))}) AND c.code = ?{order}",
            (*IPC_EDITIONS, code),
        )

    def _active(self, revisions: list[tuple[Any, ...]], what: str) -> tuple[Any, ...] | None:
        """The one revision valid at the reference date, None if none; two is an error."""
        active = [row for row in revisions if valid_at(row[2], row[3], self._reference_date)]
        if len(active) > 1:
            raise PMGSQueryError(
                "MULTIPLE_ACTIVE_REVISIONS",
                f"{what} has {len(active)} revisions valid at the reference date "
                f"{self._reference_date}; refusing to pick one",
                {"versions": [str(row[1]) for row in active]},
            )
        return active[0] if active else None

    def _version_infos(self, revisions: list[tuple[Any, ...]]) -> list[VersionInfo]:
        """The versioned revisions (IPC), each with whether it is valid at the release."""
        return [
            {
                "version": str(row[1]),
                "valid_from": row[2],
                "valid_to": row[3],
                "valid_at_release": valid_at(row[2], row[3], self._reference_date),
            }
            for row in revisions
            if row[1]
        ]

    def _check_version(self, scheme: str, version: object, code_version: str | None) -> str | None:
        """The IPC version asked for: the argument, else the one written into the code."""
        if version is None:
            return code_version
        if scheme != "ipc":
            raise PMGSQueryError("INVALID_VERSION", "version applies only to IPC codes")
        if not isinstance(version, str):
            raise PMGSQueryError("INVALID_VERSION", "version must be a string such as 2006.01")
        try:
            checked = parse_ipc_version(version)
        except InvalidCodeError:
            raise PMGSQueryError(
                "INVALID_VERSION", "version must be an IPC version such as 2006.01"
            ) from None
        if code_version is not None and code_version != checked:
            raise PMGSQueryError(
                "INVALID_VERSION", "the code names a different version than the version argument"
            )
        return checked

    def _document_refs(self, concept_id: int, limit: int | None) -> tuple[list[DocumentRef], int]:
        """Documents linked to a concept, subjects first, and their total; shared by
        ``lookup`` (bounded) and ``related_documents`` (all)."""
        # The count of (document, role) groups rides on each row (a window over the groups,
        # evaluated before LIMIT): one statement instead of a count and a page.
        rows = self._rows(
            "SELECT d.document_key, d.kind, d.language, d.title, l.role, min(l.id), "
            "count(*) OVER () "
            "FROM document_link AS l JOIN document AS d ON d.id = l.document_id "
            "WHERE l.concept_id = ? GROUP BY d.id, l.role ORDER BY l.role DESC, d.kind, d.id "
            "LIMIT ?",
            (concept_id, -1 if limit is None else limit),
        )
        refs: list[DocumentRef] = [{**document_head(row), "role": str(row[4])} for row in rows]
        return refs, int(rows[0][6]) if rows else 0
