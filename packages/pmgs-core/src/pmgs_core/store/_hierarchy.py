"""Hierarchy: parents, children and descendants as pages of bounded summaries.

Summaries are built with a fixed number of queries per page (never one lookup per item);
trees are walked in Python one indexed query per level rather than by a recursive CTE (see
:meth:`HierarchyMixin._ancestor_ids`) (ADR 0004).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    HierarchyPage,
    HierarchySummary,
    ensure_response_size,
)
from pmgs_core.store._arguments import (
    ID_CHUNK,
    MAX_DEPTH,
    MAX_LIMIT,
    Direction,
    check_direction,
    check_limit,
    check_offset,
    page_fields,
    placeholders,
)
from pmgs_core.store._concepts import ConceptReader

__all__ = ["HierarchyMixin"]

_Params = ParamSpec("_Params")
_Result = TypeVar("_Result")


@dataclass(frozen=True)
class _OneWay:
    """A store's hierarchy in one fixed direction: what ``parents`` and ``children`` run."""

    store: HierarchyMixin
    direction: Direction

    def listing(
        self, /, *address: Any, limit: int | None = None, offset: int = 0, **named: Any
    ) -> HierarchyPage | list[HierarchySummary]:
        """A :meth:`HierarchyMixin.hierarchy` page with ``limit``, else every summary.

        ``address`` and ``named`` are the code's arguments of ``hierarchy`` after
        ``direction``; the method's signature says so (see :func:`_listing_signature`).
        """

        def page(page_limit: int, page_offset: int) -> HierarchyPage:
            return self.store.hierarchy(
                self.direction, *address, limit=page_limit, offset=page_offset, **named
            )

        if limit is not None:
            return page(limit, offset)
        items: list[HierarchySummary] = []
        next_offset: int | None = check_offset(offset, "offset")
        while next_offset is not None:
            found = page(MAX_LIMIT, next_offset)
            items.extend(found["items"])
            next_offset = found["next_offset"]
        ensure_response_size(items)
        return items


def _one_direction(
    direction: Direction,
    doc: str,
    listing: Callable[Concatenate[_OneWay, _Params], _Result],
) -> Callable[Concatenate[HierarchyMixin, _Params], _Result]:
    """``listing`` bound to ``direction``: one implementation behind ``parents``/``children``.

    The method has its own name and docstring; its signature for :mod:`inspect` is set
    below from ``hierarchy``'s.
    """

    def method(self: HierarchyMixin, /, *args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        return listing(_OneWay(self, direction), *args, **kwargs)

    method.__name__ = direction
    method.__qualname__ = f"HierarchyMixin.{direction}"
    method.__doc__ = doc
    return method


def _listing_signature() -> inspect.Signature:
    """``hierarchy``'s signature without ``direction``, ``limit`` optional (None: every
    summary as a list): what ``parents`` and ``children`` take, said once."""
    full = inspect.signature(HierarchyMixin.hierarchy)
    parameters = [
        parameter.replace(default=None, annotation="int | None")
        if parameter.name == "limit"
        else parameter
        for parameter in full.parameters.values()
        if parameter.name != "direction"
    ]
    return full.replace(
        parameters=parameters, return_annotation="HierarchyPage | list[HierarchySummary]"
    )


class HierarchyMixin(ConceptReader):
    """The hierarchy capability of :class:`pmgs_core.PMGSStore`."""

    def hierarchy(
        self,
        direction: str,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        limit: int = 50,
        offset: int = 0,
    ) -> HierarchyPage:
        """A page of bounded summaries of the parents (ancestors, top first) or children.

        ``direction`` is ``parents``, ``children`` or (an extension of the contract)
        ``descendants``: the whole subtree in structural order, e.g. every viewpoint and
        F-term of a theme; its cost grows with the subtree, so prefer ``children`` for the
        large FI and IPC trees. Summaries carry scheme, edition, code, version, label and
        record status only and are built with a fixed number of queries per page, never one
        lookup per item; pass one to :meth:`lookup` for the full record. Reference-only
        children are not listed (they are not current codes).
        """
        checked_direction = check_direction(direction)
        checked_scheme, checked_edition, checked_language = self._check_address(
            scheme, release, edition, language
        )
        checked_limit = check_limit(limit, "limit")
        checked_offset = check_offset(offset, "offset")
        canonical, _version = self._parse(checked_scheme, code)
        return self._locked(
            lambda: self._hierarchy(
                checked_direction,
                checked_scheme,
                canonical,
                checked_edition,
                checked_language,
                limit=checked_limit,
                offset=checked_offset,
                exact=code == canonical,
            )
        )

    def _hierarchy(
        self,
        direction: Direction,
        scheme: str,
        canonical: str,
        edition: str | None,
        language: str,
        *,
        limit: int,
        offset: int,
        exact: bool,
    ) -> HierarchyPage:
        page: HierarchyPage = {
            "record_type": "hierarchy_page",
            "direction": direction,
            "match_status": "not_found",
            "scheme": scheme,
            "edition": edition,
            "code": canonical,
            "language": language,
            "release": self._release_ref(),
            "items": [],
            "count": 0,
            "limit": limit,
            "offset": offset,
            "truncated": False,
            "next_offset": None,
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }
        concept = self._find_concept(scheme, canonical, edition)
        if concept is None:
            return page
        concept_id = int(concept[0])
        page["match_status"] = "exact" if exact else "normalized_exact"
        page["edition"] = concept[2] or None
        if direction == "parents":
            ancestors = self._ancestor_ids(concept_id)
            count = len(ancestors)
            ids = ancestors[offset : offset + limit]
        elif direction == "descendants":
            descendants = self._descendant_ids(concept_id)
            count = len(descendants)
            ids = descendants[offset : offset + limit]
        else:
            count_row = self._one(
                "SELECT count(*) FROM relation AS r JOIN concept AS c ON c.id = r.from_concept_id "
                "WHERE r.to_concept_id = ? AND r.kind = 'parent' AND c.status = 'canonical'",
                (concept_id,),
            )
            count = int(count_row[0]) if count_row else 0
            ids = [
                int(row[0])
                for row in self._rows(
                    "SELECT r.from_concept_id FROM relation AS r "
                    "JOIN concept AS c ON c.id = r.from_concept_id "
                    "WHERE r.to_concept_id = ? AND r.kind = 'parent' AND c.status = 'canonical' "
                    "ORDER BY r.sequence, r.id LIMIT ? OFFSET ?",
                    (concept_id, limit, offset),
                )
            ]
        page["items"] = self._summaries(ids, language)
        page["count"] = count
        page["truncated"], page["next_offset"] = page_fields(count, limit, offset, len(ids))
        return page

    def _ancestor_ids(self, concept_id: int) -> list[int]:
        """Parents up to the top, returned top first; one indexed query per level.

        A Python loop rather than a recursive CTE: SQLite 3.40 plans the recursive step with
        a Bloom filter that scans the relation table once per step, which made a theme's
        subtree take tens of milliseconds.
        """
        chain: list[int] = []
        current = concept_id
        for _ in range(MAX_DEPTH):
            row = self._one(
                "SELECT to_concept_id FROM relation WHERE from_concept_id = ? AND kind = 'parent' "
                "ORDER BY sequence, id LIMIT 1",
                (current,),
            )
            if row is None or int(row[0]) in chain or int(row[0]) == concept_id:
                break
            current = int(row[0])
            chain.append(current)
        chain.reverse()
        return chain

    def _descendant_ids(self, concept_id: int) -> list[int]:
        """The canonical subtree below a concept in structural order (revision sequence).

        Breadth-first, one batched indexed query per level and chunk (see
        :meth:`_ancestor_ids` for why not a recursive CTE).
        """
        seen: set[int] = {concept_id}
        found: list[int] = []
        frontier = [concept_id]
        for _ in range(MAX_DEPTH):
            if not frontier:
                break
            next_level: list[int] = []
            for start in range(0, len(frontier), ID_CHUNK):
                chunk = frontier[start : start + ID_CHUNK]
                for (child,) in self._rows(
                    "SELECT from_concept_id FROM relation WHERE kind = 'parent' "  # noqa: S608
                    f"AND to_concept_id IN ({placeholders(len(chunk))})",
                    chunk,
                ):
                    if int(child) not in seen:
                        seen.add(int(child))
                        next_level.append(int(child))
            found.extend(next_level)
            frontier = next_level
        keyed: list[tuple[int, str, int]] = []
        for start in range(0, len(found), ID_CHUNK):
            chunk = found[start : start + ID_CHUNK]
            for row in self._rows(
                "SELECT c.id, c.code, (SELECT min(v.sequence) FROM revision AS v "  # noqa: S608
                "WHERE v.concept_id = c.id) FROM concept AS c "
                f"WHERE c.status = 'canonical' AND c.id IN ({placeholders(len(chunk))})",
                chunk,
            ):
                keyed.append((-1 if row[2] is None else int(row[2]), str(row[1]), int(row[0])))
        keyed.sort()
        return [item[2] for item in keyed]

    def _summaries(self, concept_ids: list[int], language: str) -> list[HierarchySummary]:
        """Summaries of up to 200 concepts with three queries (concepts, revisions, labels)."""
        if not concept_ids:
            return []
        marks = placeholders(len(concept_ids))
        concepts = {
            int(row[0]): row
            for row in self._rows(
                f"SELECT id, scheme, edition, code, status FROM concept WHERE id IN ({marks})",  # noqa: S608
                concept_ids,
            )
        }
        revisions: dict[int, list[tuple[Any, ...]]] = {}
        for row in self._rows(
            "SELECT concept_id, id, version, valid_from, valid_to FROM revision "  # noqa: S608
            f"WHERE concept_id IN ({marks})",
            concept_ids,
        ):
            revisions.setdefault(int(row[0]), []).append(row[1:])
        chosen: dict[int, tuple[Any, ...] | None] = {}
        for concept_id in concept_ids:
            row = concepts[concept_id]
            chosen[concept_id] = self._active(revisions.get(concept_id, []), f"{row[1]} {row[3]}")
        revision_ids = [int(rev[0]) for rev in chosen.values() if rev is not None]
        labels: dict[int, str] = {}
        if revision_ids:
            for revision_id, body in self._rows(
                "SELECT revision_id, body FROM text "  # noqa: S608
                f"WHERE revision_id IN ({placeholders(len(revision_ids))}) AND language = ? "
                "ORDER BY revision_id, line, id",
                [*revision_ids, language],
            ):
                labels.setdefault(int(revision_id), str(body))
        summaries: list[HierarchySummary] = []
        for concept_id in concept_ids:
            row = concepts[concept_id]
            revision = chosen[concept_id]
            summaries.append(
                {
                    "scheme": str(row[1]),
                    "edition": row[2] or None,
                    "code": str(row[3]),
                    "version": None if revision is None else str(revision[1]),
                    "label": None if revision is None else labels.get(int(revision[0])),
                    "record_status": str(row[4]),
                }
            )
        return summaries

    parents = _one_direction(
        "parents",
        "Ancestors: a :meth:`hierarchy` page with ``limit``, else every summary as a list.",
        _OneWay.listing,
    )
    children = _one_direction(
        "children",
        "Children: a :meth:`hierarchy` page with ``limit``, else every summary as a list.",
        _OneWay.listing,
    )


# Set once the class exists: the signature is read from its ``hierarchy``.
HierarchyMixin.parents.__signature__ = _listing_signature()  # type: ignore[attr-defined]
HierarchyMixin.children.__signature__ = _listing_signature()  # type: ignore[attr-defined]
