"""diff_releases pages, computed in SQL, against the whole diff computed the old way.

The oracle below is the computation ``diff_releases`` used before pages streamed: both
releases read into Python per scheme, compared as dicts and sets, every item sorted, the
page sliced. It is kept here, unchanged in substance, so that every page of the SQL
version (any filter, section, limit and offset) can be compared with it. The planned next
release has no moves, no IPC change and no added link, so a copy of it is edited here by
SQL to add each of those, and a title of two lines, and links that tie on their code.
"""

from __future__ import annotations

import functools
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import build_database
from pmgs_core import PMGSStore, diff_releases
from pmgs_core.schema import IPC_EDITIONS
from pmgs_testkit import ReleasePlan, generate_package, plan_next_release, write_next_release

_TOP = "\U0010ffff"
_SECTIONS = (
    "added",
    "removed",
    "retitled",
    "moved",
    "theme_link_added",
    "theme_link_removed",
    "concordance_added",
    "concordance_removed",
)

# --- the oracle: the whole diff in memory, as diff_releases computed it before -------------


def _side(conn: sqlite3.Connection, scheme: str, edition: str, low: str, high: str) -> Any:
    where = (
        "c.scheme = ? AND c.edition = ? AND c.status = 'canonical' AND c.code >= ? AND c.code < ?"
    )
    params = (scheme, edition, low, high)
    kinds = dict(conn.execute(f"SELECT c.code, c.kind FROM concept AS c WHERE {where}", params))
    parents = dict(
        conn.execute(
            "SELECT c.code, p.code FROM concept AS c "
            "JOIN relation AS r ON r.from_concept_id = c.id AND r.kind = 'parent' "
            f"JOIN concept AS p ON p.id = r.to_concept_id WHERE {where}",
            params,
        )
    )
    titles: dict[str, str] = {}
    current: tuple[str, str] | None = None
    parts: list[str] = []
    for code, version, body in conn.execute(
        "SELECT c.code, r.version, t.body FROM concept AS c "
        "JOIN revision AS r ON r.concept_id = c.id "
        "JOIN text AS t ON t.revision_id = r.id AND t.language = 'ja' "
        f"WHERE {where} ORDER BY c.code, r.version, t.text_type, t.line, t.id",
        params,
    ):
        if current is not None and current[0] != code:
            titles[current[0]] = "\n".join(parts)
            parts = []
        elif current is not None and current[1] != version:
            parts = []
        current = (code, version)
        parts.append(body)
    if current is not None:
        titles[current[0]] = "\n".join(parts)
    return kinds, titles, parents


def _links(conn: sqlite3.Connection, kind: str, low: str, high: str, under: bool) -> set[Any]:
    columns = "f.scheme, f.edition, f.code, t.scheme, t.edition, t.code"
    if not under:
        return set(
            conn.execute(
                f"SELECT {columns} FROM relation AS r "
                "JOIN concept AS f ON f.id = r.from_concept_id "
                "JOIN concept AS t ON t.id = r.to_concept_id WHERE r.kind = ?",
                (kind,),
            )
        )
    found: set[Any] = set()
    ends = (("fi", ""), ("fterm", ""), *(("ipc", e) for e in IPC_EDITIONS))
    for end, other, column, other_column in (
        ("f", "t", "from_concept_id", "to_concept_id"),
        ("t", "f", "to_concept_id", "from_concept_id"),
    ):
        sql = (
            f"SELECT {columns} FROM concept AS {end} "
            f"JOIN relation AS r ON r.{column} = {end}.id AND r.kind = ? "
            f"JOIN concept AS {other} ON {other}.id = r.{other_column} "
            f"WHERE {end}.scheme = ? AND {end}.edition = ? AND {end}.code >= ? AND {end}.code < ?"
        )
        for scheme, edition in ends:
            found.update(conn.execute(sql, (kind, scheme, edition, low, high)))
    return found


def _item(section: str, scheme: str, edition: str, code: str, **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "section": section,
        "scheme": scheme,
        "edition": edition or None,
        "code": code,
        "kind": None,
        "old_title": None,
        "new_title": None,
        "old_parent": None,
        "new_parent": None,
        "target": None,
    }
    item.update(fields)
    return item


@functools.cache
def _oracle(old: Path, new: Path, scheme: str | None, under: str | None) -> list[dict[str, Any]]:
    """Every item of the diff, in the record's order, computed the way it was before."""
    low, high = ("", _TOP) if under is None else (under, under + _TOP)
    items: list[dict[str, Any]] = []
    with sqlite3.connect(old) as before, sqlite3.connect(new) as after:
        for name, edition in (("fi", ""), ("fterm", ""), ("ipc", "8U")):
            if scheme not in (None, name):
                continue
            (ok, ot, op), (nk, nt, np) = (
                _side(before, name, edition, low, high),
                _side(after, name, edition, low, high),
            )
            key = (name, edition)
            for code in sorted(nk.keys() - ok.keys()):
                items.append(
                    _item(
                        "added",
                        *key,
                        code,
                        kind=nk[code],
                        new_title=nt.get(code),
                        new_parent=np.get(code),
                    )
                )
            for code in sorted(ok.keys() - nk.keys()):
                items.append(
                    _item(
                        "removed",
                        *key,
                        code,
                        kind=ok[code],
                        old_title=ot.get(code),
                        old_parent=op.get(code),
                    )
                )
            for code in sorted(ok.keys() & nk.keys()):
                if ot.get(code) != nt.get(code):
                    items.append(
                        _item(
                            "retitled",
                            *key,
                            code,
                            kind=nk[code],
                            old_title=ot.get(code),
                            new_title=nt.get(code),
                        )
                    )
                if op.get(code) != np.get(code):
                    items.append(
                        _item(
                            "moved",
                            *key,
                            code,
                            kind=nk[code],
                            old_parent=op.get(code),
                            new_parent=np.get(code),
                        )
                    )
        for kind, stem in (("theme", "theme_link"), ("concordance", "concordance")):
            was = _links(before, kind, low, high, under is not None)
            now = _links(after, kind, low, high, under is not None)
            for section, links in ((f"{stem}_added", now - was), (f"{stem}_removed", was - now)):
                for link in sorted(links):
                    if scheme is not None and scheme not in (link[0], link[3]):
                        continue
                    target = {"scheme": link[3], "edition": link[4] or None, "code": link[5]}
                    items.append(_item(section, link[0], link[1], link[2], target=target))
    order = {name: index for index, name in enumerate(_SECTIONS)}
    items.sort(key=lambda i: (order[i["section"]], i["scheme"], i["code"], str(i["target"])))
    return items


def _counts(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    counts: dict[tuple[str, str], int] = {}
    for item in items:
        key = (item["section"], item["scheme"])
        counts[key] = counts.get(key, 0) + 1
    return [{"section": s, "scheme": c, "count": n} for (s, c), n in counts.items()]


# --- the releases: planned next release, and a copy edited with what the plan lacks ---------


def _copy_row(conn: sqlite3.Connection, table: str, row_id: int, **changes: Any) -> None:
    """Insert a copy of one row of ``table`` (a new id) with some columns changed."""
    names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] != "id"]
    row = dict(
        zip(
            names,
            conn.execute(
                f"SELECT {', '.join(names)} FROM {table} WHERE id = ?", (row_id,)
            ).fetchone(),
            strict=True,
        )
    )
    row.update(changes)
    marks = ", ".join("?" for _ in names)
    conn.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", list(row.values()))


def _concept(conn: sqlite3.Connection, scheme: str, edition: str, nth: int) -> tuple[int, str]:
    row = conn.execute(
        "SELECT id, code FROM concept WHERE scheme = ? AND edition = ? AND status = 'canonical' "
        "AND EXISTS (SELECT 1 FROM relation WHERE from_concept_id = concept.id "
        "AND kind = 'parent') ORDER BY code LIMIT 1 OFFSET ?",
        (scheme, edition, nth),
    ).fetchone()
    return row[0], row[1]


def _edit(path: Path) -> None:
    """Moves, an IPC retitle and removal, a two-line title, added links that tie on code."""
    with sqlite3.connect(path) as conn:
        for scheme, edition, nth in (("fi", "", 5), ("fterm", "", 9), ("ipc", "8U", 3)):
            moved, _ = _concept(conn, scheme, edition, nth)
            elsewhere, _ = _concept(conn, scheme, edition, nth + 7)
            conn.execute(
                "UPDATE relation SET to_concept_id = ? "
                "WHERE from_concept_id = ? AND kind = 'parent'",
                (elsewhere, moved),
            )
        ipc, ipc_code = _concept(conn, "ipc", "8U", 11)
        conn.execute(
            "UPDATE text SET body = body || '（改）' WHERE language = 'ja' AND revision_id = "
            "(SELECT id FROM revision WHERE concept_id = ? ORDER BY version DESC LIMIT 1)",
            (ipc,),
        )
        gone, _ = _concept(conn, "ipc", "8U", 12)
        conn.execute("UPDATE concept SET status = 'reference_only' WHERE id = ?", (gone,))
        fi, _ = _concept(conn, "fi", "", 20)
        text_id, line = conn.execute(
            "SELECT t.id, t.line FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
            "WHERE r.concept_id = ? AND t.language = 'ja' ORDER BY t.line DESC",
            (fi,),
        ).fetchone()
        _copy_row(conn, "text", text_id, line=line + 1, body="二行目")
        other_fi, _ = _concept(conn, "fi", "", 30)
        theme_link = conn.execute(
            "SELECT id FROM relation WHERE kind = 'theme' AND to_concept_id NOT IN "
            "(SELECT to_concept_id FROM relation WHERE from_concept_id = ?) LIMIT 1",
            (other_fi,),
        ).fetchone()
        _copy_row(conn, "relation", theme_link[0], from_concept_id=other_fi)
        concordance = conn.execute(
            "SELECT id FROM relation WHERE kind = 'concordance' LIMIT 1"
        ).fetchone()[0]
        twin = conn.execute(
            "SELECT id FROM concept WHERE scheme = 'ipc' AND edition = '7E' AND code = ?",
            (ipc_code,),
        ).fetchone()
        for end in (ipc, twin[0]) if twin else (ipc,):
            for target in (other_fi, fi):
                _copy_row(conn, "relation", concordance, from_concept_id=end, to_concept_id=target)
            _copy_row(conn, "relation", concordance, from_concept_id=fi, to_concept_id=end)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("pages")
    base = generate_package(root / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base, with_chains=True)
    build_database(base.path, root / "old.sqlite")
    build_database(write_next_release(base, root / "next", plan), root / "new.sqlite")
    shutil.copyfile(root / "new.sqlite", root / "edited.sqlite")
    _edit(root / "edited.sqlite")
    return {"plan": plan, **{name: root / f"{name}.sqlite" for name in ("old", "new", "edited")}}


def _streamed(old: Path, new: Path, limit: int, **filters: Any) -> tuple[list[Any], Any]:
    """Every page, ``limit`` items at a time, concatenated; and the first page."""
    items: list[Any] = []
    first = None
    offset: int | None = 0
    while offset is not None:
        page = diff_releases(old, new, limit=limit, offset=offset, **filters)
        first = first or page
        assert page["counts"] == first["counts"]
        assert page["total"] == first["total"]
        items.extend(page["items"])
        offset = page["next_offset"]
    return items, first


def test_the_edited_release_has_every_kind_of_change(pair: dict[str, Any]) -> None:
    """The comparison below only proves something if every section and scheme occurs."""
    items = _oracle(pair["old"], pair["edited"], None, None)
    found = {(i["section"], i["scheme"]) for i in items}
    assert {("moved", "fi"), ("moved", "fterm"), ("moved", "ipc")} <= found
    assert {("retitled", "ipc"), ("removed", "ipc"), ("retitled", "fi")} <= found
    assert {("theme_link_added", "fi"), ("concordance_added", "ipc")} <= found
    assert any("\n" in (i["new_title"] or "") for i in items)
    codes = [(i["section"], i["code"]) for i in items if i["section"] == "concordance_added"]
    assert len(codes) > len(set(codes))  # links that tie on section and code


def _filters(plan: ReleasePlan) -> list[dict[str, Any]]:
    return [
        {},
        {"scheme": "fi"},
        {"scheme": "fterm"},
        {"scheme": "ipc"},
        {"under": plan.abolished_theme},
        {"under": plan.retitled[0].code[:4]},
        {"under": plan.abolished[0].code[:1]},
        {"under": "G", "scheme": "ipc"},
        {"under": "ZZZZ"},
    ]


@pytest.mark.parametrize(
    ("older", "newer", "limit"),
    [
        ("old", "new", 3),
        ("old", "edited", 1),
        ("old", "edited", 7),
        ("old", "edited", 200),
        ("edited", "old", 3),
    ],
)
def test_streamed_pages_are_the_whole_diff_in_order(
    pair: dict[str, Any], older: str, newer: str, limit: int
) -> None:
    old, new = pair[older], pair[newer]
    for filters in _filters(pair["plan"]):
        expected = _oracle(old, new, filters.get("scheme"), filters.get("under"))
        items, first = _streamed(old, new, limit, **filters)
        assert items == expected, filters
        assert first["counts"] == _counts(expected), filters
        assert first["total"] == len(expected), filters


def test_any_offset_is_the_same_slice(pair: dict[str, Any]) -> None:
    """Inside a bucket, across buckets, at the end, past it and far past SQLite's integers."""
    expected = _oracle(pair["old"], pair["edited"], None, None)
    size = len(expected)
    for offset in (0, 1, 4, 17, size - 5, size - 1, size, size + 1, 10**6, 10**30):
        page = diff_releases(pair["old"], pair["edited"], limit=5, offset=offset)
        assert page["items"] == expected[offset : offset + 5], offset
        assert page["total"] == size
        assert page["counts"] == _counts(expected)
        more = offset + 5 < size
        assert page["truncated"] is more
        assert page["next_offset"] == (offset + 5 if more else None)


def test_a_store_and_a_path_give_the_same_page(pair: dict[str, Any]) -> None:
    with PMGSStore.open(pair["old"]) as old, PMGSStore.open(pair["edited"]) as new:
        from_stores = diff_releases(old, new, limit=9, offset=2)
    assert from_stores == diff_releases(pair["old"], pair["edited"], limit=9, offset=2)
