"""The folder sync (``FolderSync``, ``apply_changes``, ``sync_folder``) against paths no note
can have (issue 41): created, changed, renamed or deleted, such a path is skipped and listed,
never an error that would stop a watch; and a watched file that can no longer be stored loses
its note. Oracle: the files the test wrote, and the collection's own listing.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from pmgs_core import Collection
from pmgs_core.collection import FolderSync, apply_changes, sync_folder
from pmgs_core.collection._folders import watched_path


@pytest.fixture
def col(tmp_path: Path) -> Collection:
    return Collection(tmp_path / "c.sqlite")


def _paths(col: Collection) -> set[str]:
    return set(col.paths_under("/"))


UNSTORABLE = ["a\tb.txt", "line\nbreak.txt", "esc\x1b.txt", "del\x7f.txt", "end.txt ", "全角\u3000"]


@pytest.mark.parametrize("name", UNSTORABLE)
def test_remove_lists_a_path_no_note_can_have(col: Collection, tmp_path: Path, name: str) -> None:
    batch = FolderSync()
    batch.remove(col, watched_path(tmp_path / name))
    assert batch.deleted == 0
    assert [entry["reason"] for entry in batch.skipped] == ["INVALID_PATH"]
    assert batch.skipped[0]["path"].isprintable()


def test_a_long_path_is_skipped_created_and_deleted(col: Collection, tmp_path: Path) -> None:
    root = tmp_path / "w"
    deep = root.joinpath(*["d" * 200] * 6)
    deep.mkdir(parents=True)
    (deep / "n.txt").write_text("深い", encoding="utf-8")
    (root / "ok.txt").write_text("浅い", encoding="utf-8")
    first = sync_folder(col, root, None)
    assert first.added == 1
    assert [e["reason"] for e in first.skipped] == ["INVALID_PATH"]
    (deep / "n.txt").unlink()
    gone = apply_changes(col, [deep / "n.txt"], {root.absolute(): None})
    assert gone.skipped == [{"path": watched_path(deep / "n.txt"), "reason": "INVALID_PATH"}]
    assert _paths(col) == {watched_path(root / "ok.txt")}


@pytest.mark.parametrize("name", UNSTORABLE)
def test_create_rename_delete_of_an_unstorable_name(
    col: Collection, tmp_path: Path, name: str
) -> None:
    root = (tmp_path / "w").absolute()
    root.mkdir()
    roots: dict[Path, str | None] = {root: "c"}
    (root / name).write_text("メモ", encoding="utf-8")
    created = apply_changes(col, [root / name], roots)
    assert (created.added, [e["reason"] for e in created.skipped]) == (0, ["INVALID_PATH"])
    (root / name).rename(root / "good.txt")
    renamed = apply_changes(col, [root / name, root / "good.txt"], roots)
    assert (renamed.added, renamed.deleted) == (1, 0)
    (root / "good.txt").rename(root / name)
    back = apply_changes(col, [root / name, root / "good.txt"], roots)
    assert (back.deleted, len(back.skipped)) == (1, 1)
    (root / name).unlink()
    deleted = apply_changes(col, [root / name], roots)
    assert [e["reason"] for e in deleted.skipped] == ["INVALID_PATH"]
    assert _paths(col) == set()


def test_undecodable_bytes_are_listed_escaped(col: Collection, tmp_path: Path) -> None:
    root = (tmp_path / "w").absolute()
    root.mkdir()
    raw = os.path.join(os.fsencode(root), b"bad\xff.txt")
    with open(raw, "wb") as handle:
        handle.write("メモ".encode())
    batch = sync_folder(col, root, None)
    assert batch.added == 0
    assert batch.skipped == [
        {"path": f"{root.as_posix()}/bad\\udcff.txt", "reason": "INVALID_PATH"}
    ]
    os.unlink(raw)
    assert apply_changes(col, [Path(os.fsdecode(raw))], {root: None}).skipped[0]["reason"] == (
        "INVALID_PATH"
    )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p.write_bytes(b"\x00binary"), "binary"),
        (lambda p: (p.unlink(), os.mkfifo(p)), "not a file"),
        (lambda p: (p.unlink(), p.symlink_to(p.parent / "other.txt")), "symlink"),
        (lambda p: p.write_bytes("シフト".encode("cp932")), "not UTF-8"),
    ],
)
def test_a_watched_file_that_cannot_be_stored_any_more_loses_its_note(
    col: Collection, tmp_path: Path, change: object, reason: str
) -> None:
    root = (tmp_path / "w").absolute()
    root.mkdir()
    (root / "other.txt").write_text("別", encoding="utf-8")
    note = root / "n.txt"
    note.write_text("最初", encoding="utf-8")
    assert sync_folder(col, root, None).added == 2
    assert callable(change)
    change(note)
    batch = apply_changes(col, [note], {root: None})
    assert batch.deleted == 1
    assert batch.skipped == [{"path": watched_path(note), "reason": reason}]
    assert _paths(col) == {watched_path(root / "other.txt")}


def _documents(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT d.path, group_concat(i.content, '') FROM documents d "
            "JOIN items i ON i.document_id = d.id GROUP BY d.id"
        ).fetchall()
    return {str(p): str(t) for p, t in rows}


def test_the_migration_keeps_one_note_per_file(tmp_path: Path) -> None:
    """A collection of schema 2 holding a file by its bare name (``notes add FILE``) and by
    its absolute path (``notes watch``) keeps the absolute one; a bare name that ends no path,
    or two, is left alone. Oracle: the rows written by hand, and the index (the stale text is
    found no more)."""
    file = tmp_path / "c.sqlite"
    with Collection(file) as col:
        col.put_document("古い手入力の版", "a.txt", None, None)
        col.put_document("監視された新しい版", "/home/u/notes/a.txt", None, None)
        col.put_document("相方のない名前", "b.txt", None, None)
        col.put_document("二つに当たる名前", "c.txt", None, None)
        col.put_document("一つ目", "/x/c.txt", None, None)
        col.put_document("二つ目", "/y/c.txt", None, None)
        col.put_document("部分一致だけ", "xa.txt", None, None)
        col.put_document("自作の相対パス", "dir/a.txt", None, None)
    with sqlite3.connect(file) as conn:
        conn.execute("PRAGMA user_version = 2")
    with Collection(file) as col:
        assert col.search_text("古い手入力", 10, 0.0, True, None)["items"] == []
        assert [i["path"] for i in col.search_text("新しい版", 10, 0.0, True, None)["items"]] == [
            "/home/u/notes/a.txt"
        ]
    assert set(_documents(file)) == {
        "/home/u/notes/a.txt",
        "b.txt",
        "c.txt",
        "/x/c.txt",
        "/y/c.txt",
        "xa.txt",
        "dir/a.txt",
    }
    with sqlite3.connect(file) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        orphans = "SELECT count(*) FROM items WHERE document_id NOT IN (SELECT id FROM documents)"
        assert conn.execute(orphans).fetchone()[0] == 0
