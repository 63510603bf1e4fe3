"""The admin endpoints' rules, in process over ASGI: POST /settings only from this machine
or with a token, never with several workers or without a collection; a refused or bad
settings body leaves the file as it was (compared byte for byte)."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
from starlette.applications import Starlette

from pmgs_core import Collection, PMGSStore
from pmgs_mcp.admin import admin_routes
from pmgs_mcp.app import build_tools


def _post(app: Starlette, client: tuple[str, int], body: object) -> httpx2.Response:
    async def run() -> httpx2.Response:
        transport = httpx2.ASGITransport(app=app, client=client)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return await http.post("/settings", json=body)

    return anyio.run(run)


@pytest.mark.parametrize(
    ("client", "token", "workers", "with_collection", "status", "code"),
    [
        (("127.0.0.1", 5000), False, 1, True, 200, None),
        (("::1", 5000), False, 1, True, 200, None),
        (("192.0.2.7", 5000), False, 1, True, 403, "FORBIDDEN"),
        (("192.0.2.7", 5000), True, 1, True, 200, None),  # the token guard let it through
        (("127.0.0.1", 5000), False, 2, True, 409, "SETTINGS_UNAVAILABLE"),
        (("127.0.0.1", 5000), False, 1, False, 403, "WRITE_DISABLED"),
    ],
)
def test_post_settings_rules(
    tmp_path: Path,
    client: tuple[str, int],
    token: bool,
    workers: int,
    with_collection: bool,
    status: int,
    code: str | None,
) -> None:
    with Collection(tmp_path / "c.sqlite") as col:
        heard: list[dict[str, object]] = []
        routes = admin_routes(
            col if with_collection else None,
            tools="default",
            token=token,
            workers=workers,
            on_settings=heard.append,
        )
        answer = _post(Starlette(routes=routes), client, {"limit": 9})
        assert answer.status_code == status, answer.text
        stored = tmp_path / "settings.json"
        if code is None:
            assert answer.json()["limit"] == 9
            assert '"limit": 9' in stored.read_text("utf-8")
            assert heard == [answer.json()]
        else:
            assert answer.json()["error"]["code"] == code
            assert not stored.exists()
            assert heard == []


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"limit": 0},
        {"limit": True},
        {"min_score": -0.1},
        {"colour": "blue"},
        {"monitor_paths": ["relative/path"]},
        {"monitor_paths": [{"path": "/", "category": "x" * 101}]},
        {"monitor_paths": [{"path": "/", "other": 1}]},
        {"run_on_login": "yes"},
    ],
)
def test_bad_settings_change_nothing(tmp_path: Path, body: object) -> None:
    with Collection(tmp_path / "c.sqlite") as col:
        app = Starlette(routes=admin_routes(col, tools="default", token=False, workers=1))
        assert _post(app, ("127.0.0.1", 1), {"limit": 3}).status_code == 200
        before = (tmp_path / "settings.json").read_bytes()
        answer = _post(app, ("127.0.0.1", 1), body)
        assert answer.status_code == 400
        assert answer.json()["error"]["code"] == "INVALID_SETTINGS"
        assert (tmp_path / "settings.json").read_bytes() == before


def test_saved_settings_are_the_search_defaults(store: PMGSStore, tmp_path: Path) -> None:
    """``min_score`` and ``limit`` saved through POST /settings are what ``search_text`` uses
    when a client gives neither; a value the client gives wins."""
    with Collection(tmp_path / "c.sqlite") as col:
        for n in range(12):  # one, two or three matching words: lexical scores differ
            words = " ".join(["結着剤", "負極", "電池"][: 1 + n % 3])
            col.add_item_text(f"{words} のメモ {n}", f"notes/{n}.md", category="t")
        tools = build_tools(store, include_browse=False, collection=col)

        def scores(**args: object) -> list[float]:
            outcome = tools.call(
                "search_text",
                {"content": "結着剤 負極 電池", "source": "user_collection", **args},
            )
            assert not outcome.is_error, outcome.value
            return [item["similarity"] for item in outcome.value["items"]]

        assert len(scores()) == 5  # nothing saved: the specification's defaults (5, 0.3)
        app = Starlette(routes=admin_routes(col, tools="all", token=False, workers=1))
        assert _post(app, ("127.0.0.1", 5000), {"limit": 2}).status_code == 200
        assert len(scores()) == 2
        assert len(scores(limit=7)) == 7
        assert _post(app, ("127.0.0.1", 5000), {"limit": 20, "min_score": 0.99}).status_code == 200
        high = scores()
        assert high
        assert all(score >= 0.99 for score in high)
        everything = scores(min_score=0.0)
        assert len(everything) > len(high)
        assert min(everything) < 0.99
