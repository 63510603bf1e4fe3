"""The store's ``check_codes``: each code of a formula with its status in the release.

Reading the formula and the record shapes are :mod:`pmgs_core.check`'s; this module resolves
each code against the database, quoting the revision records as stored (ADR 0025): the FI
revision documents (one segment per ``<infor>`` element, heading = the code) and the IPC
revision table's ``amended_to`` edges. Transfer targets are never computed: each one the
records write is read into canonical notation (the record's text kept beside it) and checked
in turn, and an abolished target's own records are followed, bounded, to the codes present
in the release (ADR 0031).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Literal

from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, parse_code
from pmgs_core.records import CONTENT_ROLE, EVIDENCE_NOTICE, MAX_CHECK_CODES
from pmgs_core.schema import SCHEMES
from pmgs_core.store._arguments import valid_at
from pmgs_core.store._connection import StoreConnection

__all__ = ["CheckMixin"]

_LABEL: Final = "(?:旧名称|新名称|名称|移行先|日付)"
_FIELD: Final = re.compile(rf"(?:\A| / )({_LABEL}): (.*?)(?= / {_LABEL}: |\Z)", re.DOTALL)
_NAMES: Final = {"名称": "title", "旧名称": "old_title", "新名称": "new_title", "日付": "date"}

if TYPE_CHECKING:
    # The formula reader is imported by the first check_codes call: the stdio MCP server
    # must not pay for it at start.
    from pmgs_core.check import (
        CheckStatus,
        CodeCheckItem,
        CodeCheckRecord,
        InputKind,
        RevisionEvidence,
        TransferStep,
        TransferTarget,
    )

    Resolution = tuple[CheckStatus, str, list[RevisionEvidence]]


def _fields(body: str) -> dict[str, str]:
    """The labelled fields of a revision segment body (format in docs/database.md)."""
    return {match.group(1): match.group(2) for match in _FIELD.finditer(body)}


def _target(scheme: Literal["fi", "ipc"], text: str) -> TransferTarget:
    """A transfer target as the record writes it, read into canonical notation; its status is
    filled in by :meth:`CheckMixin._follow` (``invalid_code`` stays when the text reads as
    no code of the scheme)."""
    try:
        code: str | None = parse_code(scheme, text).canonical
        message = ""
    except InvalidCodeError:
        code, message = None, f"the record's text is not an {scheme.upper()} code"
    return {
        "text": text,
        "scheme": scheme,
        "code": code,
        "status": "invalid_code",
        "message": message,
        "leads_to": [],
        "chain": [],
        "cycle": False,
        "depth_limited": False,
    }


def _summary(target: TransferTarget) -> str:
    """``G06F3/00 (present)``, ``C56L1/045 (abolished → H93V2/00)``: one target in a message."""
    if target["code"] is None:
        return f"{target['text']!r} (not a code)"
    ends = [code for code in target["leads_to"] if code != target["code"]]
    tail = f" → {', '.join(ends)}" if ends else ""
    if target["cycle"]:
        tail += "; a cycle"
    if target["depth_limited"]:
        tail += "; not followed further"
    return f"{target['code']} ({target['status']}{tail})"


class _StatusReader(StoreConnection):
    """Status resolution from the revision records, run under the store lock."""

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
            target = (fields.get("移行先") or "").strip()
            if target and target not in (t["text"] for t in evidence["targets"]):
                evidence["targets"].append(_target("fi", target))
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
                "targets": [_target("ipc", f"{to} ({version})" if version else str(to))],
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
            # The message names the targets once they are checked (CheckMixin._follow).
            return "abolished", "abolished", evidence
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


class CheckMixin(_StatusReader):
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
        from pmgs_core.check import check_since, occurrence_item, read_occurrences

        self._check_release(release)
        if not isinstance(text, str):
            raise PMGSQueryError("INVALID_ARGUMENT", "text must be a string")
        if scheme is not None and scheme not in SCHEMES:
            raise PMGSQueryError("INVALID_SCHEME", "scheme must be one of fi, ipc, fterm")
        if input_kind not in (None, "formula", "lines", "csv"):
            raise PMGSQueryError("INVALID_ARGUMENT", "input_kind must be formula, lines or csv")
        checked_since = check_since(since)
        kind, occurrences = read_occurrences(
            text, kind=input_kind, column=column, limit=max(1, min(max_codes, MAX_CHECK_CODES))
        )
        items = [occurrence_item(index, found, scheme) for index, found in enumerate(occurrences)]
        return self._locked(lambda: self._check(items, kind, checked_since))

    def _check(
        self, items: list[CodeCheckItem], kind: InputKind, since: str | None
    ) -> CodeCheckRecord:
        from pmgs_core.check import ATTENTION_STATUSES

        cache: dict[tuple[str, str], Resolution] = {}
        followed: dict[tuple[str, str], str] = {}  # the item message once targets are checked
        counts: dict[str, int] = {}
        for item in items:
            scheme, code = item["scheme"], item["code"]
            if scheme is not None and code is not None:
                key = (scheme, code)
                status, message, evidence = self._resolution(cache, scheme, code, since)
                if key not in followed:
                    followed[key] = self._follow(code, status, message, evidence, since, cache)
                item["status"], item["message"], item["revisions"] = status, followed[key], evidence
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

    def _resolution(
        self, cache: dict[tuple[str, str], Resolution], scheme: str, code: str, since: str | None
    ) -> Resolution:
        key = (scheme, code)
        if key not in cache:
            cache[key] = self._resolve(scheme, code, since)
        return cache[key]

    def _follow(
        self,
        origin: str,
        status: CheckStatus,
        message: str,
        evidence: list[RevisionEvidence],
        since: str | None,
        cache: dict[tuple[str, str], Resolution],
    ) -> str:
        """Check each transfer target of ``origin``'s records in turn and follow the abolished
        ones; returns the item's message, naming the targets when ``origin`` is abolished."""
        targets = [target for record in evidence for target in record["targets"]]
        for target in targets:
            self._check_target(origin, target, since, cache)
        if status != "abolished" or not any(e["action"] == "del" for e in evidence):
            return message
        shown = ", ".join(_summary(t) for t in targets) if targets else "none recorded"
        return f"abolished; transfer targets: {shown}"

    def _check_target(
        self,
        origin: str,
        target: TransferTarget,
        since: str | None,
        cache: dict[tuple[str, str], Resolution],
    ) -> None:
        """The target's own status, then its records depth first (ADR 0031): every step is
        listed, a code already on the chain is a cycle (listed, not followed), and the walk
        stops at :data:`MAX_TRANSFER_DEPTH` records or :data:`MAX_TRANSFER_STEPS` steps."""
        from pmgs_core.check import MAX_TRANSFER_DEPTH, MAX_TRANSFER_STEPS, PRESENT_STATUSES

        scheme, code = target["scheme"], target["code"]
        if code is None:
            return
        target["status"], target["message"], _ = self._resolution(cache, scheme, code, since)
        leads: list[str] = []
        if target["status"] in PRESENT_STATUSES:
            target["leads_to"] = [code]
            return
        if code == origin:
            target["cycle"] = True
            target["message"] += "; the record names the code itself (a cycle)"
            return

        def walk(current: str, path: tuple[str, ...], depth: int) -> None:
            for record in self._resolution(cache, scheme, current, since)[2]:
                for nxt in record["targets"]:
                    if len(target["chain"]) >= MAX_TRANSFER_STEPS:
                        target["depth_limited"] = True
                        return
                    step: TransferStep = {
                        "from": current,
                        "depth": depth,
                        "text": nxt["text"],
                        "code": nxt["code"],
                        "status": "invalid_code",
                        "cycle": False,
                    }
                    target["chain"].append(step)
                    if nxt["code"] is None:
                        continue
                    step["status"] = self._resolution(cache, scheme, nxt["code"], since)[0]
                    if nxt["code"] in path:
                        step["cycle"] = target["cycle"] = True
                    elif step["status"] in PRESENT_STATUSES:
                        if nxt["code"] not in leads:
                            leads.append(nxt["code"])
                    elif depth >= MAX_TRANSFER_DEPTH:
                        target["depth_limited"] = True
                    else:
                        walk(nxt["code"], (*path, nxt["code"]), depth + 1)

        walk(code, (origin, code), 1)
        target["leads_to"] = leads
        found = "its records reach no code of the release"
        if leads:
            found = f"its records lead to {', '.join(leads)}"
        tail = "; a cycle" if target["cycle"] else ""
        tail += "; not followed further" if target["depth_limited"] else ""
        target["message"] = f"{target['message']}; {found}{tail}"
