"""``diff_releases``: what changed between two installed releases, per scheme and section.

A searcher moving to a new release needs the list of codes that appeared, disappeared, were
retitled or moved in the hierarchy, and the theme and concordance links that changed; the
databases hold each release whole, so the difference is computed, not read from a changelog.
Sections: ``added``, ``removed``, ``retitled`` (ja title text differs), ``moved`` (parent
differs), ``theme_link_added/removed`` (FI → theme), ``concordance_added/removed``.
The answer gives counts per section and scheme first, then one page of items.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from pmgs_core.diff._load import SCHEME_EDITIONS, Link, Side, load_links, load_side
from pmgs_core.diff._records import (
    DIFF_SECTIONS,
    DiffCount,
    DiffItem,
    DiffSection,
    LinkEnd,
    ReleaseDiff,
)
from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import CONTENT_ROLE, EVIDENCE_NOTICE, ReleaseRef
from pmgs_core.schema import SCHEMES
from pmgs_core.store import MAX_LIMIT, PMGSStore

__all__ = [
    "DIFF_SECTIONS",
    "MAX_UNDER_CHARS",
    "DiffCount",
    "DiffItem",
    "DiffSection",
    "LinkEnd",
    "ReleaseDiff",
    "diff_releases",
]

MAX_UNDER_CHARS: Final = 40
Source = PMGSStore | str | os.PathLike[str]


@contextmanager
def _reader(source: Source) -> Iterator[tuple[sqlite3.Connection, ReleaseRef, str]]:
    """A read-only connection of its own and the release stamp; the store checks the file."""
    if isinstance(source, PMGSStore):
        path, release = source.database_path, source.release_info()
    else:
        with PMGSStore.open(source) as store:
            path, release = store.database_path, store.release_info()
    ref: ReleaseRef = {
        "release_id": release["release_id"],
        "reference_date": release["reference_date"],
    }
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        conn.execute("PRAGMA query_only = 1")
        yield conn, ref, release["attribution"]
    except sqlite3.Error:
        raise PMGSQueryError("DATABASE_ERROR", "a release database could not be read") from None
    finally:
        conn.close()


def _code_item(
    section: DiffSection,
    scheme: str,
    edition: str,
    code: str,
    *,
    kind: str | None = None,
    titles: tuple[str | None, str | None] = (None, None),
    parents: tuple[str | None, str | None] = (None, None),
) -> DiffItem:
    return {
        "section": section,
        "scheme": scheme,
        "edition": edition or None,
        "code": code,
        "kind": kind,
        "old_title": titles[0],
        "new_title": titles[1],
        "old_parent": parents[0],
        "new_parent": parents[1],
        "target": None,
    }


def _one_sided(
    section: DiffSection, key: tuple[str, str], code: str, side: Side, *, new_side: bool
) -> DiffItem:
    """An ``added`` (only the new side has it) or ``removed`` (only the old side) item."""
    title, parent = side.titles.get(code), side.parents.get(code)
    return _code_item(
        section,
        *key,
        code,
        kind=side.kinds[code],
        titles=(None, title) if new_side else (title, None),
        parents=(None, parent) if new_side else (parent, None),
    )


def _code_items(scheme: str, edition: str, old: Side, new: Side) -> list[DiffItem]:
    key = (scheme, edition)
    items = [
        _one_sided("added", key, code, new, new_side=True)
        for code in sorted(new.kinds.keys() - old.kinds.keys())
    ]
    items += [
        _one_sided("removed", key, code, old, new_side=False)
        for code in sorted(old.kinds.keys() - new.kinds.keys())
    ]
    for code in sorted(old.kinds.keys() & new.kinds.keys()):
        titles = (old.titles.get(code), new.titles.get(code))
        parents = (old.parents.get(code), new.parents.get(code))
        if titles[0] != titles[1]:
            items.append(_code_item("retitled", *key, code, kind=new.kinds[code], titles=titles))
        if parents[0] != parents[1]:
            items.append(_code_item("moved", *key, code, kind=new.kinds[code], parents=parents))
    return items


def _link_items(section: DiffSection, links: set[Link], scheme: str | None) -> list[DiffItem]:
    items = []
    for link in sorted(links):
        if scheme is not None and scheme not in (link[0], link[3]):
            continue
        item = _code_item(section, link[0], link[1], link[2])
        target: LinkEnd = {"scheme": link[3], "edition": link[4] or None, "code": link[5]}
        item["target"] = target
        items.append(item)
    return items


def _check(scheme: object, under: object, limit: object, offset: object) -> str | None:
    if scheme is not None and scheme not in SCHEMES:
        raise PMGSQueryError("INVALID_SCHEME", "scheme must be one of fi, ipc, fterm")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise PMGSQueryError("INVALID_LIMIT", f"limit must be an integer from 1 to {MAX_LIMIT}")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise PMGSQueryError("INVALID_OFFSET", "offset must be an integer of 0 or more")
    if under is None:
        return None
    prefix = "".join(str(under).split()).upper() if isinstance(under, str) else ""
    if not prefix or len(prefix) > MAX_UNDER_CHARS:
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            f"under must be a code prefix of 1 to {MAX_UNDER_CHARS} characters (G06F, 5H322)",
        )
    return prefix


def diff_releases(
    old: Source,
    new: Source,
    *,
    scheme: str | None = None,
    under: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> ReleaseDiff:
    """The differences from release ``old`` to release ``new`` (stores or database files).

    ``scheme`` keeps one scheme (a link is kept when either end is of it); ``under`` keeps
    codes starting with the prefix as written canonically (``G06F3/``, ``5H322``; links with
    either end under it). Items are ordered by section, scheme, code and target; ``limit``
    (≤ 200) and ``offset`` page them, the counts always cover everything.
    """
    prefix = _check(scheme, under, limit, offset)
    items: list[DiffItem] = []
    with _reader(old) as (old_conn, old_ref, _), _reader(new) as (new_conn, new_ref, attribution):
        for name, edition in SCHEME_EDITIONS:
            if scheme in (None, name):
                before = load_side(old_conn, name, edition, prefix)
                after = load_side(new_conn, name, edition, prefix)
                items.extend(_code_items(name, edition, before, after))
        for kind, section in (("theme", "theme_link"), ("concordance", "concordance")):
            before_links = load_links(old_conn, kind, prefix)
            after_links = load_links(new_conn, kind, prefix)
            items.extend(_link_items(f"{section}_added", after_links - before_links, scheme))  # type: ignore[arg-type]
            items.extend(_link_items(f"{section}_removed", before_links - after_links, scheme))  # type: ignore[arg-type]
    order = {name: index for index, name in enumerate(DIFF_SECTIONS)}
    items.sort(key=lambda i: (order[i["section"]], i["scheme"], i["code"], str(i["target"])))
    counts: dict[tuple[DiffSection, str], int] = {}
    for item in items:
        key = (item["section"], item["scheme"])
        counts[key] = counts.get(key, 0) + 1
    page = items[offset : offset + limit]
    more = offset + len(page) < len(items)
    return {
        "record_type": "release_diff",
        "from_release": old_ref,
        "to_release": new_ref,
        "scheme": scheme,
        "under": prefix,
        "counts": [{"section": s, "scheme": c, "count": n} for (s, c), n in counts.items()],
        "total": len(items),
        "limit": limit,
        "offset": offset,
        "truncated": more,
        "next_offset": offset + len(page) if more else None,
        "items": page,
        "attribution": attribution,
        "content_role": CONTENT_ROLE,
        "notice": EVIDENCE_NOTICE,
    }
