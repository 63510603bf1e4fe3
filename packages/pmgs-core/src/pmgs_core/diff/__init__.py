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
from pathlib import Path
from typing import Any, Final

from pmgs_core.diff._records import (
    DIFF_SECTIONS,
    DiffCount,
    DiffItem,
    DiffSection,
    LinkEnd,
    ReleaseDiff,
)
from pmgs_core.diff._sql import (
    LINK_SECTIONS,
    PRIOR,
    SCHEME_EDITIONS,
    Bounds,
    bounds,
    code_counts,
    code_page,
    link_counts,
    link_page,
    target_key,
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
Bucket = tuple[DiffSection, str]
"""A section and the scheme of its items: what the counts count and a page is cut from."""


@contextmanager
def _attached(old: Source, new: Source) -> Iterator[tuple[sqlite3.Connection, _Stamps]]:
    """One read-only connection on ``new`` with ``old`` attached as ``prior``.

    Both stores check their files when opened; the diff then runs as SQL across the two
    schemas, so a page costs what its queries read, never a copy of either release.
    """
    (new_path, new_ref, attribution), (old_path, old_ref, _) = _stamp(new), _stamp(old)
    try:
        conn = sqlite3.connect(new_path.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error:
        raise PMGSQueryError("DATABASE_ERROR", "a release database could not be read") from None
    try:
        conn.execute(f"ATTACH DATABASE ? AS {PRIOR}", (old_path.resolve().as_uri() + "?mode=ro",))
        conn.execute("PRAGMA query_only = 1")
        conn.create_function("pmgs_target_key", 3, target_key, deterministic=True)
        yield conn, (old_ref, new_ref, attribution)
    except sqlite3.Error:
        raise PMGSQueryError("DATABASE_ERROR", "a release database could not be read") from None
    finally:
        conn.close()


_Stamps = tuple[ReleaseRef, ReleaseRef, str]


def _stamp(source: Source) -> tuple[Path, ReleaseRef, str]:
    """The database file, release stamp and attribution; the store checks the file."""
    if isinstance(source, PMGSStore):
        path, release = source.database_path, source.release_info()
    else:
        with PMGSStore.open(source) as store:
            path, release = store.database_path, store.release_info()
    ref: ReleaseRef = {
        "release_id": release["release_id"],
        "reference_date": release["reference_date"],
    }
    return path, ref, release["attribution"]


def _code_item(section: DiffSection, scheme: str, edition: str, row: tuple[Any, ...]) -> DiffItem:
    code, kind, old_title, new_title, old_parent, new_parent = row
    return {
        "section": section,
        "scheme": scheme,
        "edition": edition or None,
        "code": code,
        "kind": kind,
        "old_title": old_title if section != "moved" else None,
        "new_title": new_title if section != "moved" else None,
        "old_parent": old_parent if section not in ("retitled",) else None,
        "new_parent": new_parent if section not in ("retitled",) else None,
        "target": None,
    }


def _link_item(section: DiffSection, row: tuple[Any, ...]) -> DiffItem:
    from_scheme, from_edition, code, to_scheme, to_edition, to_code = row
    target: LinkEnd = {"scheme": to_scheme, "edition": to_edition or None, "code": to_code}
    return {
        "section": section,
        "scheme": from_scheme,
        "edition": from_edition or None,
        "code": code,
        "kind": None,
        "old_title": None,
        "new_title": None,
        "old_parent": None,
        "new_parent": None,
        "target": target,
    }


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
    span = bounds(prefix)
    with _attached(old, new) as (conn, (old_ref, new_ref, attribution)):
        buckets = _buckets(conn, scheme, span)
        page: list[DiffItem] = []
        start = 0
        for (section, bucket_scheme), count in buckets.items():
            first, last = max(offset, start), min(offset + limit, start + count)
            if first < last:
                window = (last - first, first - start)
                page.extend(_bucket_page(conn, (section, bucket_scheme), span, scheme, window))
            start += count
    total = start
    more = offset + len(page) < total
    return {
        "record_type": "release_diff",
        "from_release": old_ref,
        "to_release": new_ref,
        "scheme": scheme,
        "under": prefix,
        "counts": [{"section": s, "scheme": c, "count": n} for (s, c), n in buckets.items()],
        "total": total,
        "limit": limit,
        "offset": offset,
        "truncated": more,
        "next_offset": offset + len(page) if more else None,
        "items": page,
        "attribution": attribution,
        "content_role": CONTENT_ROLE,
        "notice": EVIDENCE_NOTICE,
    }


def _buckets(conn: sqlite3.Connection, scheme: str | None, span: Bounds) -> dict[Bucket, int]:
    """The non-empty counts per section and scheme, in the order of the items."""
    found: dict[Bucket, int] = {}
    for name, edition in SCHEME_EDITIONS:
        if scheme in (None, name):
            for section, count in code_counts(conn, name, edition, span).items():
                found[(section, name)] = count
    for link_section, (kind, added) in LINK_SECTIONS.items():
        for name, count in link_counts(conn, kind, added, span, scheme).items():
            found[(link_section, name)] = count
    order = {name: index for index, name in enumerate(DIFF_SECTIONS)}
    ordered = sorted(found.items(), key=lambda entry: (order[entry[0][0]], entry[0][1]))
    return {bucket: count for bucket, count in ordered if count}


def _bucket_page(
    conn: sqlite3.Connection,
    bucket: Bucket,
    span: Bounds,
    scheme: str | None,
    window: tuple[int, int],
) -> list[DiffItem]:
    """``window`` (limit, offset inside the bucket) of one bucket's items."""
    section, name = bucket
    if section in LINK_SECTIONS:
        kind, added = LINK_SECTIONS[section]
        links = link_page(conn, (kind, added, name), span, scheme, window)
        return [_link_item(section, row) for row in links]
    edition = dict(SCHEME_EDITIONS)[name]
    codes = code_page(conn, section, (name, edition, span), *window)  # type: ignore[arg-type]
    return [_code_item(section, name, edition, row) for row in codes]
