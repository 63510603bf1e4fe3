"""Context beside a code: the few ancestors that say where it sits, with their titles.

A search hit ``2F622CA17 記録媒体と放射線`` means little without its theme and viewpoint, and a
subgroup ``放射線によるもの`` nothing without the group it refines. The context is bounded, so
that a page of hits does not become a page of hierarchies:

* F-term terms and viewpoints: their viewpoint and theme (never the intermediate terms);
* FI and IPC subgroups: the main group and the nearest parents below it, at most
  :data:`MAX_PATH` entries (the main group and the last ones when the chain is longer);
* other kinds (sections to main groups, themes, facets): none.

Ancestors are read level by level (one indexed query per level for the whole page, as
``store._hierarchy`` does) and titled by the first text line of their latest revision in the
language asked for. The same reading titles relation targets (:func:`code_titles`).
"""

from __future__ import annotations

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


def _parents(stream: Stream, ids: Sequence[int]) -> dict[int, int]:
    """The parent of each concept (the first by sequence, as the hierarchy reads it)."""
    found: dict[int, int] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        for child, parent in stream(
            "SELECT from_concept_id, to_concept_id FROM relation "  # noqa: S608
            f"WHERE kind = 'parent' AND from_concept_id IN ({_marks(len(chunk))}) "
            "ORDER BY from_concept_id, sequence, id",
            chunk,
        ):
            found.setdefault(int(child), int(parent))
    return found


def _chains(stream: Stream, ids: Sequence[int]) -> dict[int, list[int]]:
    """Each concept's ancestors, nearest first."""
    chains: dict[int, list[int]] = {concept: [] for concept in ids}
    tips = {concept: concept for concept in ids}
    for _ in range(MAX_LEVELS):
        if not tips:
            break
        parents = _parents(stream, sorted(set(tips.values())))
        next_tips = {}
        for concept, tip in tips.items():
            parent = parents.get(tip)
            if parent is None or parent == concept or parent in chains[concept]:
                continue
            chains[concept].append(parent)
            next_tips[concept] = parent
        tips = next_tips
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


def _chosen(scheme: str, kind: str, chain: list[CodeContext]) -> list[CodeContext]:
    """The bounded context of one code from its ancestors (top first)."""
    if scheme == "fterm" and kind in ("term", "viewpoint"):
        return [item for item in chain if item["kind"] in ("theme", "viewpoint")]
    if kind != "subgroup":
        return []
    tops = [index for index, item in enumerate(chain) if item["kind"] == "main_group"]
    path = chain[tops[-1] :] if tops else chain[-MAX_PATH:]
    if len(path) > MAX_PATH:
        path = [path[0], *path[-(MAX_PATH - 1) :]]
    return path


def code_context(
    stream: Stream, concepts: Sequence[tuple[int, str, str]], language: str
) -> dict[int, list[CodeContext]]:
    """The context of each ``(concept id, scheme, kind)``, top first (module doc)."""
    wanted = [
        concept
        for concept, scheme, kind in concepts
        if kind == "subgroup" or (scheme == "fterm" and kind in ("term", "viewpoint"))
    ]
    if not wanted:
        return {}
    chains = _chains(stream, wanted)
    described = _describe(stream, sorted({a for chain in chains.values() for a in chain}), language)
    kinds = {concept: (scheme, kind) for concept, scheme, kind in concepts}
    context: dict[int, list[CodeContext]] = {}
    for concept, chain in chains.items():
        top_first = [described[a] for a in reversed(chain) if a in described]
        chosen = _chosen(*kinds[concept], top_first)
        if chosen:
            context[concept] = chosen
    return context


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
