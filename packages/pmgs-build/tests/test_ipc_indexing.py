"""IPC indexing codes (``A61K 103:00``) of editions 4 to 7 are read, kept apart and answered.

Up to the 7th edition an indexing code is written with ``:`` where a group has ``/``. A
package in which a few percent of the old editions' rows are such codes used to be refused
(each row quarantined as ``CODE_INVALID``, past the error budget of ADR 0009). The oracle
here is the package's own CSV rows, read with :mod:`csv` in this file: which cells hold a
``:``, their levels, and so which row is each code's parent.
"""

from __future__ import annotations

import csv
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import build_database
from pmgs_core import PMGSStore
from pmgs_testkit import GeneratedPackage, generate_package

SHARE = 0.05
OLD_EDITIONS = ("4", "5", "6", "7", "7E")


@dataclass(frozen=True)
class Row:
    """One record of an IPC 4-7 file: the cell as written and its canonical code by hand."""

    edition: str
    cell: str
    code: str
    level: int
    body: str
    parent: str | None


def _canonical(cell: str) -> str:
    """``A61K 103:    00`` -> ``A61K103:00``: the cells of this package need no more."""
    return cell.replace(" ", "")


def _rows(package: Path, edition: str) -> list[Row]:
    rows: list[Row] = []
    for path in sorted((package / "IPC" / f"IPC{edition}_TEXT").glob("*.csv")):
        stack: list[tuple[int, str]] = []
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for cells in csv.reader(handle):
                code, level = _canonical(cells[0]), int(cells[3])
                if cells[1] != "1":
                    continue  # a further text line of the code above
                while stack and stack[-1][0] >= level:
                    stack.pop()
                parent = stack[-1][1] if stack else None
                stack.append((level, code))
                rows.append(Row(edition, cells[0], code, level, cells[5], parent))
    return rows


@dataclass
class Built:
    package: GeneratedPackage
    database: Path
    rows: dict[str, list[Row]]

    def indexing(self, edition: str) -> list[Row]:
        return [row for row in self.rows[edition] if ":" in row.cell]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("indexing")
    package = generate_package(base / "src", scale=0.001, seed=5, ipc_indexing_share=SHARE)
    database = base / "indexing.sqlite"
    build_database(package.path, database)
    rows = {edition: _rows(package.path, edition) for edition in OLD_EDITIONS}
    return Built(package, database, rows)


@pytest.fixture
def db(built: Built) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{built.database}?mode=ro", uri=True)
    yield conn
    conn.close()


def test_the_share_would_break_the_error_budget_if_unreadable(built: Built) -> None:
    """More indexing rows per edition than ADR 0009's budget (max(2, 1 %)) would allow."""
    for edition in OLD_EDITIONS:
        group = f"IPC/IPC{edition}_TEXT"
        records = built.package.rows[group]
        indexing = len(built.indexing(edition))
        assert indexing > max(2, records * 0.01), (edition, indexing, records)
        assert 0.02 <= indexing / records <= 0.08, (edition, indexing, records)


def test_builds_with_zero_quarantine_and_no_code_error(db: sqlite3.Connection) -> None:
    assert db.execute("SELECT COUNT(*) FROM quarantine").fetchone()[0] == 0
    assert (
        db.execute("SELECT COUNT(*) FROM build_issue WHERE code = 'CODE_INVALID'").fetchone()[0]
        == 0
    )


def test_every_indexing_row_is_its_own_concept(built: Built, db: sqlite3.Connection) -> None:
    for edition in OLD_EDITIONS:
        written = {row.code for row in built.indexing(edition)}
        stored = {
            code
            for (code,) in db.execute(
                "SELECT code FROM concept WHERE scheme = 'ipc' AND edition = ? "
                "AND code LIKE '%:%' AND status = 'canonical'",
                (edition,),
            )
        }
        assert stored == written
    # No IPC 8 concept and no FI concept has a colon.
    assert db.execute(
        "SELECT COUNT(*) FROM concept WHERE code LIKE '%:%' AND edition NOT IN "
        "('4', '5', '6', '7', '7E')"
    ).fetchone() == (0,)


def test_generator_counts_agree_with_the_build(built: Built, db: sqlite3.Connection) -> None:
    expected = built.package.expected
    found = {
        (scheme, edition): count
        for scheme, edition, count in db.execute(
            "SELECT scheme, edition, COUNT(*) FROM concept WHERE status = 'canonical' "
            "GROUP BY scheme, edition"
        )
    }
    assert found == expected.canonical_concepts
    parents = {
        (scheme, edition): count
        for scheme, edition, count in db.execute(
            "SELECT c.scheme, c.edition, COUNT(*) FROM relation r JOIN concept c "
            "ON c.id = r.from_concept_id WHERE r.kind = 'parent' GROUP BY 1, 2"
        )
    }
    assert parents == expected.parents


def _lookup(store: PMGSStore, code: str, edition: str | None = None) -> Any:
    language = "en" if edition == "7E" else "ja"
    return store.lookup("ipc", code, edition=edition, language=language, relation_limit=200)


def test_lookups_answer_exact_with_parent_texts_and_marker(built: Built) -> None:
    with PMGSStore.open(built.database) as store:
        for edition in OLD_EDITIONS:
            for row in built.indexing(edition):
                record = _lookup(store, row.code, edition)
                assert record["match_status"] == "exact"
                assert (record["code"], record["edition"]) == (row.code, edition)
                assert record["kind"] == ("main_group" if row.code.endswith(":00") else "subgroup")
                assert [t["body"] for t in record["texts"]] == [row.body]
                properties = {(p["name"], p["value"]) for p in record["properties"]}
                assert ("code_type", "indexing_code") in properties
                parents = [
                    r["target"]["code"]
                    for r in record["relations"]
                    if r["kind"] == "parent" and r["direction"] == "outgoing"
                ]
                assert parents == [row.parent]


def test_indexing_subgroup_parent_is_its_indexing_main_group(built: Built) -> None:
    subgroups = [row for row in built.indexing("7") if not row.code.endswith(":00")]
    assert subgroups, "the package has no indexing subgroup"
    for row in subgroups:
        assert row.parent is not None, row
        assert row.parent == row.code.split(":")[0] + ":00", row


def test_colon_and_slash_codes_of_the_same_numbers_answer_differently(built: Built) -> None:
    twins = 0
    with PMGSStore.open(built.database) as store:
        for row in built.indexing("7"):
            slash = row.code.replace(":", "/")
            group = _lookup(store, slash, "7")
            if group["match_status"] == "not_found":
                continue
            twins += 1
            indexing = _lookup(store, row.code, "7")
            assert (group["code"], indexing["code"]) == (slash, row.code)
            assert group["texts"] != indexing["texts"]
            assert {(p["name"], p["value"]) for p in group["properties"]} == {("flag", "0")}
            # Without an edition the slash code answers from IPC 8, the colon code from 7.
            assert _lookup(store, slash)["code"] == slash
            assert (_lookup(store, row.code)["code"], _lookup(store, row.code)["edition"]) == (
                row.code,
                "7",
            )
    assert twins >= 1, "no indexing code shares its numbers with a group"


def test_other_spellings_reach_the_same_code(built: Built) -> None:
    row = built.indexing("7")[0]
    code = row.code  # e.g. F52D1:00
    subclass, rest = code[:4], code[4:]
    main, sub = rest.split(":")
    full_width = "".join(chr(ord(c) + 0xFEE0) for c in code)
    spellings = {
        code: "exact",
        f"{subclass} {main}:{sub}": "normalized_exact",  # as WIPO's notes write it
        f"{subclass}{main} : {sub}": "normalized_exact",
        code.lower(): "normalized_exact",
        full_width: "normalized_exact",
        row.cell: "normalized_exact",  # the package's own fixed-width cell
    }
    with PMGSStore.open(built.database) as store:
        for spelling, status in spellings.items():
            record = _lookup(store, spelling, "7")
            assert (record["code"], record["match_status"]) == (code, status), spelling


def test_hierarchy_pages_follow_the_files_levels(built: Built) -> None:
    rows = built.indexing("7")
    children: dict[str, list[str]] = {}
    for row in rows:
        if row.parent is not None and ":" in row.parent:
            children.setdefault(row.parent, []).append(row.code)
    assert children, "no indexing main group with indexing subgroups"
    with PMGSStore.open(built.database) as store:
        for main, subgroups in children.items():
            page = store.hierarchy("children", "ipc", main, edition="7")
            assert [item["code"] for item in page["items"]] == subgroups
            up = store.hierarchy("parents", "ipc", subgroups[-1], edition="7")
            chain = [item["code"] for item in up["items"]]
            assert chain[-2:] == [main[:4], main]  # top down: ... subclass, indexing main
            assert all("/" not in code for code in chain)


def test_search_finds_indexing_codes(built: Built) -> None:
    row = built.indexing("7")[0]
    with PMGSStore.open(built.database) as store:
        page = store.search(row.body, schemes=["ipc"], limit=50)
    assert (row.code, "7") in {(hit["code"], hit["edition"]) for hit in page["results"]}


def test_misplaced_indexing_codes_are_quarantined(built: Built, tmp_path: Path) -> None:
    """A ':' code in IPC 8U, or on the IPC 8 side of a concordance, is not an IPC 8 code."""
    package = tmp_path / built.package.path.name
    shutil.copytree(built.package.path, package)
    row = built.indexing("7")[0]
    ipc8u = sorted((package / "IPC" / "IPC8U_TEXT").glob("*.csv"))[-1]
    with ipc8u.open("a", encoding="utf-8", newline="") as handle:
        handle.write(f"{row.cell},(2006.01),1,1,04,0,0,20060101,99991231,0,x\r\n")
    concordance = sorted((package / "CONCORDANCE").glob("con_IPC7toIPC8U_*.csv"))[0]
    slash = row.cell.replace(":", "/")
    with concordance.open("a", encoding="utf-8", newline="") as handle:
        handle.write(f"7,{row.cell},8,{row.cell}\r\n")
        handle.write(f"7,{row.cell},8,{slash}\r\n")  # a well-formed IPC 7 -> 8 row
    output = tmp_path / "misplaced.sqlite"
    build_database(package, output)
    with sqlite3.connect(output) as conn:
        reasons = conn.execute(
            "SELECT q.reason, s.data_group FROM quarantine q JOIN source_file s "
            "ON s.id = q.source_file_id ORDER BY s.data_group"
        ).fetchall()
        assert reasons == [("CODE_INVALID", "CONCORDANCE"), ("CODE_INVALID", "IPC/IPC8U_TEXT")]
        assert conn.execute(
            "SELECT COUNT(*) FROM concept WHERE code LIKE '%:%' AND edition = '8U'"
        ).fetchone() == (0,)
        # The IPC 7 side of a concordance names the indexing concept the IPC 7 file defines.
        ends = conn.execute(
            "SELECT f.edition, f.code, f.status, t.edition, t.code FROM relation r "
            "JOIN concept f ON f.id = r.from_concept_id JOIN concept t ON t.id = r.to_concept_id "
            "WHERE r.kind = 'concordance' AND f.code LIKE '%:%'"
        ).fetchall()
        assert ends == [("7", row.code, "canonical", "8U", row.code.replace(":", "/"))]
