"""``pmgs notes watch`` as a real process: files created, edited, renamed and deleted in a
watched folder reach the collection; links, binary and non-UTF-8 files are listed, never
stored; Ctrl-C ends it cleanly; a SIGKILL in the middle of the first pass leaves the file
consistent. Oracles: the files the test wrote, and SQL on the collection.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("watchfiles")

DEADLINE_S = 20.0


def _rows(path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path, timeout=10) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


def _notes(coll: Path) -> dict[str, tuple[str, str | None]]:
    """path → (the note's text, its category), from the items in order."""
    if not coll.exists():
        return {}
    rows = _rows(
        coll,
        "SELECT d.path, d.category, group_concat(i.content, char(10) || char(10)) FROM "
        "(SELECT * FROM items ORDER BY document_id, position) i JOIN documents d "
        "ON d.id = i.document_id GROUP BY d.id",
    )
    return {row[0]: (row[2], row[1]) for row in rows}


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except sqlite3.OperationalError:
            pass  # the file is being created or migrated
        time.sleep(0.05)
    raise AssertionError(f"not reflected within {DEADLINE_S} s: {what}")


def _watch(coll: Path, *folders: Path, category: str = "監視") -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "pmgs_cli", "notes", "watch", *map(str, folders)]
    return subprocess.Popen(
        [*command, "--category", category, "--collection", str(coll), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "watched"
    root.mkdir()
    return root


def test_watch_reflects_every_kind_of_change(folder: Path, tmp_path: Path) -> None:
    coll = tmp_path / "c.sqlite"
    (folder / "a.txt").write_text("最初のメモ", encoding="utf-8")
    (folder / "bin.dat").write_bytes(b"\x00\x01binary")
    (folder / "link.txt").symlink_to(folder / "a.txt")
    a, b, c = (str((folder / name).absolute()) for name in ("a.txt", "b.md", "c.md"))
    child = _watch(coll, folder)
    try:
        _until(lambda: _notes(coll) == {a: ("最初のメモ", "監視")}, "the first pass")
        (folder / "sub").mkdir()
        (folder / "b.md").write_text("二つ目", encoding="utf-8")
        _until(lambda: _notes(coll).get(b) == ("二つ目", "監視"), "a created file")
        (folder / "a.txt").write_text("書き換えたメモ", encoding="utf-8")
        _until(lambda: _notes(coll).get(a) == ("書き換えたメモ", "監視"), "an edited file")
        (folder / "b.md").rename(folder / "c.md")
        _until(lambda: b not in _notes(coll) and c in _notes(coll), "a renamed file")
        (folder / "a.txt").unlink()
        _until(lambda: set(_notes(coll)) == {c}, "a deleted file")
        (folder / "sjis.txt").write_bytes("シフトJIS".encode("cp932"))
        (folder / "sub" / "d.txt").write_text("奥のメモ", encoding="utf-8")
        d = str((folder / "sub" / "d.txt").absolute())
        _until(lambda: set(_notes(coll)) == {c, d}, "a file in a new folder")
    finally:
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines() if line.startswith('{"')]
    reasons = {e["path"].rsplit("/", 1)[-1]: e["reason"] for r in lines for e in r["skipped_files"]}
    assert reasons["link.txt"] == "symlink"
    assert reasons["bin.dat"] == "binary"
    assert reasons["sjis.txt"] == "not UTF-8"
    assert not {p for p in _notes(coll) if p.endswith(("link.txt", "bin.dat", "sjis.txt"))}
    totals = json.loads(out[out.rindex("\n{\n") + 1 :] if "\n{\n" in out else out)
    assert totals["record_type"] == "collection_watch_totals"
    assert totals["deleted"] >= 2


def test_kill_during_the_first_pass_leaves_the_collection_consistent(
    folder: Path, tmp_path: Path
) -> None:
    coll = tmp_path / "c.sqlite"
    texts = {f"n{n:04}.txt": f"メモ {n} " + "あいう" * (n % 40) for n in range(600)}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    child = _watch(coll, folder)
    try:
        _until(lambda: len(_notes(coll)) > 0, "some notes")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate(timeout=30)
    assert _rows(coll, "PRAGMA integrity_check") == [("ok",)]
    stored = _notes(coll)
    assert 0 < len(stored) < len(texts)  # killed in the middle
    for path, (text, category) in stored.items():
        assert (text, category) == (texts[Path(path).name], "監視")
    orphans = "SELECT count(*) FROM items WHERE document_id NOT IN (SELECT id FROM documents)"
    assert _rows(coll, orphans) == [(0,)]
    # a second watcher finishes the job
    child = _watch(coll, folder)
    try:
        _until(lambda: len(_notes(coll)) == len(texts), "the rest after a restart")
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=30)
    assert child.returncode == 0


def test_ctrl_c_during_the_first_pass_stops_after_the_file_in_hand(
    folder: Path, tmp_path: Path
) -> None:
    coll = tmp_path / "c.sqlite"
    texts = {f"n{n:04}.txt": f"メモ {n}" for n in range(600)}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    child = _watch(coll, folder)
    _until(lambda: len(_notes(coll)) > 0, "some notes")
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    stored = _notes(coll)
    assert 0 < len(stored) < len(texts)
    assert all(text == texts[Path(path).name] for path, (text, _) in stored.items())
    assert json.loads(out[out.rindex("\n{\n") + 1 :])["added"] == len(stored)


def test_a_file_written_right_after_the_first_pass_is_not_lost(
    folder: Path, tmp_path: Path
) -> None:
    """The OS watch is armed before the first pass, so a file written as soon as the first
    pass has reported is seen (it was lost for good when the watch started after the pass)."""
    coll = tmp_path / "c.sqlite"
    child = _watch(coll, folder)
    try:
        assert child.stdout is not None
        first = json.loads(child.stdout.readline())
        assert first["event"] == "initial"
        (folder / "early.txt").write_text("直後のメモ", encoding="utf-8")
        early = str((folder / "early.txt").absolute())
        _until(lambda: _notes(coll).get(early) == ("直後のメモ", "監視"), "a file written at once")
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=30)
    assert child.returncode == 0


def test_a_watched_folder_that_is_gone_stops_the_watch_with_its_code(
    folder: Path, tmp_path: Path
) -> None:
    """A watch that can no longer see its folder says so and exits non-zero (it watched
    nothing, silently, before issue 41)."""
    coll = tmp_path / "c.sqlite"
    (folder / "a.txt").write_text("メモ", encoding="utf-8")
    child = _watch(coll, folder)
    try:
        _until(lambda: len(_notes(coll)) == 1, "the first pass")
        (folder / "a.txt").unlink()
        folder.rmdir()
        out, err = child.communicate(timeout=DEADLINE_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 4, err
    assert "error WATCH_FOLDER_GONE: a watched folder is gone" in err
    assert "Traceback" not in err
    assert json.loads(out[out.rindex("\n{\n") + 1 :])["error"]["code"] == "WATCH_FOLDER_GONE"
