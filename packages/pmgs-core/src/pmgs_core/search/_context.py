"""Context beside a code: the few ancestors that say where it sits, with their titles.

A search hit ``2F622CA17 記録媒体と放射線`` means little without its theme and viewpoint, and a
subgroup ``放射線によるもの`` nothing without the group it refines. The context is bounded, so
that a page of hits does not become a page of hierarchies:

* F-term terms and viewpoints: their viewpoint and theme (never the intermediate terms);
* FI and IPC subgroups: the main group and the nearest parents below it, at most
  :data:`MAX_PATH` entries (the main group and the last ones when the chain is longer);
* other kinds (sections to main groups, themes, facets): none.

The ancestors of a whole page are read by one recursive statement and the ones shown are
titled by the first text line of their latest revision in the language asked for (a second
statement); the store keeps each code's context, so a code seen before costs no statement
(ADR 0036). The same titling serves relation targets (:func:`code_titles`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from pmgs_core.records import CodeContext, CodeRef

__all__ = ["MAX_PATH", "code_context", "code_titles"]

Row = tuple[Any, ...]
Stream = Callable[[str, Sequence[object]], Iterator[Row]]

MAX_PATH: Final = 3
"""Most ancestors shown beside a subgroup."""
MAX_LEVELS: Final = 16
"""Deepest chain followed (the package's deepest is well below)."""
_CHUNK: Final = 500


def _marks(count: int) -> str:
    return ",".join("?" * count)


_CHAINS: Final = f"""
WITH RECURSIVE up(start, depth, node) AS (
    SELECT value, 0, value FROM json_each(?)
    UNION ALL
    SELECT start, depth + 1, (
        SELECT p.to_concept_id FROM relation AS p
        WHERE p.from_concept_id = up.node AND p.kind = 'parent'
        ORDER BY p.sequence, p.id LIMIT 1)
    FROM up WHERE depth < {MAX_LEVELS} AND node IS NOT NULL)
SELECT up.start, up.node, c.code, c.kind FROM up LEFT JOIN concept AS c ON c.id = up.node
WHERE up.depth > 0 AND up.node IS NOT NULL ORDER BY up.start, up.depth
"""  # noqa: S608 - its one substitution is MAX_LEVELS, a constant
"""Every concept's ancestors, nearest first, with their code and kind: one statement for a
page (the parent of each is the first by sequence, as the hierarchy reads it). A cycle is
followed to :data:`MAX_LEVELS` here and cut where it closes by :func:`_chains`."""


Ancestor = tuple[int, str | None, str | None]
"""An ancestor as the chain statement reads it: id, code and kind (None: no concept row)."""


def _chains(stream: Stream, ids: Sequence[int]) -> dict[int, list[Ancestor]]:
    """Each concept's ancestors, nearest first; a chain ends before an ancestor it already
    holds (or the concept itself)."""
    chains: dict[int, list[Ancestor]] = {concept: [] for concept in ids}
    ended: set[int] = set()
    for start, node, code, kind in stream(_CHAINS, [json.dumps(list(ids))]):
        concept, ancestor = int(start), int(node)
        if concept in ended:
            continue
        chain = chains[concept]
        if ancestor == concept or any(held == ancestor for held, _, _ in chain):
            ended.add(concept)
            continue
        chain.append((ancestor, code, kind))
    return chains


def _describe(stream: Stream, ids: Sequence[int], language: str) -> dict[int, CodeContext]:
    """Code, kind and title of each concept (title: first line of its latest revision)."""
    described: dict[int, CodeContext] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        for concept, code, kind, body in stream(
            "SELECT c.id, c.code, c.kind, (SELECT x.body FROM revision AS r "  # noqa: S608
            "JOIN text AS x ON x.revision_id = r.id WHERE r.concept_id = c.id "
            "AND x.language = ? ORDER BY (r.valid_to IS NULL) DESC, r.valid_to DESC, "
            "x.line, x.id LIMIT 1) FROM concept AS c "
            f"WHERE c.id IN ({_marks(len(chunk))})",
            [language, *chunk],
        ):
            described[int(concept)] = {"code": str(code), "kind": str(kind), "title": body}
    return described


def _chosen(scheme: str, kind: str, chain: list[Ancestor]) -> list[Ancestor]:
    """The bounded context of one code from its ancestors (top first)."""
    if scheme == "fterm" and kind in ("term", "viewpoint"):
        return [item for item in chain if item[2] in ("theme", "viewpoint")]
    if kind != "subgroup":
        return []
    tops = [index for index, item in enumerate(chain) if item[2] == "main_group"]
    path = chain[tops[-1] :] if tops else chain[-MAX_PATH:]
    if len(path) > MAX_PATH:
        path = [path[0], *path[-(MAX_PATH - 1) :]]
    return path


def _wants_context(scheme: str, kind: str) -> bool:
    return kind == "subgroup" or (scheme == "fterm" and kind in ("term", "viewpoint"))


def code_context(
    stream: Stream,
    concepts: Sequence[tuple[int, str, str]],
    language: str,
    memo: dict[str, Any] | None = None,
) -> dict[int, list[CodeContext]]:
    """The context of each ``(concept id, scheme, kind)``, top first (module doc).

    Two statements for a page: every chain at once, then the titles of the ancestors shown.
    With ``memo`` (the store's, ADR 0036) a code's context is read once per store and
    language: the database is read-only, so it never changes.
    """
    contexts = _memo(memo, "context")
    kinds = {concept: (scheme, kind) for concept, scheme, kind in concepts}
    wanted = [concept for concept, (scheme, kind) in kinds.items() if _wants_context(scheme, kind)]
    missing = [concept for concept in wanted if (concept, language) not in contexts]
    if missing:
        chosen = {
            concept: _chosen(
                *kinds[concept], [item for item in reversed(chain) if item[1] is not None]
            )
            for concept, chain in _chains(stream, missing).items()
        }
        titles = _titles(
            stream, sorted({item[0] for path in chosen.values() for item in path}), language, memo
        )
        for concept, path in chosen.items():
            contexts[(concept, language)] = tuple(
                (str(code), str(kind), titles.get(ancestor)) for ancestor, code, kind in path
            )
    context: dict[int, list[CodeContext]] = {}
    for concept in wanted:
        found = contexts[(concept, language)]
        if found:
            context[concept] = [
                {"code": code, "kind": kind, "title": title} for code, kind, title in found
            ]
    return context


def _titles(
    stream: Stream, ids: Sequence[int], language: str, memo: dict[str, Any] | None
) -> dict[int, str | None]:
    """The title of each concept, from ``memo`` when it was read before."""
    known = _memo(memo, "title")
    missing = [concept for concept in ids if (concept, language) not in known]
    if missing:
        described = _describe(stream, missing, language)
        for concept in missing:
            item = described.get(concept)
            known[(concept, language)] = None if item is None else item["title"]
    return {concept: known[(concept, language)] for concept in ids}


MEMO_ENTRIES: Final = 20_000
"""Most contexts (and titles) a store keeps; past it the kind is emptied and read afresh."""


def _memo(memo: dict[str, Any] | None, kind: str) -> dict[Any, Any]:
    """One kind of the store's memo (a fresh dict without one), kept below MEMO_ENTRIES."""
    if memo is None:
        return {}
    kept: dict[Any, Any] = memo.setdefault(kind, {})
    if len(kept) > MEMO_ENTRIES:
        kept.clear()
    return kept


def code_titles(stream: Stream, refs: Sequence[CodeRef], language: str) -> list[str | None]:
    """The title of each referenced code (None: no text in that language, or no such code)."""
    ids: dict[tuple[str, str, str], int] = {}
    keys = [(ref["scheme"], ref["edition"] or "", ref["code"]) for ref in refs]
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        condition = " OR ".join("(scheme = ? AND edition = ? AND code = ?)" for _ in chunk)
        for concept, scheme, edition, code in stream(
            f"SELECT id, scheme, edition, code FROM concept WHERE {condition}",  # noqa: S608
            [value for key in chunk for value in key],
        ):
            ids[(str(scheme), str(edition), str(code))] = int(concept)
    described = _describe(stream, sorted(set(ids.values())), language)
    titles: list[str | None] = []
    for key in keys:
        concept = ids.get(key)
        titles.append(described[concept]["title"] if concept in described else None)
    return titles
