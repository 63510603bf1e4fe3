"""The folder monitor of ``--allow-write`` never stops silently (issue 41): a watch that
raises, or a thread that ends, is ``failed`` with its code in ``/indexing_status`` and
``/ready`` (not ``idle``, not ready) at once, and is tried again; once the watch works again
both say so. In process with a watch made to fail, and as a real server whose watched folder
is deleted and put back. Oracles: the answers' fields, the number of attempts, SQL on the
collection file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from pmgs_mcp_testkit import Reference, start_http_server, stop_http_server
from starlette.applications import Starlette

import pmgs_core
from pmgs_core import Collection, PMGSQueryError
from pmgs_mcp.admin import admin_routes
from pmgs_mcp.monitor import MONITOR_STOPPED, FolderMonitor

pytest.importorskip("watchfiles")

DEADLINE_S = 20.0


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"not reached within {DEADLINE_S} s: {what}")


def _get(app: Starlette, path: str) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            answer: dict[str, Any] = (await http.get(path)).json()
            return answer

    return anyio.run(run)


@pytest.fixture
def monitored(tmp_path: Path) -> Iterator[tuple[Collection, FolderMonitor, Starlette]]:
    with Collection(tmp_path / "c.sqlite") as col:
        monitor = FolderMonitor(col)
        routes = admin_routes(
            col, tools="default", token=False, workers=1, monitor_failure=monitor.failure
        )
        try:
            yield col, monitor, Starlette(routes=routes)
        finally:
            monitor.stop()


def test_a_watch_that_raises_is_failed_with_its_code_and_tried_again(
    monitored: tuple[Collection, FolderMonitor, Starlette],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, monitor, app = monitored
    calls: list[float] = []
    healthy = threading.Event()

    def watch(col: Collection, roots: Any, stop: threading.Event, report: Any) -> None:
        calls.append(time.monotonic())
        if not healthy.is_set():
            raise PMGSQueryError("COLLECTION_ERROR", "the collection could not complete it")
        report({"event": "initial", "added": 0, "replaced": 0, "deleted": 0, "skipped": 0})
        stop.wait()

    monkeypatch.setattr(pmgs_core, "watch_folders", watch)
    assert _get(app, "/indexing_status") == {"status": "idle"}
    monitor.apply({"monitor_paths": [{"path": str(tmp_path), "category": None}]})
    _until(lambda: monitor.failure() is not None, "the failure")
    status = _get(app, "/indexing_status")
    assert status["status"] == "failed"
    assert status["error"]["code"] == "COLLECTION_ERROR"
    assert status["failures"] >= 1
    assert status["retry_in_seconds"] >= 1.0
    _until(lambda: len(calls) >= 2, "a second attempt")  # retried after a second
    healthy.set()
    _until(lambda: _get(app, "/indexing_status") == {"status": "idle"}, "the recovery")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_thread_that_ended_is_failed_and_started_again(
    monitored: tuple[Collection, FolderMonitor, Starlette],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, monitor, app = monitored
    calls: list[int] = []

    def watch(col: Collection, roots: Any, stop: threading.Event, report: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise SystemExit  # ends the thread, past every `except Exception`
        stop.wait()

    monkeypatch.setattr(pmgs_core, "watch_folders", watch)
    monitor.apply({"monitor_paths": [{"path": str(tmp_path), "category": None}]})
    _until(lambda: calls == [1], "the first attempt")
    _until(lambda: not any(t.name == "pmgs-monitor" for t in threading.enumerate()), "its end")
    status = _get(app, "/indexing_status")
    assert (status["status"], status["error"]["code"]) == ("failed", MONITOR_STOPPED)
    _until(lambda: len(calls) == 2, "a new thread")


def _sql(path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path, timeout=10) as conn:
        return [tuple(row) for row in conn.execute(sql, args)]


def test_a_served_monitor_whose_folder_is_gone_says_failed_and_recovers(
    reference: Reference, tmp_path: Path
) -> None:
    coll = tmp_path / "coll.sqlite"
    watched = (tmp_path / "watched").absolute()
    watched.mkdir()
    server = start_http_server(reference, tmp_path, "--allow-write", "--collection", str(coll))
    base = server.base_url

    def get(path: str) -> httpx2.Response:
        return httpx2.get(f"{base}{path}", timeout=5)

    def stored(name: str) -> bool:
        sql = "SELECT count(*) FROM documents WHERE path = ?"
        return coll.exists() and _sql(coll, sql, str(watched / name)) == [(1,)]

    try:
        wanted = {"monitor_paths": [{"path": str(watched), "category": "監視"}]}
        assert httpx2.post(f"{base}/settings", json=wanted, timeout=5).status_code == 200
        (watched / "a.txt").write_text("最初", encoding="utf-8")
        _until(lambda: stored("a.txt"), "the watch")
        (watched / "a.txt").unlink()
        watched.rmdir()
        _until(lambda: get("/indexing_status").json()["status"] == "failed", "the failure")
        status = get("/indexing_status").json()
        assert status["error"]["code"] == "WATCH_FOLDER_GONE"
        ready = get("/ready")
        assert ready.status_code == 503
        assert (ready.json()["status"], ready.json()["error"]["code"]) == (
            "failed",
            "WATCH_FOLDER_GONE",
        )
        assert get("/health").status_code == 200  # alive: it retries
        watched.mkdir()
        (watched / "b.txt").write_text("戻った", encoding="utf-8")
        _until(lambda: stored("b.txt"), "the retried watch")
        _until(lambda: get("/ready").status_code == 200, "ready again")
        assert get("/indexing_status").json() == {"status": "idle"}
    finally:
        stop_http_server(server)
