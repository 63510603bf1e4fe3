"""Reading one release's side of a diff: canonical codes, titles, parents and links.

Each query walks one scheme's codes in index order between two bounds (a code prefix or
everything), so a filtered diff reads only the codes under the prefix. IPC is compared on
the 8U edition (the one in force); its title is that of the newest version.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Final

from pmgs_core.schema import IPC_EDITIONS

__all__ = ["SCHEME_EDITIONS", "Link", "Side", "load_links", "load_side"]

SCHEME_EDITIONS: Final = (("fi", ""), ("fterm", ""), ("ipc", "8U"))
_TOP: Final = "\U0010ffff"

Link = tuple[str, str, str, str, str, str]
"""(from scheme, from edition, from code, to scheme, to edition, to code)."""


@dataclass(slots=True)
class Side:
    """One scheme of one release: kind, ja title and parent of every canonical code."""

    kinds: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)


def _bounds(under: str | None) -> tuple[str, str]:
    return ("", _TOP) if under is None else (under, under + _TOP)


def load_side(conn: sqlite3.Connection, scheme: str, edition: str, under: str | None) -> Side:
    """The codes of one scheme (under a prefix) with their titles and parents."""
    low, high = _bounds(under)
    where = (
        "c.scheme = ? AND c.edition = ? AND c.status = 'canonical' AND c.code >= ? AND c.code < ?"
    )
    params = (scheme, edition, low, high)
    side = Side()
    kind_sql = f"SELECT c.code, c.kind FROM concept AS c WHERE {where}"  # noqa: S608
    for code, kind in conn.execute(kind_sql, params):
        side.kinds[code] = kind
    parent_sql = (
        "SELECT c.code, p.code FROM concept AS c "  # noqa: S608 - constant text only
        "JOIN relation AS r ON r.from_concept_id = c.id AND r.kind = 'parent' "
        f"JOIN concept AS p ON p.id = r.to_concept_id WHERE {where}"
    )
    for code, parent in conn.execute(parent_sql, params):
        side.parents[code] = parent
    text_sql = (
        "SELECT c.code, r.version, t.body FROM concept AS c "  # noqa: S608 - constant text only
        "JOIN revision AS r ON r.concept_id = c.id "
        "JOIN text AS t ON t.revision_id = r.id AND t.language = 'ja' "
        f"WHERE {where} ORDER BY c.code, r.version, t.text_type, t.line, t.id"
    )
    current: tuple[str, str] | None = None
    parts: list[str] = []
    for code, version, body in conn.execute(text_sql, params):
        if current is not None and current[0] != code:
            side.titles[current[0]] = "\n".join(parts)
            parts = []
        elif current is not None and current[1] != version:
            parts = []  # a newer IPC version: its texts replace the older one's
        current = (code, version)
        parts.append(body)
    if current is not None:
        side.titles[current[0]] = "\n".join(parts)
    return side


_LINK_ENDS: Final = (("fi", ""), ("fterm", ""), *(("ipc", e) for e in IPC_EDITIONS))
_LINK_COLUMNS: Final = "f.scheme, f.edition, f.code, t.scheme, t.edition, t.code"


def load_links(conn: sqlite3.Connection, kind: str, under: str | None) -> set[Link]:
    """Every ``theme`` or ``concordance`` relation with an end under the prefix.

    Without a prefix the relation table is read once. With one, each scheme and edition's
    codes under the prefix are found on the (scheme, edition, code) index and their links on
    the relation indexes, from either end, so a filtered diff reads only what it reports.
    """
    if under is None:
        sql = (
            f"SELECT {_LINK_COLUMNS} FROM relation AS r "  # noqa: S608 - constant text only
            "JOIN concept AS f ON f.id = r.from_concept_id "
            "JOIN concept AS t ON t.id = r.to_concept_id WHERE r.kind = ?"
        )
        return set(conn.execute(sql, (kind,)).fetchall())
    low, high = _bounds(under)
    found: set[Link] = set()
    for end, other, column in (("f", "t", "from_concept_id"), ("t", "f", "to_concept_id")):
        other_column = "to_concept_id" if column == "from_concept_id" else "from_concept_id"
        sql = (
            f"SELECT {_LINK_COLUMNS} FROM concept AS {end} "  # noqa: S608 - constant text only
            f"JOIN relation AS r ON r.{column} = {end}.id AND r.kind = ? "
            f"JOIN concept AS {other} ON {other}.id = r.{other_column} "
            f"WHERE {end}.scheme = ? AND {end}.edition = ? AND {end}.code >= ? AND {end}.code < ?"
        )
        for scheme, edition in _LINK_ENDS:
            found.update(conn.execute(sql, (kind, scheme, edition, low, high)).fetchall())
    return found
