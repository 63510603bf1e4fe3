"""The diff as SQL over two attached releases: counts per bucket, one page of a bucket.

The new release is the connection's ``main`` schema and the old one is attached as
``prior``, so every comparison is a join or an ``EXCEPT`` that SQLite streams over the
indexes: nothing holds a whole scheme in Python, and a page is read with ``LIMIT``/``OFFSET``
inside the one bucket (section and scheme) it falls in. A bucket is what the counts section
counts, which is why the counts are computed first and the page located from them.

Codes are walked on the ``(scheme, edition, code)`` index between the prefix bounds, in code
order, so a code section's page needs no sort. A title is the ja texts of a code's newest
revision that has any (IPC: the newest 8U version), joined with newlines in text type, line
and id order; the parent is the ``parent`` relation's target.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Final, Literal

from pmgs_core.schema import IPC_EDITIONS

__all__ = [
    "LINK_SECTIONS",
    "PRIOR",
    "SCHEME_EDITIONS",
    "Bounds",
    "CodeSection",
    "LinkSection",
    "code_counts",
    "code_page",
    "link_counts",
    "link_page",
    "target_key",
]

PRIOR: Final = "prior"
SCHEME_EDITIONS: Final = (("fi", ""), ("fterm", ""), ("ipc", "8U"))
LinkSection = Literal[
    "theme_link_added", "theme_link_removed", "concordance_added", "concordance_removed"
]
LINK_SECTIONS: Final[dict[LinkSection, tuple[str, bool]]] = {
    "theme_link_added": ("theme", True),
    "theme_link_removed": ("theme", False),
    "concordance_added": ("concordance", True),
    "concordance_removed": ("concordance", False),
}
"""Each link section: the relation kind it compares and whether it lists the new side's."""
_TOP: Final = "\U0010ffff"
_LINK_ENDS: Final = (("fi", ""), ("fterm", ""), *(("ipc", e) for e in IPC_EDITIONS))

CodeSection = Literal["added", "removed", "retitled", "moved"]
Bounds = tuple[str, str]
CodeRow = tuple[str, str, str | None, str | None, str | None, str | None]
"""(code, kind, old title, new title, old parent, new parent)."""
LinkRow = tuple[str, str, str, str, str, str]
"""(from scheme, from edition, from code, to scheme, to edition, to code)."""


def bounds(under: str | None) -> Bounds:
    """Every code (no prefix) or the codes starting with ``under``, as an index range."""
    return ("", _TOP) if under is None else (under, under + _TOP)


def target_key(scheme: str, edition: str, code: str) -> str:
    """The text links are ordered by after their code: what the item's ``target`` prints as.

    Registered as an SQL function so that a page of links comes out of SQLite in the order
    the record has always used (the ``LinkEnd`` mapping's ``str``), edge cases included.
    """
    return str({"scheme": scheme, "edition": edition or None, "code": code})


def _title(db: str, alias: str, versioned: bool) -> str:
    """The ja title text of concept ``alias`` in schema ``db`` (NULL when it has none).

    FI and F-term concepts have one revision (version ''), so only IPC (``versioned``)
    pays for finding the newest version that has ja texts: a third of the time of a
    whole-release diff goes to titles.
    """
    newest = (
        f"AND r.version = (SELECT max(r2.version) FROM {db}.revision AS r2 "  # noqa: S608
        f"JOIN {db}.text AS t2 ON t2.revision_id = r2.id AND t2.language = 'ja' "
        f"WHERE r2.concept_id = {alias}.id) "
        if versioned
        else ""
    )
    return (
        "(SELECT group_concat(x.body, char(10)) FROM ("  # noqa: S608
        f"SELECT t.body AS body FROM {db}.revision AS r "
        f"JOIN {db}.text AS t ON t.revision_id = r.id AND t.language = 'ja' "
        f"WHERE r.concept_id = {alias}.id {newest}"
        "ORDER BY t.text_type, t.line, t.id) AS x)"
    )


def _parent(db: str, alias: str) -> str:
    return (
        f"(SELECT p.code FROM {db}.relation AS pr JOIN {db}.concept AS p "  # noqa: S608
        f"ON p.id = pr.to_concept_id WHERE pr.from_concept_id = {alias}.id "
        "AND pr.kind = 'parent')"
    )


def _codes(db: str, alias: str) -> str:
    return (
        f"{db}.concept AS {alias} WHERE {alias}.scheme = :scheme AND {alias}.edition = :edition "
        f"AND {alias}.status = 'canonical' AND {alias}.code >= :low AND {alias}.code < :high"
    )


def _also_in(db: str, alias: str, present: bool) -> str:
    """Whether ``alias``'s code is (or is not) a canonical code of schema ``db`` too."""
    return (
        f"{'' if present else 'NOT '}EXISTS (SELECT 1 FROM {db}.concept AS b "  # noqa: S608
        f"WHERE b.scheme = {alias}.scheme AND b.edition = {alias}.edition "
        f"AND b.code = {alias}.code AND b.status = 'canonical')"
    )


def _one_sided(section: Literal["added", "removed"], columns: bool, versioned: bool) -> str:
    """``added``: codes only ``main`` has; ``removed``: codes only ``prior`` has."""
    here, there = ("main", PRIOR) if section == "added" else (PRIOR, "main")
    if not columns:
        return f"SELECT count(*) FROM {_codes(here, 'a')} AND {_also_in(there, 'a', False)}"  # noqa: S608
    title, parent = _title(here, "a", versioned), _parent(here, "a")
    old, new = ("NULL", title) if section == "added" else (title, "NULL")
    old_parent, new_parent = ("NULL", parent) if section == "added" else (parent, "NULL")
    return (
        f"SELECT a.code, a.kind, {old}, {new}, {old_parent}, {new_parent} "  # noqa: S608
        f"FROM {_codes(here, 'a')} AND {_also_in(there, 'a', False)} "
        "ORDER BY a.code LIMIT :limit OFFSET :offset"
    )


def _both(versioned: bool) -> str:
    """Codes of both releases with their titles and parents on either side."""
    return (
        f"SELECT n.code AS code, n.kind AS kind, {_title(PRIOR, 'o', versioned)} AS old_title, "  # noqa: S608
        f"{_title('main', 'n', versioned)} AS new_title, {_parent(PRIOR, 'o')} AS old_parent, "
        f"{_parent('main', 'n')} AS new_parent FROM main.concept AS n "
        f"JOIN {PRIOR}.concept AS o ON o.scheme = n.scheme AND o.edition = n.edition "
        "AND o.code = n.code AND o.status = 'canonical' "
        "WHERE n.scheme = :scheme AND n.edition = :edition AND n.status = 'canonical' "
        "AND n.code >= :low AND n.code < :high"
    )


def code_counts(
    conn: sqlite3.Connection, scheme: str, edition: str, span: Bounds
) -> dict[CodeSection, int]:
    """How many codes of one scheme were added, removed, retitled and moved."""
    params = {"scheme": scheme, "edition": edition, "low": span[0], "high": span[1]}
    added = conn.execute(_one_sided("added", False, False), params).fetchone()[0]
    removed = conn.execute(_one_sided("removed", False, False), params).fetchone()[0]
    both = (
        "SELECT coalesce(sum(old_title IS NOT new_title), 0), "  # noqa: S608
        f"coalesce(sum(old_parent IS NOT new_parent), 0) FROM ({_both(scheme == 'ipc')})"
    )
    retitled, moved = conn.execute(both, params).fetchone()
    return {"added": added, "removed": removed, "retitled": retitled, "moved": moved}


def code_page(
    conn: sqlite3.Connection,
    section: CodeSection,
    where: tuple[str, str, Bounds],
    limit: int,
    offset: int,
) -> list[CodeRow]:
    """Rows ``offset`` to ``offset + limit`` of one code section of one scheme, by code."""
    scheme, edition, span = where
    params = {
        "scheme": scheme,
        "edition": edition,
        "low": span[0],
        "high": span[1],
        "limit": limit,
        "offset": offset,
    }
    if section in ("added", "removed"):
        sql = _one_sided(section, True, scheme == "ipc")
    else:
        differs = (
            "old_title IS NOT new_title"
            if section == "retitled"
            else "old_parent IS NOT new_parent"
        )
        sql = (
            f"SELECT * FROM ({_both(scheme == 'ipc')}) WHERE {differs} "  # noqa: S608
            "ORDER BY code LIMIT :limit OFFSET :offset"
        )
    return conn.execute(sql, params).fetchall()


_LINK_COLUMNS: Final = "f.scheme AS fs, f.edition AS fe, f.code AS fc, t.scheme, t.edition, t.code"


def _link_parts(db: str, under: bool) -> Iterator[str]:
    """SELECTs whose union is every link of schema ``db`` (of kind ``:kind``) in scope.

    Without a prefix the relation table is read once. With one, each scheme and edition's
    codes under it are found on the code index and their links on the relation indexes,
    from either end, so a filtered diff reads only what it reports.
    """
    if not under:
        yield (
            f"SELECT {_LINK_COLUMNS} FROM {db}.relation AS r "  # noqa: S608
            f"JOIN {db}.concept AS f ON f.id = r.from_concept_id "
            f"JOIN {db}.concept AS t ON t.id = r.to_concept_id WHERE r.kind = :kind"
        )
        return
    for end, other, column, other_column in (
        ("f", "t", "from_concept_id", "to_concept_id"),
        ("t", "f", "to_concept_id", "from_concept_id"),
    ):
        for scheme, edition in _LINK_ENDS:
            yield (
                f"SELECT {_LINK_COLUMNS} FROM {db}.concept AS {end} "  # noqa: S608
                f"JOIN {db}.relation AS r ON r.{column} = {end}.id AND r.kind = :kind "
                f"JOIN {db}.concept AS {other} ON {other}.id = r.{other_column} "
                f"WHERE {end}.scheme = '{scheme}' AND {end}.edition = '{edition}' "
                f"AND {end}.code >= :low AND {end}.code < :high"
            )


def _changed_links(added: bool, under: bool) -> str:
    """The links only ``main`` has (added) or only ``prior`` has (removed), distinct."""
    here, there = ("main", PRIOR) if added else (PRIOR, "main")
    keep = " UNION ".join(_link_parts(here, under))
    drop = " EXCEPT ".join(_link_parts(there, under))
    return (
        f"SELECT * FROM ({keep} EXCEPT {drop}) "  # noqa: S608
        "WHERE :scheme IS NULL OR fs = :scheme OR scheme = :scheme"
    )


def _link_params(kind: str, span: Bounds, scheme: str | None) -> dict[str, object]:
    return {"kind": kind, "low": span[0], "high": span[1], "scheme": scheme}


def link_counts(
    conn: sqlite3.Connection, kind: str, added: bool, span: Bounds, scheme: str | None
) -> dict[str, int]:
    """Changed links of one kind and direction, counted per scheme of their from-end."""
    sql = f"SELECT fs, count(*) FROM ({_changed_links(added, span != bounds(None))}) GROUP BY fs"  # noqa: S608
    return dict(conn.execute(sql, _link_params(kind, span, scheme)).fetchall())


def link_page(
    conn: sqlite3.Connection,
    where: tuple[str, bool, str],
    span: Bounds,
    scheme: str | None,
    window: tuple[int, int],
) -> list[LinkRow]:
    """Rows of one link kind, direction and from-scheme: by code, target, from-edition."""
    kind, added, from_scheme = where
    sql = (
        f"SELECT * FROM ({_changed_links(added, span != bounds(None))}) WHERE fs = :from_scheme "  # noqa: S608
        "ORDER BY fc, pmgs_target_key(scheme, edition, code), fe LIMIT :limit OFFSET :offset"
    )
    params = _link_params(kind, span, scheme)
    params.update(from_scheme=from_scheme, limit=window[0], offset=window[1])
    return conn.execute(sql, params).fetchall()
