"""Expected answers read straight from the database with SQL (never through pmgs-core)."""

from __future__ import annotations

import re
import sqlite3
from html.parser import HTMLParser

from markupsafe import escape


def shown(text: str) -> str:
    """How a package text appears in the page source (escaped exactly as Jinja2 does)."""
    return str(escape(text))


def concept_id(conn: sqlite3.Connection, scheme: str, code: str, edition: str = "") -> int:
    row = conn.execute(
        "SELECT id FROM concept WHERE scheme = ? AND code = ? AND edition = ?",
        (scheme, code, edition),
    ).fetchone()
    assert row is not None, (scheme, code, edition)
    return int(row[0])


def texts(
    conn: sqlite3.Connection, scheme: str, code: str, language: str, edition: str = ""
) -> list[tuple[str, str, str]]:
    """(body, source file, locator) of every text of the code's revisions in ``language``."""
    rows = conn.execute(
        "SELECT t.body, f.path, t.locator FROM text AS t "
        "JOIN revision AS r ON r.id = t.revision_id JOIN concept AS c ON c.id = r.concept_id "
        "JOIN source_file AS f ON f.id = t.source_file_id "
        "WHERE c.scheme = ? AND c.code = ? AND c.edition = ? AND t.language = ? "
        "ORDER BY t.line, t.id",
        (scheme, code, edition, language),
    )
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def parent_chain(conn: sqlite3.Connection, scheme: str, code: str, edition: str = "") -> list[str]:
    """The codes above ``code``, top first, following the parent relations."""
    chain: list[str] = []
    current = concept_id(conn, scheme, code, edition)
    while True:
        row = conn.execute(
            "SELECT c.id, c.code FROM relation AS r JOIN concept AS c ON c.id = r.to_concept_id "
            "WHERE r.kind = 'parent' AND r.from_concept_id = ?",
            (current,),
        ).fetchone()
        if row is None:
            return chain[::-1]
        current = int(row[0])
        chain.append(str(row[1]))


def children(conn: sqlite3.Connection, scheme: str, code: str, edition: str = "") -> list[str]:
    rows = conn.execute(
        "SELECT c.code FROM relation AS r JOIN concept AS c ON c.id = r.from_concept_id "
        "WHERE r.kind = 'parent' AND r.to_concept_id = ? AND c.status = 'canonical'",
        (concept_id(conn, scheme, code, edition),),
    )
    return sorted(str(row[0]) for row in rows)


def theme_codes(conn: sqlite3.Connection, theme: str) -> list[str]:
    """Canonical viewpoints and terms of a theme."""
    rows = conn.execute(
        "SELECT code FROM concept WHERE scheme = 'fterm' AND status = 'canonical' "
        "AND code LIKE ? AND length(code) > 5",
        (theme + "%",),
    )
    return sorted(str(row[0]) for row in rows)


def theme_fi_coverage(conn: sqlite3.Connection, theme: str) -> list[str]:
    rows = conn.execute(
        "SELECT f.code FROM relation AS r JOIN concept AS f ON f.id = r.from_concept_id "
        "WHERE r.kind = 'theme' AND r.to_concept_id = ? AND f.scheme = 'fi'",
        (concept_id(conn, "fterm", theme),),
    )
    return sorted(str(row[0]) for row in rows)


def segments(conn: sqlite3.Connection, document_key: str) -> list[tuple[int, str, str]]:
    rows = conn.execute(
        "SELECT t.sequence_number, t.body, t.locator FROM document_text AS t "
        "JOIN document AS d ON d.id = t.document_id WHERE d.document_key = ? "
        "ORDER BY t.sequence_number",
        (document_key,),
    )
    return [(int(a), str(b), str(c)) for a, b, c in rows]


def linked_codes(conn: sqlite3.Connection, document_key: str) -> list[tuple[str, str]]:
    rows = conn.execute(
        "SELECT DISTINCT c.scheme, c.code FROM document_link AS l "
        "JOIN concept AS c ON c.id = l.concept_id JOIN document AS d ON d.id = l.document_id "
        "WHERE d.document_key = ?",
        (document_key,),
    )
    return sorted((str(a), str(b)) for a, b in rows)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in {"href", "src", "action"} and value is not None:
                self.hrefs.append(value)


def hrefs(html: str) -> list[str]:
    """Every href/src/action of a page, unescaped (as a browser would follow it)."""
    parser = _Links()
    parser.feed(html)
    return parser.hrefs


def without_tags(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)
