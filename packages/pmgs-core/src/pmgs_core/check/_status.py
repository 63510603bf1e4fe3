"""What one code is in a release: present, changed, abolished, not valid, or not there.

Evidence comes only from the database: the FI revision documents (one segment per
``<infor>`` element, heading = the code) and the IPC revision table's ``amended_to`` edges.
Transfer targets are the ``移行先`` fields of those records as stored, never computed from
the hierarchy or the concordance; a code with several targets has several records, and all
of them are returned.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from pmgs_core.check._records import CheckStatus, RevisionEvidence
from pmgs_core.notation import parse_code

if TYPE_CHECKING:
    from pmgs_core.store._connection import StoreConnection

    _Base = StoreConnection
else:
    # PMGSStore (pmgs_core.store) is assembled from this mixin, so the store package cannot
    # be imported here at run time; the connection plumbing comes with PMGSStore itself.
    _Base = object

__all__ = ["Resolution", "StatusReader"]

_LABEL: Final = "(?:旧名称|新名称|名称|移行先|日付)"
_FIELD: Final = re.compile(rf"(?:\A| / )({_LABEL}): (.*?)(?= / {_LABEL}: |\Z)", re.DOTALL)
_NAMES: Final = {"名称": "title", "旧名称": "old_title", "新名称": "new_title", "日付": "date"}

Resolution = tuple[CheckStatus, str, list[RevisionEvidence]]


def _fields(body: str) -> dict[str, str]:
    """The labelled fields of a revision segment body (format in docs/database.md)."""
    return {match.group(1): match.group(2) for match in _FIELD.finditer(body)}


class StatusReader(_Base):
    """Status resolution; used by :class:`pmgs_core.check.CheckMixin` under the store lock."""

    def _concept(self, scheme: str, edition: str, code: str) -> tuple[Any, ...] | None:
        return self._one(
            "SELECT id, status FROM concept WHERE scheme = ? AND edition = ? AND code = ?",
            (scheme, edition, code),
        )

    def _fi_evidence(self, code: str) -> list[RevisionEvidence]:
        """The FI revision records that name ``code``, merged per change (date and titles)."""
        parsed = parse_code("fi", code)
        subclass = f"{parsed.section}{parsed.class_ or ''}{parsed.subclass or ''}"
        rows = self._rows(
            "SELECT d.document_key, s.text_type, s.body, s.source_file_id, s.locator "
            "FROM document AS d JOIN document_text AS s ON s.document_id = d.id "
            "WHERE d.document_key = ? AND s.heading = ? ORDER BY s.sequence_number",
            (f"fi_revision:{subclass}", code),
        )
        merged: dict[tuple[object, ...], RevisionEvidence] = {}
        for key, action, body, file_id, locator in rows:
            fields = _fields(str(body))
            head = (action, *(fields.get(label) for label in _NAMES))
            evidence = merged.get(head)
            if evidence is None:
                evidence = {
                    "kind": "fi_revision",
                    "action": str(action or ""),
                    "date": fields.get("日付"),
                    "title": fields.get("名称"),
                    "old_title": fields.get("旧名称"),
                    "new_title": fields.get("新名称"),
                    "targets": [],
                    "document_id": str(key),
                    "sources": [],
                }
                merged[head] = evidence
            target = fields.get("移行先")
            if target and target not in evidence["targets"]:
                evidence["targets"].append(target)
            evidence["sources"].append(self._source(int(file_id), str(locator)))
        return list(merged.values())

    def _ipc_evidence(self, concept_id: int) -> list[RevisionEvidence]:
        """The ``IPC_KAISEI`` rows that move this code, as ``amended_to`` edges."""
        rows = self._rows(
            "SELECT t.code, tr.version, f.code, fr.version, r.source_file_id, r.locator "
            "FROM relation AS r JOIN concept AS t ON t.id = r.to_concept_id "
            "JOIN concept AS f ON f.id = r.from_concept_id "
            "LEFT JOIN revision AS tr ON tr.id = r.to_revision_id "
            "LEFT JOIN revision AS fr ON fr.id = r.from_revision_id "
            "WHERE r.kind = 'amended_to' AND r.from_concept_id = ? ORDER BY r.sequence",
            (concept_id,),
        )
        return [
            {
                "kind": "ipc_revision",
                "action": "amended_to",
                "date": None,
                "title": f"{code} ({old})" if old else str(code),
                "old_title": None,
                "new_title": None,
                "targets": [f"{to} ({version})" if version else str(to)],
                "document_id": None,
                "sources": [self._source(int(file_id), str(locator))],
            }
            for to, version, code, old, file_id, locator in rows
        ]

    def _resolve_fi(self, code: str, since: str | None) -> Resolution:
        concept = self._concept("fi", "", code)
        evidence = self._fi_evidence(code)
        if concept is not None and concept[1] == "canonical":
            recent = [e for e in evidence if since is not None and (e["date"] or "") >= since]
            if recent:
                return "changed", f"present; revised since {since}", recent
            return "present", "present in the release", []
        if any(e["action"] == "del" for e in evidence):
            targets = [t for e in evidence for t in e["targets"]]
            shown = ", ".join(targets) if targets else "none recorded"
            return "abolished", f"abolished; transfer targets: {shown}", evidence
        if evidence:
            return "abolished", "not an FI code of the release; revision records name it", evidence
        return "not_found", "no FI code of the release, and no revision record names it", []

    def _resolve_fterm(self, code: str) -> Resolution:
        theme = code[:5]
        theme_row = self._concept("fterm", "", theme)
        if theme_row is None or theme_row[1] != "canonical":
            return "theme_not_present", f"the theme {theme} is not in the release", []
        concept = self._concept("fterm", "", code)
        if concept is not None and concept[1] == "canonical":
            return "present", "present in the release", []
        return "not_found", f"the theme {theme} exists but has no such F-term", []

    def _resolve_ipc(self, code: str) -> Resolution:
        from pmgs_core.store._arguments import valid_at  # loaded with PMGSStore by now

        concept = self._concept("ipc", "8U", code)
        if concept is not None and concept[1] == "canonical":
            revisions = self._rows(
                "SELECT version, valid_from, valid_to FROM revision WHERE concept_id = ?",
                (concept[0],),
            )
            if any(valid_at(row[1], row[2], self._reference_date) for row in revisions):
                return "present", "valid at the release's reference date", []
            versions = ", ".join(sorted(str(row[0]) for row in revisions))
            message = f"no version valid at {self._reference_date} (versions: {versions})"
            return "not_valid_at_release", message, self._ipc_evidence(int(concept[0]))
        # The edition list keeps this a few seeks of the (scheme, edition, code) index.
        older = self._rows(
            "SELECT edition FROM concept WHERE scheme = 'ipc' "
            "AND edition IN ('8B', '7', '7E', '6', '5', '4') AND code = ? "
            "AND status = 'canonical' ORDER BY edition",
            (code,),
        )
        if older:
            editions = ", ".join(str(row[0]) for row in older)
            return "not_valid_at_release", f"only in older IPC editions ({editions})", []
        return "not_found", "no IPC code of the release", []

    def _resolve(self, scheme: str, code: str, since: str | None) -> Resolution:
        if scheme == "fi":
            return self._resolve_fi(code, since)
        if scheme == "fterm":
            return self._resolve_fterm(code)
        return self._resolve_ipc(code)
