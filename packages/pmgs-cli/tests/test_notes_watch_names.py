"""``pmgs notes watch`` against any name a folder can hold (issue 41): random names with
control characters, white space at their ends, bytes that are not UTF-8, paths over 1,024
characters, links and FIFOs are created, renamed and deleted in a watched folder; at the end
the collection holds exactly the files that can be notes (with their texts), and the watcher
is still running. Oracle: the folder itself, walked with bytes, and the documented rule of a
note's path (UTF-8, one line without control characters, no white space at its ends, at most
1,024 characters).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

pytest.importorskip("watchfiles")

DEADLINE_S = 30.0
_COMMAND = (sys.executable, "-m", "pmgs_cli", "notes", "watch")
MAX_PATH_CHARS = 1024

_PIECES = (
    b"a",
    b"Z9",
    "メモ".encode(),
    b".txt",
    b"~",
    b".swp",
    b" ",
    "\u3000".encode(),
    b"\t",
    b"\n",
    b"\x1b",
    b"\x7f",
    b"\xff",
    b"\xc3",
    "\u0085".encode(),
)
names = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map(b"".join)
texts = st.sampled_from(["短いメモ", "second note", "三つ目\n二行目", "x" * 50])
deep = st.integers(min_value=4, max_value=7)  # folders of 200 characters: 800 to 1,400 + name
operations = st.lists(
    st.one_of(
        st.tuples(st.just("create"), names, texts),
        st.tuples(st.just("rename"), st.integers(0, 30), names),
        st.tuples(st.just("delete"), st.integers(0, 30), st.none()),
        st.tuples(st.just("link"), names, st.integers(0, 30)),
        st.tuples(st.just("fifo"), names, st.none()),
        st.tuples(st.just("deep"), deep, texts),
        st.tuples(st.just("rmdeep"), st.none(), st.none()),
    ),
    min_size=1,
    max_size=14,
)


def _entries(root: bytes) -> list[bytes]:
    """Every path under ``root`` (files, links, FIFOs and folders), sorted."""
    found: list[bytes] = []
    for dirpath, dirnames, filenames in os.walk(root):
        found += [os.path.join(dirpath, n) for n in sorted(dirnames + filenames)]
    return sorted(found)


def _apply(root: bytes, op: tuple[str, Any, Any]) -> None:
    kind, a, b = op
    existing = [p for p in _entries(root) if os.path.lexists(p)]
    with contextlib.suppress(OSError):
        if kind == "create":
            with open(os.path.join(root, a), "wb") as handle:
                handle.write(b.encode())
        elif kind == "rename" and existing:
            os.rename(existing[a % len(existing)], os.path.join(root, b))
        elif kind == "delete" and existing:
            target = existing[a % len(existing)]
            if os.path.isdir(target) and not os.path.islink(target):
                for inner in reversed(_entries(target)):
                    (os.rmdir if os.path.isdir(inner) else os.unlink)(inner)
                os.rmdir(target)
            else:
                os.unlink(target)
        elif kind == "link" and existing:
            os.symlink(existing[b % len(existing)], os.path.join(root, a))
        elif kind == "fifo":
            os.mkfifo(os.path.join(root, a))
        elif kind == "deep":
            folder = os.path.join(root, *[b"d" * 200] * a)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, b"deep.txt"), "wb") as handle:
                handle.write(b.encode())
        elif kind == "rmdeep":
            top = os.path.join(root, b"d" * 200)
            for inner in reversed(_entries(top)):
                (os.rmdir if os.path.isdir(inner) else os.unlink)(inner)
            os.rmdir(top)


def _storable(root: bytes) -> dict[str, str]:
    """absolute path → text of every file that can be a note, read from the folder."""
    expected: dict[str, str] = {}
    for full in _entries(root):
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        try:
            path = os.path.abspath(full).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(path) > MAX_PATH_CHARS or path != path.strip():
            continue
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            continue
        with open(full, "rb") as handle:
            expected[path] = handle.read().decode("utf-8")
    return expected


def _unstorable(root: bytes) -> list[bytes]:
    """The files, links and FIFOs under ``root`` that cannot be notes."""
    notes = {os.fsencode(path) for path in _storable(root)}
    return [
        full
        for full in _entries(root)
        if (os.path.islink(full) or not os.path.isdir(full)) and os.path.abspath(full) not in notes
    ]


def _first_pass(log: Path) -> bool:
    """The first pass reported: ``initial``, or ``rescan`` when the folder already holds a
    folder whose name is not UTF-8 with folders in it (watchfiles cannot arm; passes stand
    in for it)."""
    text = log.read_text(errors="replace")
    return '"initial"' in text or '"rescan"' in text


def _notes(coll: Path) -> dict[str, str]:
    if not coll.exists():
        return {}
    with sqlite3.connect(coll, timeout=10) as conn:
        rows = conn.execute(
            "SELECT d.path, group_concat(i.content, '') FROM "
            "(SELECT * FROM items ORDER BY document_id, position) i JOIN documents d "
            "ON d.id = i.document_id GROUP BY d.id"
        ).fetchall()
    return {str(path): str(text) for path, text in rows}


def _until(check: Callable[[], bool], what: Callable[[], str]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        with contextlib.suppress(sqlite3.OperationalError):
            if check():
                return
        time.sleep(0.1)
    raise AssertionError(f"not reached within {DEADLINE_S} s: {what()}")


@settings(
    max_examples=6,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(before=operations, during=operations)
@example(  # a folder whose name is not UTF-8 holding folders: watchfiles cannot arm at all
    before=[("deep", 4, "短いメモ"), ("rename", 0, b"\xff\x1b")],
    during=[("create", b"a.txt", "second note"), ("create", b"b\t", "x")],
)
def test_the_collection_is_the_storable_files_and_the_watch_survives(
    before: list[tuple[str, Any, Any]], during: list[tuple[str, Any, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(os.fsencode(tmp), b"watched")
        os.mkdir(root)
        for op in before:  # seen by the first pass
            _apply(root, op)
        coll = Path(tmp) / "c.sqlite"
        log = Path(tmp) / "out.jsonl"
        with log.open("w") as out:
            child = subprocess.Popen(
                [*_COMMAND, os.fsdecode(root), "--collection", str(coll), "--json"],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
            )
        try:
            _until(
                lambda: _first_pass(log) or child.poll() is not None,
                lambda: f"first pass {before}",
            )
            for op in during:  # seen by the watch
                _apply(root, op)
            for index, full in enumerate(_unstorable(root)):  # deleted while watched
                if index % 2 == 0:
                    os.unlink(full)
            _until(
                lambda: _notes(coll) == _storable(root) or child.poll() is not None,
                lambda: (
                    f"notes {sorted(_notes(coll))} files {sorted(_storable(root))} "
                    f"ops {before} {during} log {log.read_text(errors='replace')[-3000:]}"
                ),
            )
            assert child.poll() is None, f"the watcher stopped: {child.communicate()[1]}"
            assert _notes(coll) == _storable(root)
        finally:
            child.send_signal(signal.SIGINT)
            _, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert "Traceback" not in err
