"""``pmgs notes``: the command on a real collection file, checked by SQL."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[str]]


def _json(result: object) -> dict[str, object]:
    return json.loads(result.stdout)  # type: ignore[attr-defined,no-any-return]


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return [tuple(r) for r in conn.execute(sql)]


@pytest.fixture
def coll(tmp_path: Path) -> Path:
    return tmp_path / "notes.sqlite"


def test_add_show_search_rm(pmgs: Runner, coll: Path, tmp_path: Path) -> None:
    note = tmp_path / "formula.md"
    note.write_text("検索式: (負極 AND バインダー)\n\n電池の結着剤について", encoding="utf-8")
    added = pmgs("notes", "add", note, "--category", "電池", "--collection", coll, "--json")
    assert added.returncode == 0, added.stderr
    record = _json(added)
    assert record["status"] == "added"
    doc = record["document"]
    assert doc["path"] == str(note.absolute())  # type: ignore[index]
    assert doc["mime"] == "text/markdown"  # type: ignore[index]
    assert _rows(coll, "SELECT path, category, mime FROM documents") == [
        (str(note.absolute()), "電池", "text/markdown")
    ]
    again = pmgs("notes", "add", note, "--category", "電池", "--collection", coll, "--json")
    assert _json(again)["status"] == "unchanged"

    shown = _json(pmgs("notes", "show", str(note.absolute()), "--collection", coll, "--json"))
    assert [i["content"] for i in shown["items"]] == [  # type: ignore[attr-defined]
        r[0] for r in _rows(coll, "SELECT content FROM items ORDER BY position")
    ]
    found = _json(pmgs("notes", "search", "バインダー 結着", "--collection", coll, "--json"))
    assert [i["path"] for i in found["items"]] == [str(note.absolute())]  # type: ignore[attr-defined]
    assert found["items"][0]["source"] == "user_collection"  # type: ignore[index]
    human = pmgs("notes", "search", "バインダー", "--collection", coll)
    assert human.returncode == 0
    assert "formula.md" in human.stdout

    doc_id = _rows(coll, "SELECT id FROM documents")[0][0]
    removed = pmgs("notes", "rm", str(doc_id), "--collection", coll, "--json")
    assert removed.returncode == 0, removed.stderr
    assert _rows(coll, "SELECT count(*) FROM documents") == [(0,)]
    gone = pmgs("notes", "show", str(doc_id), "--collection", coll, "--json")
    assert gone.returncode == 4
    assert _json(gone)["error"]["code"] == "DOCUMENT_NOT_FOUND"  # type: ignore[index]


def test_stdin_needs_a_path(pmgs: Runner, coll: Path) -> None:
    result = pmgs("notes", "add", "-", "--collection", coll, "--json")
    assert result.returncode == 2
    assert _json(result)["error"]["code"] == "INVALID_PATH"  # type: ignore[index]


def test_import_is_idempotent_and_skips_what_is_not_text(
    pmgs: Runner, coll: Path, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("一つ目のメモ", encoding="utf-8")
    (src / "sub" / "b.md").write_text("二つ目のメモ", encoding="utf-8")
    (src / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (src / "sjis.txt").write_bytes("シフトJISの文".encode("cp932"))
    (src / "link.txt").symlink_to(src / "a.txt")
    first = pmgs("notes", "import", src, "--category", "case-1", "--collection", coll, "--json")
    assert first.returncode == 0, first.stderr
    r1 = _json(first)
    assert (r1["files"], r1["added"], r1["skipped"]) == (5, 2, 3)  # the link is listed
    assert {e["path"]: e["reason"] for e in r1["skipped_files"]} == {  # type: ignore[attr-defined]
        "bin.dat": "binary",
        "sjis.txt": "not UTF-8",
        "link.txt": "symlink",
    }
    assert sorted(_rows(coll, "SELECT path, category FROM documents")) == [
        ("a.txt", "case-1"),
        ("sub/b.md", "case-1"),
    ]
    (src / "a.txt").write_text("一つ目のメモ（改訂）", encoding="utf-8")
    second = _json(
        pmgs("notes", "import", src, "--category", "case-1", "--collection", coll, "--json")
    )
    assert (second["added"], second["replaced"], second["unchanged"]) == (0, 1, 1)
    digest = hashlib.sha256("一つ目のメモ（改訂）".encode()).hexdigest()
    assert _rows(coll, "SELECT content_sha256 FROM documents WHERE path = 'a.txt'") == [(digest,)]
    listed = _json(
        pmgs("notes", "list", "--limit", "1", "--page", "2", "--collection", coll, "--json")
    )
    assert (listed["total_count"], listed["total_pages"], len(listed["items"])) == (2, 2, 1)  # type: ignore[arg-type]
    cats = _json(pmgs("notes", "categories", "--collection", coll, "--json"))
    assert cats["categories"] == [{"category": "case-1", "document_count": 2}]


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (("list", "--limit", "0"), "INVALID_LIMIT", 2),
        (("list", "--limit", "101"), "INVALID_LIMIT", 2),
        (("list", "--page", "0"), "INVALID_PAGE", 2),
        (("search", "x", "--min-score", "2"), "INVALID_ARGUMENT", 2),
        (("rm", "5"), "DOCUMENT_NOT_FOUND", 4),
        (("rm", "5", "--item"), "ITEM_NOT_FOUND", 4),
        (("show", "1", "--offset", "-1"), "INVALID_OFFSET", 2),
    ],
)
def test_errors_have_codes(
    pmgs: Runner, coll: Path, args: tuple[str, ...], code: str, exit_code: int
) -> None:
    pmgs("notes", "add", "-", "--collection", coll)  # creates the file (fails on no --path)
    result = pmgs("notes", *args, "--collection", coll, "--json")
    assert result.returncode == exit_code, result.stderr
    assert _json(result)["error"]["code"] == code  # type: ignore[index]


def test_data_dir_places_the_collection_beside_the_release(
    pmgs: Runner, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path / "data"
    note = tmp_path / "n.txt"
    note.write_text("メモ", encoding="utf-8")
    result = pmgs("notes", "add", note, "--data-dir", root, "--json")
    assert result.returncode == 0, result.stderr
    assert (root / "collection" / "collection.sqlite").is_file()
    env_file = tmp_path / "env.sqlite"
    by_env = pmgs("notes", "add", note, "--json", env={"PMGS_COLLECTION": str(env_file)})
    assert by_env.returncode == 0, by_env.stderr
    assert _rows(env_file, "SELECT path FROM documents") == [(str(note.absolute()),)]


def test_notes_add_file_and_watch_are_one_note(pmgs: Runner, tmp_path: Path) -> None:
    """``notes add FILE`` keys the note by FILE's absolute path, as the watch does: the
    watch's first pass finds it unchanged instead of adding a second copy (issue 41)."""
    from pmgs_core import Collection
    from pmgs_core.collection import sync_folder

    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "a.txt").write_text("一つのファイル", encoding="utf-8")
    coll = tmp_path / "c.sqlite"
    relative = os.path.relpath(folder / "a.txt")
    added = pmgs("notes", "add", relative, "--collection", coll, "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["document"]["path"] == str((folder / "a.txt").absolute())
    with Collection(coll) as col:
        batch = sync_folder(col, folder, None)
        assert (batch.added, batch.unchanged) == (0, 1)
        assert col.paths_under("/") == [str((folder / "a.txt").absolute())]
