"""Markers of listed codes, as J-PlatPat shows them beside each code of an FI list.

A list of codes (a main group, a code's children, its siblings, an F-term theme's terms)
shows each code with a few facts: its parent (so a list can be indented by depth without a
level column), whether it has an F-term theme (``F``), a concordance (``CC``) and an FI
handbook entry (``HB``). One bounded read answers up to 200 references, never a lookup each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypedDict

from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import CodeRef
from pmgs_core.store._connection import StoreConnection

__all__ = ["MAX_MARKED", "CodeMarkers", "MarkersMixin"]

MAX_MARKED: Final = 200


class CodeMarkers(TypedDict):
    """The facts of one listed code; all false and ``parent`` None for an unknown code."""

    code: str
    found: bool
    """The code exists in this release (canonical or reference-only)."""
    parent: str | None
    """The first parent's code (as the hierarchy reads it), or None at the top."""
    fterm_theme: bool
    """An F-term theme covers the code (a ``theme`` relation from it): J-PlatPat's ``F``."""
    concordance: bool
    """A concordance relation from or to the code: ``CC``."""
    handbook: bool
    """An FI handbook document has the code as its subject: ``HB``."""


class MarkersMixin(StoreConnection):
    """The marker capability of :class:`pmgs_core.PMGSStore`."""

    def code_markers(self, refs: Sequence[CodeRef]) -> list[CodeMarkers]:
        """Parent and F / CC / HB facts of each referenced code, in order (module doc)."""
        if not isinstance(refs, (list, tuple)) or len(refs) > MAX_MARKED:
            raise PMGSQueryError(
                "INVALID_ARGUMENT", f"refs must be a list of at most {MAX_MARKED} codes"
            )
        keys = [(str(r["scheme"]), str(r["edition"] or ""), str(r["code"])) for r in refs]
        return self._locked(lambda: self._markers(keys))

    def _markers(self, keys: list[tuple[str, str, str]]) -> list[CodeMarkers]:
        ids: dict[tuple[str, str, str], int] = {}
        if keys:
            condition = " OR ".join("(scheme = ? AND edition = ? AND code = ?)" for _ in keys)
            for concept, scheme, edition, code in self._stream(
                f"SELECT id, scheme, edition, code FROM concept WHERE {condition}",  # noqa: S608
                [value for key in keys for value in key],
            ):
                ids[(str(scheme), str(edition), str(code))] = int(concept)
        found = sorted(set(ids.values()))
        marks = ",".join("?" * len(found))
        parents: dict[int, str] = {}
        themes: set[int] = set()
        concordances: set[int] = set()
        handbooks: set[int] = set()
        if found:
            for child, code in self._stream(
                "SELECT r.from_concept_id, c.code FROM relation AS r "  # noqa: S608
                "JOIN concept AS c ON c.id = r.to_concept_id WHERE r.kind = 'parent' "
                f"AND r.from_concept_id IN ({marks}) ORDER BY r.from_concept_id, r.sequence, r.id",
                found,
            ):
                parents.setdefault(int(child), str(code))
            for concept, kind in self._stream(
                "SELECT from_concept_id, kind FROM relation "  # noqa: S608
                f"WHERE kind IN ('theme', 'concordance') AND from_concept_id IN ({marks}) "
                "UNION SELECT to_concept_id, kind FROM relation "
                f"WHERE kind = 'concordance' AND to_concept_id IN ({marks})",
                [*found, *found],
            ):
                (themes if kind == "theme" else concordances).add(int(concept))
            for (concept,) in self._stream(
                "SELECT DISTINCT l.concept_id FROM document_link AS l "  # noqa: S608
                "JOIN document AS d ON d.id = l.document_id WHERE d.kind = 'fi_handbook' "
                f"AND l.role = 'subject' AND l.concept_id IN ({marks})",
                found,
            ):
                handbooks.add(int(concept))
        answer: list[CodeMarkers] = []
        for key in keys:
            concept = ids.get(key, -1)
            answer.append(
                {
                    "code": key[2],
                    "found": key in ids,
                    "parent": parents.get(concept),
                    "fterm_theme": concept in themes,
                    "concordance": concept in concordances,
                    "handbook": concept in handbooks,
                }
            )
        return answer
