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


def term_depth(conn: sqlite3.Connection, term: str) -> int:
    """1 for a term right under its viewpoint, 2 for a term under such a term, …"""
    chain = parent_chain(conn, "fterm", term)
    return len(chain) - chain.index(term[:7])


def code_title(conn: sqlite3.Connection, scheme: str, code: str, edition: str = "") -> str:
    rows = texts(conn, scheme, code, "ja", edition)
    return rows[0][0] if rows else ""


def markers(conn: sqlite3.Connection, scheme: str, code: str, edition: str = "") -> list[str]:
    """J-PlatPat's markers of a code, written from their definitions: an F-term theme, a
    concordance relation, an FI handbook document about it."""
    concept = concept_id(conn, scheme, code, edition)
    found = []
    if conn.execute(
        "SELECT 1 FROM relation WHERE kind = 'theme' AND from_concept_id = ?", (concept,)
    ).fetchone():
        found.append("F")
    if conn.execute(
        "SELECT 1 FROM relation WHERE kind = 'concordance' "
        "AND ? IN (from_concept_id, to_concept_id)",
        (concept,),
    ).fetchone():
        found.append("CC")
    if conn.execute(
        "SELECT 1 FROM document_link l JOIN document d ON d.id = l.document_id "
        "WHERE d.kind = 'fi_handbook' AND l.role = 'subject' AND l.concept_id = ?",
        (concept,),
    ).fetchone():
        found.append("HB")
    return found


class _Grid(HTMLParser):
    """The F-term grid of a page: for each band its row header and its lines of cells."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.bands: list[dict[str, object]] = []
        self._in_table = False
        self._in_head = False
        self._cell: dict[str, object] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "table" and "grid" in (attr.get("class") or ""):
            self._in_table = True
        if not self._in_table:
            return
        if tag == "thead":
            self._in_head = True
        elif tag == "tbody":
            self.bands.append({"header": "", "lines": []})
        elif tag == "tr" and not self._in_head:
            self.bands[-1]["lines"].append([])  # type: ignore[attr-defined]
        elif tag in {"td", "th"}:
            self._cell = {"tag": tag, "class": attr.get("class") or "", "href": None, "sub": ""}
            self._text = []
        elif tag == "a" and self._cell is not None and self._cell["href"] is None:
            self._cell["href"] = attr.get("href")
        elif tag == "span" and self._cell is not None and attr.get("class") == "sub":
            self._cell["sub"] = None  # filled by the next text

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            if self._cell["sub"] is None:
                self._cell["sub"] = data
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if not self._in_table:
            return
        if tag == "table":
            self._in_table = False
        elif tag == "thead":
            self._in_head = False
        elif tag in {"td", "th"} and self._cell is not None:
            self._cell["text"] = "".join(self._text).strip()
            if self._in_head:
                self.headings.append(str(self._cell["text"]))
            elif tag == "th":
                self.bands[-1]["header"] = self._cell["text"]
                self.bands[-1]["header_href"] = self._cell["href"]
            else:
                self.bands[-1]["lines"][-1].append(self._cell)  # type: ignore[index]
            self._cell = None


def grid_of(html: str) -> _Grid:
    parser = _Grid()
    parser.feed(html)
    return parser
