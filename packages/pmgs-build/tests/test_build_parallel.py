"""The worker processes of a build (ADR 0028) change nothing in the file it publishes.

A build cuts search-index bigrams and computes the logical digest in processes that
read a copy of the temporary file; the writer runs the same statements as alone. So a build
with them (``parallel=True``, the workers' chunks waited for, so that their part is certain
to be used) and one without must give byte-identical files, and the digest stored must be
the one recomputed from the published file by this process.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from pathlib import Path
from traceback import extract_tb

import pytest

import pmgs_core.schema
from pmgs_build import BuildError, IssueCode, build_database, logical_digest
from pmgs_build import build as build_module
from pmgs_build.database import insert_process
from pmgs_build.database.digest import metadata_rows
from pmgs_build.database.snapshot_workers import SnapshotWorkers, snapshot_path
from pmgs_core.building import chunk_bigrams, search_index_chunks
from pmgs_testkit import generate_package


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_package(
        tmp_path_factory.mktemp("parallel"), scale=0.002, seed=11, with_documents=True
    ).path


def test_parallel_and_serial_builds_are_the_same_bytes(
    package: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Small chunks: many of them, all left to the worker (the serial build cut every one).
    monkeypatch.setattr(pmgs_core.schema, "SEARCH_CHUNK_ROWS", 97)
    monkeypatch.setattr(SnapshotWorkers, "wait_for_bigrams", True)
    caplog.set_level(logging.INFO, logger="pmgs_build")
    serial = build_database(package, tmp_path / "serial.sqlite", parallel=False)
    assert "worker" not in caplog.text
    assert "writer process" not in caplog.text
    parallel = build_database(package, tmp_path / "parallel.sqlite", parallel=True)
    chunks = [r.getMessage() for r in caplog.records if r.getMessage().startswith("bigram")]
    assert len(chunks) == 1
    used, total = (int(word) for word in chunks[0].split() if word.isdigit())
    assert total > 4
    assert used == total  # every chunk came from the worker
    assert "logical digest from the digest worker" in caplog.text
    assert "the load's statements run in writer process" in caplog.text
    assert _sha256(Path(parallel.output)) == _sha256(Path(serial.output))
    assert parallel.logical_digest == serial.logical_digest
    conn = sqlite3.connect(parallel.output)
    try:
        assert logical_digest(conn) == parallel.logical_digest
    finally:
        conn.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parallel.sqlite", "serial.sqlite"]


def test_a_digest_given_its_metadata_equals_the_one_read_from_the_table(
    package: Path, tmp_path: Path
) -> None:
    report = build_database(package, tmp_path / "a.sqlite", parallel=False)
    conn = sqlite3.connect(report.output)
    try:
        rows = metadata_rows(conn)
        assert [key for key, _ in rows] == sorted(key for key, _ in rows)
        assert logical_digest(conn, metadata=rows) == report.logical_digest
        changed = [(k, v + "x") if k == "release_id" else (k, v) for k, v in rows]
        assert logical_digest(conn, metadata=changed) != report.logical_digest
    finally:
        conn.close()


def test_a_failed_parallel_build_leaves_no_snapshot(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(conn: sqlite3.Connection) -> None:
        raise RuntimeError("stop after the snapshot was taken")

    monkeypatch.setattr(build_module, "create_indexes", fail)
    with pytest.raises(RuntimeError):
        build_database(package, tmp_path / "out.sqlite", parallel=True)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_in_the_writer_process_is_an_output_write_failure(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # max_page_count makes SQLite report a full database exactly as a full disk does; the
    # schema fits in the limit, the rows do not, so it is the writer process that fails.
    limited = (*insert_process.LOAD_PRAGMAS, "PRAGMA max_page_count = 60")
    monkeypatch.setattr(insert_process, "LOAD_PRAGMAS", limited)
    with pytest.raises(BuildError) as caught:
        build_database(package, tmp_path / "out.sqlite", parallel=True)
    assert caught.value.code == IssueCode.OUTPUT_WRITE_FAILED
    assert "SQLITE_FULL" in str(caught.value)
    cause = caught.value.__cause__
    assert isinstance(cause, sqlite3.Error)  # rebuilt from the writer's report
    assert "insert_process.py" in {Path(f.filename).name for f in extract_tb(cause.__traceback__)}
    assert list(tmp_path.iterdir()) == []


def test_the_snapshot_is_named_for_the_stale_file_sweep(tmp_path: Path) -> None:
    temporary = tmp_path / ".out.sqlite.tmp-4242"
    snapshot = snapshot_path(temporary)
    assert snapshot.name == ".out.sqlite.tmp-snapshot-4242"
    assert snapshot.name.startswith(".out.sqlite.tmp-")
    assert snapshot.name.rsplit("-", 1)[-1] == "4242"


@pytest.mark.parametrize(
    ("load", "cores", "expected"),
    [
        (0.0, 2, True),
        (0.5, 2, True),
        (1.0, 2, True),  # the boundary: one core's worth of time is still unused
        (1.01, 2, False),
        (1.6, 2, False),
        (3.0, 4, True),
        (3.02, 4, False),
        (0.0, 1, False),  # one core: no second one to use, however idle
    ],
)
def test_a_second_core_is_used_whenever_one_is_idle(
    load: float, cores: int, expected: bool
) -> None:
    assert build_module.spare_core(load, cores) is expected


@pytest.mark.parametrize(("load", "expected"), [(1.0, True), (1.05, False)])
def test_the_default_reads_this_machines_load_and_cores(
    monkeypatch: pytest.MonkeyPatch, load: float, expected: bool
) -> None:
    monkeypatch.setattr(build_module.os, "getloadavg", lambda: (load, 9.0, 9.0))
    monkeypatch.setattr(build_module, "available_cores", lambda: 2)
    assert build_module.spare_core() is expected


def test_chunks_shared_between_builder_and_worker_are_each_cut_right(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The builder claims the first chunk before the worker has started, then lets it get
    # ahead: both kinds of chunk occur, and each must hold what cutting it here gives.
    monkeypatch.setattr(pmgs_core.schema, "SEARCH_CHUNK_ROWS", 53)
    built = build_database(package, tmp_path / "built.sqlite", parallel=False)
    temporary = tmp_path / ".copy.sqlite.tmp-1"
    temporary.write_bytes(Path(built.output).read_bytes())
    conn = sqlite3.connect(temporary)
    workers = SnapshotWorkers(temporary, metadata_rows(conn), parallel=True)
    try:
        workers.start()
        chunks = list(search_index_chunks(conn))
        assert len(chunks) > 6
        for number, (_trigram, _bigram, rows) in enumerate(chunks):
            assert workers.bigrams(rows) == chunk_bigrams(rows)  # oracle: cut here
            if number == 0:
                time.sleep(3)  # the worker starts and claims the next chunks
        worker = workers._bigrams
        assert worker is not None
        assert 0 < worker.used < len(chunks)
    finally:
        workers.close()
        conn.close()
    assert not snapshot_path(temporary).exists()
