"""The admin endpoints' rules, in process over ASGI: POST /settings only from this machine
or with a token, never with several workers or without a collection; a refused or bad
settings body leaves the file as it was (compared byte for byte)."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
from starlette.applications import Starlette

from pmgs_core import Collection
from pmgs_mcp.admin import admin_routes


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
