"""Answers a person can read (issue 29): whole texts at 80 columns, FI next to IPC on the first
page, and a next step after every empty or negative answer that names a command that works.

Long texts are written into a copy of the sample database with SQL (a Japanese title that
ends in its exclusion, an English one, a long parent label, a long handbook segment); the
oracle of "the whole text is shown" is that SQL, never the renderer. Hinted commands are
taken from the output and run as printed.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from pmgs_cli import render
from pmgs_core import PMGSStore
from pmgs_core.schema import rebuild_search_indexes

LONG_JA = (
    "合成データ：移動と放射線とを組み合わせたものであって、表示装置の画面上に表示された"
    "対象を指示するための相互作用技術によるもの（記録媒体を除く）"
)
LONG_EN = (
    "Synthetic: interaction techniques combining movement and radiation for pointing at "
    "objects shown on a display screen (excluding recording media)"
)
LONG_PARENT = (
    "合成データ：表示装置の画面上の対象を選択するための入力装置であって"
    "複数の操作を組み合わせたもの（音声入力を除く）"
)
LONG_SEGMENT = (
    "合成データ：" + "放射線と移動とを組み合わせた操作の説明。" * 8 + "（記録媒体を除く）"
)
Runner = Callable[..., subprocess.CompletedProcess[str]]
CODE = "G06F3/048"
DOCUMENT = "fi_handbook:ja:G06F3/048"


def _set_text(conn: sqlite3.Connection, code: str, language: str, body: str) -> None:
    changed = conn.execute(
        "UPDATE text SET body = ? WHERE language = ? AND revision_id IN (SELECT r.id FROM "
        "revision r JOIN concept c ON c.id = r.concept_id WHERE c.scheme = 'fi' AND c.code = ?)",
        (body, language, code),
    ).rowcount
    assert changed >= 1, (code, language)


@pytest.fixture(scope="module")
def long_db(database: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample database with long texts on FI G06F3/048, its parent and its handbook."""
    path = tmp_path_factory.mktemp("long") / "long.sqlite"
    shutil.copyfile(database, path)
    conn = sqlite3.connect(path)
    _set_text(conn, CODE, "ja", LONG_JA)
    _set_text(conn, CODE, "en", LONG_EN)
    _set_text(conn, "G06F3/04", "ja", LONG_PARENT)
    conn.execute(
        "UPDATE document_text SET body = ? WHERE sequence_number = 1 AND document_id = "
        "(SELECT id FROM document WHERE document_key = ?)",
        (LONG_SEGMENT, DOCUMENT),
    )
    conn.commit()
    rebuild_search_indexes(conn)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def store(long_db: Path) -> Iterator[PMGSStore]:
    with PMGSStore.open(long_db) as opened:
        yield opened


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """render.stdout as an 80-column console writing into a string."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, highlight=False, soft_wrap=False, color_system=None)
    monkeypatch.setattr(render, "stdout", console)
    return buffer


def _columns(output: str) -> str:
    """Each table column (or panel body) read downwards, whitespace removed: a text folded
    over several lines of one cell is contiguous again."""
    cells: dict[int, list[str]] = {}
    for line in output.splitlines():
        for index, part in enumerate(re.split(r"[│┃]", line)):
            cells.setdefault(index, []).append(part)
    return "\n".join(re.sub(r"\s", "", "".join(parts)) for parts in cells.values())


def _whole(text: str, output: str) -> bool:
    return re.sub(r"\s", "", text) in _columns(output)


def _sql_texts(long_db: Path, code: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(long_db)
    try:
        return conn.execute(
            "SELECT x.body, f.path FROM text x JOIN revision r ON r.id = x.revision_id "
            "JOIN concept c ON c.id = r.concept_id JOIN source_file f ON f.id = x.source_file_id "
            "WHERE c.scheme = 'fi' AND c.code = ?",
            (code,),
        ).fetchall()
    finally:
        conn.close()


def test_lookup_shows_whole_texts_and_file_names_at_80_columns(
    store: PMGSStore, long_db: Path, narrow: io.StringIO
) -> None:
    for language in ("ja", "en"):
        record = store.lookup("fi", CODE, language=language)
        parents = store.hierarchy("parents", "fi", CODE, language=language)
        render.lookup(record, parents=parents)
    output = narrow.getvalue()
    expected = _sql_texts(long_db, CODE)
    assert {body for body, _ in expected} >= {LONG_JA, LONG_EN}
    for body, file in expected:
        assert _whole(body, output), body
        assert _whole(file, output), file
    assert _whole(LONG_PARENT, output)
    for relation in store.lookup("fi", CODE)["relations"]:
        assert _whole(relation["source"]["file"], output)


def test_search_hierarchy_and_document_show_whole_texts_at_80_columns(
    store: PMGSStore, narrow: io.StringIO
) -> None:
    def drawn() -> str:
        output = narrow.getvalue()
        narrow.seek(0)
        narrow.truncate()
        return output

    render.search(store.search_pmgs("放射線", ["fi"]))
    assert _whole(LONG_JA, drawn())
    render.hierarchy(store.hierarchy("children", "fi", "G06F3/04"))
    assert _whole(LONG_JA, drawn())
    render.hierarchy(store.hierarchy("parents", "fi", CODE))
    assert _whole(LONG_PARENT, drawn())
    render.document(store.get_document(DOCUMENT, section=1))
    output = drawn()
    assert _whole(LONG_SEGMENT, output)
    assert _whole(DOCUMENT, output)


def test_lookup_at_80_columns_in_a_subprocess(pmgs: Runner, long_db: Path) -> None:
    result = pmgs("lookup", "fi", CODE, "--db", long_db, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert _whole(LONG_JA, result.stdout)
    assert "（記録媒体を除く）" in _columns(result.stdout)


def test_revision_edges_show_both_versions(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("lookup", "ipc", CODE, "--data-dir", data_dir, env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "amended_to" in line]
    assert rows
    assert all("2006.01 → 2014.01" in row for row in rows), rows


def test_fi_is_on_the_first_page_next_to_ipc(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs(
        "search", "電池", "--scheme", "fi", "--scheme", "ipc", "--content-type",
        "classification", "--limit", "6", "--data-dir", data_dir, "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["results_by_type"]["classification"]["results"]
    assert [hit["scheme"] for hit in hits] == ["fi", "ipc", "fi", "ipc", "fi", "ipc"]
    human = pmgs(
        "search", "電池", "--scheme", "fi", "--scheme", "ipc", "--content-type",
        "classification", "--limit", "6", "--data-dir", data_dir, env={"COLUMNS": "200"},
    )  # fmt: skip
    assert "schemes interleaved" in human.stdout
    assert re.search(r"│ fi \S+", human.stdout)


def _hinted(text: str) -> list[list[str]]:
    """The commands named after ``next:`` / ``hint:``, as argument lists (without ``pmgs``)."""
    found = re.findall(r"pmgs (.*?--(?:db|data-dir) \S+)", text)
    return [shlex.split(command) for command in found]


def _run_hinted(pmgs: Runner, text: str, expected_codes: set[int]) -> int:
    commands = _hinted(text)
    for argv in commands:
        result = pmgs(*argv, env={"COLUMNS": "1000"})
        assert result.returncode in expected_codes, (argv, result.stderr)
    return len(commands)


WIDE = {"COLUMNS": "1000"}


def test_a_code_of_another_scheme_names_that_scheme(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("lookup", "fterm", CODE, "--data-dir", data_dir, env=WIDE)
    assert result.returncode == 2
    assert "hint:" in result.stderr
    assert "lookup fi G06F3/048" in result.stderr
    assert "4C083" not in result.stderr.split("hint:")[1], "an F-term example is no next step"
    assert _run_hinted(pmgs, result.stderr, {0}) == 2  # fi and ipc both hold G06F3/048


def test_a_missing_code_is_not_found_in_its_release_never_a_guess(
    pmgs: Runner, data_dir: Path
) -> None:
    lookup = pmgs("lookup", "fi", "G06F3/999", "--data-dir", data_dir, env=WIDE)
    assert lookup.returncode == 1
    assert "fi G06F3/999 is not in release JPPM2026002" in lookup.stdout
    assert not re.search(r"G06F3/0\d", lookup.stdout), "a nearby code was offered"
    children = pmgs("hierarchy", "children", "fi", "G06F3/999", "--data-dir", data_dir, env=WIDE)
    assert children.returncode == 1
    assert "is not in release JPPM2026002" in children.stdout
    assert "leaf" not in children.stdout
    leaf = pmgs("hierarchy", "children", "fi", "G06F3/0482", "--data-dir", data_dir, env=WIDE)
    assert leaf.returncode == 0
    assert "has no children in release JPPM2026002 (a leaf)" in leaf.stdout
    assert _run_hinted(pmgs, leaf.stdout, {0}) == 1


def test_an_empty_search_says_where_it_looked_and_latin_tries_english(
    pmgs: Runner, data_dir: Path
) -> None:
    result = pmgs("search", "cooling", "--data-dir", data_dir, env=WIDE)
    assert result.returncode == 0
    assert "release JPPM2026002 in language ja" in result.stdout
    commands = _hinted(result.stdout)
    assert commands == [["search", "cooling", "--language", "en", "--data-dir", str(data_dir)]]
    english = pmgs(*commands[0], "--json")
    assert english.returncode == 0
    assert json.loads(english.stdout)["results_by_type"]["classification"]["results"]
    japanese = pmgs("search", "該当なしの語句", "--data-dir", data_dir, env=WIDE)
    assert "release JPPM2026002 in language ja" in japanese.stdout
    assert "--language en" not in japanese.stdout


def test_version_not_found_names_the_versions_held(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs(
        "lookup", "ipc", CODE, "--ipc-version", "2010.01", "--data-dir", data_dir, env=WIDE
    )
    assert result.returncode == 1
    assert "versions held: 2006.01, 2014.01" in result.stdout
    assert _run_hinted(pmgs, result.stdout, {0}) == 1


@pytest.mark.parametrize(
    ("argv", "wanted", "unwanted"),
    [
        (["lookup", "ipc", CODE, "--ipc-version", "2006-01"], "2006.01", "Only IPC"),
        (["document", DOCUMENT, "--section", "0"], "--section 1", "locator="),
        (["search", "x", "--document-kind", "handbook"], "fi_handbook, fi_revision", None),
        (["search", "x", "--ipc-edition", "9"], "8U, 8B, 7, 7E, 6, 5, 4", None),
    ],
)
def test_error_hints_point_the_right_way(
    pmgs: Runner, data_dir: Path, argv: list[str], wanted: str, unwanted: str | None
) -> None:
    result = pmgs(*argv, "--data-dir", data_dir, env=WIDE)
    assert result.returncode == 2
    hint = result.stderr.split("hint:")[1]
    assert wanted in hint
    if unwanted is not None:
        assert unwanted not in result.stderr


def _sql_title(db: Path, scheme: str, edition: str | None, code: str) -> str:
    conn = sqlite3.connect(db)
    try:
        (title,) = conn.execute(
            "SELECT x.body FROM concept c JOIN revision r ON r.concept_id = c.id "
            "JOIN text x ON x.revision_id = r.id WHERE c.scheme = ? AND c.edition = ? "
            "AND c.code = ? AND x.language = 'ja' "
            "ORDER BY r.valid_to IS NULL DESC, r.valid_to DESC, x.line LIMIT 1",
            (scheme, edition or "", code),
        ).fetchone()
        return str(title)
    finally:
        conn.close()


def test_fterm_hits_show_theme_and_viewpoint_titles(
    store: PMGSStore, long_db: Path, narrow: io.StringIO
) -> None:
    term = "2D673AA01"
    label = store.lookup("fterm", term)["texts"][0]["body"]
    render.search(store.search_pmgs(label, ["fterm"], ["classification"]))
    output = _columns(narrow.getvalue())
    for code in ("2D673", "2D673AA"):
        assert re.sub(r"\s", "", f"{code} {_sql_title(long_db, 'fterm', None, code)}") in output


def test_lookup_titles_relation_targets_and_shows_scope_notes(
    store: PMGSStore, long_db: Path, narrow: io.StringIO
) -> None:
    record = store.lookup("fi", CODE)
    targets = [r["target"] for r in record["relations"]]
    render.lookup(record, titles=store.code_titles(targets))
    output = narrow.getvalue()
    concordance = next(t for t in targets if t["scheme"] == "ipc")
    assert _whole(_sql_title(long_db, "ipc", concordance["edition"], concordance["code"]), output)
    assert record["scope_notes"]
    for note in record["scope_notes"]:
        assert _whole(note["body"], output)


def test_fterm_theme_lookup_shows_its_viewpoints(pmgs: Runner, long_db: Path) -> None:
    result = pmgs("lookup", "fterm", "2D673", "--db", long_db, env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    conn = sqlite3.connect(long_db)
    try:
        viewpoints = conn.execute(
            "SELECT c.code FROM relation r JOIN concept c ON c.id = r.from_concept_id "
            "WHERE r.kind = 'parent' AND r.to_concept_id = (SELECT id FROM concept "
            "WHERE scheme = 'fterm' AND code = '2D673') AND c.kind = 'viewpoint'"
        ).fetchall()
    finally:
        conn.close()
    assert viewpoints
    assert "viewpoints" in result.stdout
    for (code,) in viewpoints:
        assert re.search(
            rf"│ {code}\s+│ " + re.escape(_sql_title(long_db, "fterm", None, code)), result.stdout
        )


def test_descendants_are_indented_by_level(pmgs: Runner, long_db: Path) -> None:
    result = pmgs(
        "hierarchy", "descendants", "fi", "G06F3/04", "--db", long_db, env={"COLUMNS": "200"}
    )
    assert result.returncode == 0, result.stderr
    cells = {
        cell.strip(): len(cell) - len(cell.lstrip()) - 1
        for line in result.stdout.splitlines()
        if line.startswith(("│ G", "│   "))
        for cell in [line.split("│")[1]]
    }
    # Written by hand from the sample: G06F3/048's children sit one level below it.
    assert cells["G06F3/048"] == 0
    assert cells["G06F3/041"] == 0
    assert cells["G06F3/048@A"] == 2
    assert cells["G06F3/0482"] == 2
