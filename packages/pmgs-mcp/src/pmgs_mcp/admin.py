"""The document-database admin endpoints beside ``/mcp`` (ADRs 0016, 0026): ``/edition``,
``/indexing_status``, ``/heal``, ``/model_name`` and ``GET/POST /settings``, in the shapes of
the specification that document-database clients follow. They answer from the user's
collection when ``--allow-write`` serves one; the release is never touched.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pmgs_core import PMGSQueryError

if TYPE_CHECKING:
    from pmgs_core import Collection

__all__ = ["admin_routes"]

_NO_COLLECTION = {"edition": "community", "model": "lsa", "dimensions": 0}


def _error(status: int, code: str, message: str) -> Response:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def admin_routes(
    collection: Collection | None,
    *,
    tools: str,
    token: bool,
    workers: int,
    on_settings: Callable[[dict[str, Any]], None] | None = None,
    monitor_failure: Callable[[], dict[str, Any] | None] | None = None,
) -> list[Route]:
    """The routes; ``on_settings`` hears every saved settings (the folder watcher);
    ``monitor_failure`` says whether that watcher failed (``/indexing_status`` then answers
    its ``failed`` record, not ``idle``)."""
    from pmgs_core import (
        DEFAULT_SETTINGS,
        read_settings,
        vectors_available,
        write_settings,
    )

    async def edition(request: Request) -> Response:
        info = None if collection is None else collection.model_info()
        return JSONResponse(
            {
                "edition": "community",
                "tools": tools,
                "collection": collection is not None,
                "vector_search": bool(info and info["dimensions"]),
                "embedding_loaded": False,
            }
        )

    async def indexing_status(request: Request) -> Response:
        if collection is None:
            return JSONResponse({"status": "idle"})
        failure = None if monitor_failure is None else monitor_failure()
        if failure is not None:
            return JSONResponse(failure)
        return JSONResponse(collection.indexing_status())

    async def heal(request: Request) -> Response:
        if collection is None:
            return JSONResponse({"synced": 0})
        return JSONResponse({"synced": await run_in_threadpool(collection.heal)})

    async def model_name(request: Request) -> Response:
        if collection is None:
            return JSONResponse(
                {
                    **_NO_COLLECTION,
                    "trained_items": 0,
                    "trained_at": None,
                    "vector_search_available": vectors_available(),
                }
            )
        return JSONResponse(dict(collection.model_info()))

    async def settings(request: Request) -> Response:
        if request.method == "GET":
            if collection is None:
                return JSONResponse(dict(DEFAULT_SETTINGS))
            return JSONResponse(dict(read_settings(collection.path)))
        if collection is None:
            return _error(403, "WRITE_DISABLED", "start the server with --allow-write")
        if workers > 1:
            return _error(409, "SETTINGS_UNAVAILABLE", "settings need a single worker")
        if not token and not _loopback(request):
            return _error(
                403, "FORBIDDEN", "settings are changed from this machine or with a token"
            )
        try:
            values = json.loads(await request.body())
            saved = write_settings(collection.path, values)
        except ValueError:
            return _error(400, "INVALID_SETTINGS", "the body must be a JSON object")
        except PMGSQueryError as exc:
            return _error(400, exc.code, exc.message)
        if on_settings is not None:  # restarting the watcher may wait for its thread
            await run_in_threadpool(on_settings, dict(saved))
        return JSONResponse(dict(saved))

    return [
        Route("/edition", edition, methods=["GET"]),
        Route("/indexing_status", indexing_status, methods=["GET"]),
        Route("/heal", heal, methods=["GET", "POST"]),
        Route("/model_name", model_name, methods=["GET"]),
        Route("/settings", settings, methods=["GET", "POST"]),
    ]
