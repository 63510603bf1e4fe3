"""Several processes on one collection file: concurrent writers, and a writer killed mid-way.

Real processes (``sys.executable -c``), real SQLite, checks by SQL in the test.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from pmgs_core import Collection

WRITER = """
import sys
from pmgs_core import Collection
path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Collection(path) as col:
    for n in range(count):
        col.add_item_text(f"{tag} 記録 {n}", f"{tag}/{n % 50}.txt", category=tag)
"""

IMPORTER = """
import sys
from pmgs_core import Collection
path = sys.argv[1]
with Collection(path) as col:
    with col.tracking("import", total=100000) as progress:
        n = 0
        while True:
            text = "\\n\\n".join(f"文書 {n} 段落 {k} " + "本文" * 400 for k in range(6))
            col.put_document(text, f"imported/{n % 40}.txt", category="imp")
            n += 1
            progress(n)
            if n == 5:
                print("ready", flush=True)
"""


def _check_consistent(path: Path) -> None:
    """The whole file holds together: SQLite and FTS5 integrity, every document's hash
    matches its items, the index holds exactly the items."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO items_fts(items_fts) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        for doc_id, digest in conn.execute("SELECT id, content_sha256 FROM documents"):
            texts = [
                row[0]
                for row in conn.execute(
                    "SELECT content FROM items WHERE document_id = ? ORDER BY position, id",
                    (doc_id,),
                )
            ]
            assert texts, f"document {doc_id} has no items"
            assert hashlib.sha256("\n\n".join(texts).encode()).hexdigest() == digest
        items = conn.execute("SELECT count(*) FROM items").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM items_fts").fetchone()[0] == items


def test_two_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    Collection(path).close()  # created once, so both writers only migrate as a no-op
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), tag, "1000"], stderr=subprocess.PIPE
        )
        for tag in ("alpha", "beta")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
    with sqlite3.connect(path) as conn:
        per_tag = dict(
            conn.execute(
                "SELECT d.category, count(*) FROM items i JOIN documents d "
                "ON d.id = i.document_id GROUP BY 1"
            ).fetchall()
        )
        assert per_tag == {"alpha": 1000, "beta": 1000}
        texts = {row[0] for row in conn.execute("SELECT content FROM items")}
        assert texts == {f"{t} 記録 {n}" for t in ("alpha", "beta") for n in range(1000)}
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 100
    _check_consistent(path)
    with Collection(path) as col:
        assert (
            len(col.search_text("alpha 記録", limit=100, group_by_document=False)["items"]) == 100
        )


def test_importer_killed_mid_way_leaves_a_consistent_collection(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with Collection(path) as col:
        col.add_item_text("before the import", "kept.txt")
    proc = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    with Collection(path) as col:
        assert col.indexing_status()["status"] == "indexing"
    time.sleep(0.7)  # well into the loop: kills land inside and between transactions
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    _check_consistent(path)
    with Collection(path) as col:
        assert col.indexing_status() == {"status": "idle"}  # the dead process's task is gone
        assert col.find_document("kept.txt")["items"][0]["content"] == "before the import"
        # and the collection still takes writes
        assert col.put_document("after", "after.txt")["status"] == "added"
    _check_consistent(path)
