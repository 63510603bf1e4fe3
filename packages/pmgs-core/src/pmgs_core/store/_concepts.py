"""Finding a concept and its revisions: what lookup, hierarchy and documents all start from.

A code is parsed with :mod:`pmgs_core.notation`, matched on the ``UNIQUE (scheme, edition,
code)`` index, and its revision valid at the release's reference date is chosen; two valid
revisions are an error rather than a guess (ADR 0004).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, cast

from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, InvalidSchemeError, parse_code, parse_ipc_version
from pmgs_core.records import DocumentRef, VersionInfo
from pmgs_core.schema import IPC_EDITIONS
from pmgs_core.store._arguments import placeholders, valid_at
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


class ConceptReader(StoreConnection):
    """Concept resolution shared by the capability mixins (none of it is public)."""

    def _parse(self, scheme: str, code: object) -> tuple[str, str | None]:
        """The canonical code and the IPC version written into it, if any."""
        try:
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
        columns = "id, scheme, edition, code, kind, status, source_file_id, locator"
        if scheme != "ipc" or edition is not None:
            return self._one(
                f"SELECT {columns} FROM concept WHERE scheme = ? AND edition = ? AND code = ?",  # noqa: S608
                (scheme, edition or "", code),
            )
        # The edition list makes this a few seeks of the UNIQUE (scheme, edition, code) index
        # whatever the statistics say; there is no second index on code alone (ADR 0008).
        rows = self._rows(
            f"SELECT {columns} FROM concept WHERE scheme = 'ipc' "  # noqa: S608
            f"AND edition IN ({placeholders(len(IPC_EDITIONS))}) AND code = ?",
            (*IPC_EDITIONS, code),
        )
        if not rows:
            return None
        priority = {name: index for index, name in enumerate(IPC_EDITIONS)}
        return min(
            rows, key=lambda row: (row[5] != "canonical", priority.get(row[2], len(priority)))
        )

    def _revisions(self, concept_id: int) -> list[tuple[Any, ...]]:
        """(id, version, valid_from, valid_to, level, sequence, source_file_id, locator)."""
        return self._rows(
            "SELECT id, version, valid_from, valid_to, level, sequence, source_file_id, locator "
            "FROM revision WHERE concept_id = ? ORDER BY valid_from IS NOT NULL, valid_from, "
            "version, id",
            (concept_id,),
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
        count_row = self._one(
            "SELECT count(*) FROM (SELECT DISTINCT document_id, role FROM document_link "
            "WHERE concept_id = ?)",
            (concept_id,),
        )
        rows = self._rows(
            "SELECT d.document_key, d.kind, d.language, d.title, l.role, min(l.id) "
            "FROM document_link AS l JOIN document AS d ON d.id = l.document_id "
            "WHERE l.concept_id = ? GROUP BY d.id, l.role ORDER BY l.role DESC, d.kind, d.id "
            "LIMIT ?",
            (concept_id, -1 if limit is None else limit),
        )
        refs: list[DocumentRef] = [{**document_head(row), "role": str(row[4])} for row in rows]
        return refs, int(count_row[0]) if count_row else 0
