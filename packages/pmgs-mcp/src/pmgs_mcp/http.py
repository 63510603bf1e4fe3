"""The HTTP application: stateless streamable HTTP at ``/mcp``, legacy SSE, JSON endpoints.

Stateless because the database is immutable: any worker or replica answers any request
(ADRs 0005, 0013). :func:`create_app_from_env` is the ``uvicorn --factory`` entry, set up by
``PMGS_MCP_*`` variables that every worker inherits. Routes and guards: ``docs/mcp.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from pmgs_mcp.admin import admin_routes
from pmgs_mcp.config import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    ENV_ALLOWED_HOSTS,
    ENV_ALLOWED_ORIGINS,
    ENV_DATA_DIR,
    ENV_DB,
    ENV_EXPECT_SHA256,
    ENV_HOST,
    ENV_MAX_BODY_BYTES,
    ENV_NO_SSE,
    ENV_PORT,
    ENV_TOKEN,
    ENV_TOOLS,
    ENV_WORKERS,
    HttpSettings,
)
from pmgs_mcp.readiness import (
    ProbeEndpoints,
    Readiness,
    SseRefusal,
    expected_sha256,
    sse_refusal_reason,
)
from pmgs_mcp.security import (
    DEFAULT_MAX_BODY_BYTES,
    ASGIApp,
    BearerTokenGuard,
    BodyLimit,
    HostOriginGuard,
    Receive,
    Scope,
    Send,
    send_json_error,
)
from pmgs_mcp.server import initialization_options

if TYPE_CHECKING:
    from pmgs_core import Collection, PMGSStore

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "HttpSettings", "create_app", "create_app_from_env"]


class _StreamableHttpEndpoint:
    """ASGI endpoint handing ``/mcp`` to the SDK's session manager."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


class _SseConnectEndpoint:
    """ASGI endpoint for ``GET /sse``: one MCP connection per open event stream."""

    def __init__(self, transport: SseServerTransport, server: Server[Any]) -> None:
        self.transport = transport
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "GET":
            await send_json_error(send, 405, "METHOD_NOT_ALLOWED", "use GET to open the stream")
            return
        async with self.transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, initialization_options(self.server))


class _SseMessageEndpoint:
    """ASGI endpoint for ``POST /messages?session_id=…`` (the client half of SSE)."""

    def __init__(self, transport: SseServerTransport) -> None:
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.transport.handle_post_message(scope, receive, send)


def create_app(
    server: Server[Any],
    store: PMGSStore,
    settings: HttpSettings,
    *,
    collection: Collection | None = None,
    tools: str = "default",
    on_settings: Callable[[dict[str, Any]], None] | None = None,
) -> ASGIApp:
    """The complete HTTP application for one server and its store, guards included."""
    # Host/Origin checks happen in HostOriginGuard for every route; the SDK's own copy is
    # switched off so that one allow-list (ours) decides. Its Content-Type check stays.
    sdk_security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,
        security_settings=sdk_security,
        max_request_body_size=settings.max_body_bytes,
    )
    sse = SseServerTransport(
        "/messages", security_settings=sdk_security, max_request_body_size=settings.max_body_bytes
    )

    async def version(request: Request) -> Response:
        return JSONResponse(dict(settings.version_info))

    async def release(request: Request) -> Response:
        return JSONResponse(store.release_info())

    monitor = None
    if collection is not None:
        from pmgs_mcp.monitor import FolderMonitor

        monitor = FolderMonitor(collection)

    def settings_saved(values: dict[str, Any]) -> None:
        if monitor is not None:
            monitor.apply(values)
        if on_settings is not None:
            on_settings(values)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if monitor is not None and collection is not None:
            from pmgs_core import PMGSQueryError, read_settings

            try:
                monitor.apply(read_settings(collection.path))
            except PMGSQueryError:
                logger.warning("the collection's settings cannot be read; no folder is watched")
        try:
            async with manager.run():
                yield
        finally:
            if monitor is not None:
                monitor.stop()

    app = Starlette(
        routes=[
            Route("/mcp", _StreamableHttpEndpoint(manager)),
            Route("/sse", _SseConnectEndpoint(sse, server)),
            Route("/messages", _SseMessageEndpoint(sse), methods=["POST"]),
            Route("/version", version, methods=["GET"]),
            Route("/release", release, methods=["GET"]),
            *admin_routes(
                collection,
                tools=tools,
                token=bool(settings.token),
                workers=settings.workers,
                on_settings=settings_saved,
            ),
            *_viewer_routes(store),
        ],
        lifespan=lifespan,
    )
    guarded: ASGIApp = BodyLimit(app, settings.max_body_bytes)
    refusal = sse_refusal_reason(settings.workers, settings.no_sse)
    if refusal is not None:
        guarded = SseRefusal(guarded, refusal)
    if settings.token:
        guarded = BearerTokenGuard(guarded, settings.token)
    guarded = HostOriginGuard(guarded, settings.allowed_hosts, settings.allowed_origins)
    readiness = Readiness(store, expected_sha256(store, settings.expect_sha256))
    readiness.start()
    return ProbeEndpoints(guarded, readiness)


def _viewer_routes(store: PMGSStore) -> list[Mount]:
    """The installed mounts (pmgs-web's viewer under ``/web``), found through their entry
    points (:data:`pmgs_core.MOUNT_ENTRY_POINT_GROUP`): optional packages, never imported by
    name, never required."""
    from pmgs_core import mount_factories

    routes: list[Mount] = []
    for name, factory in mount_factories():
        app = factory(store)
        if app is not None:
            routes.append(Mount(f"/{name}", app=cast("ASGIApp", app)))
    return routes


def _split(value: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())


def settings_to_env(
    settings: HttpSettings,
    *,
    db: str | None,
    data_dir: str | None,
    tools: str,
) -> dict[str, str]:
    """The environment that makes :func:`create_app_from_env` rebuild these settings."""
    env = {
        ENV_HOST: settings.host,
        ENV_PORT: str(settings.port),
        ENV_ALLOWED_HOSTS: ",".join(settings.extra_allowed_hosts),
        ENV_ALLOWED_ORIGINS: ",".join(settings.extra_allowed_origins),
        ENV_MAX_BODY_BYTES: str(settings.max_body_bytes),
        ENV_TOOLS: tools,
        ENV_WORKERS: str(settings.workers),
        ENV_NO_SSE: "1" if settings.no_sse else "",
        ENV_EXPECT_SHA256: settings.expect_sha256 or "",
    }
    if settings.token:
        env[ENV_TOKEN] = settings.token
    if db:
        env[ENV_DB] = db
    if data_dir:
        env[ENV_DATA_DIR] = data_dir
    return env


def create_app_from_env(environ: Mapping[str, str] | None = None) -> ASGIApp:
    """Application factory for ``uvicorn --factory pmgs_mcp.http:create_app_from_env``.

    Reads ``PMGS_MCP_DB`` / ``PMGS_MCP_DATA_DIR`` (else the store's own search order,
    including ``PMGS_REFERENCE_DB``), ``PMGS_MCP_TOKEN``, ``PMGS_MCP_HOST`` and
    ``PMGS_MCP_PORT`` (the address clients use, for the Host allow-list),
    ``PMGS_MCP_ALLOWED_HOSTS`` / ``PMGS_MCP_ALLOWED_ORIGINS`` (comma separated),
    ``PMGS_MCP_MAX_BODY_BYTES``, ``PMGS_MCP_TOOLS`` (``default`` or ``all``),
    ``PMGS_MCP_WORKERS`` (worker count; SSE is refused above 1), ``PMGS_MCP_NO_SSE``,
    ``PMGS_MCP_EXPECT_SHA256`` and ``PMGS_MCP_HEADER_TIMEOUT`` (seconds for a request head).
    Under ``uvicorn --factory`` it also puts the request-head deadline into uvicorn (ADR 0015).
    """
    from pmgs_mcp.app import build_app_server, open_store, version_info
    from pmgs_mcp.connections import header_timeout_from_env, install_in_uvicorn

    header_timeout_from_env(environ)  # a bad value stops startup, not the first connection
    install_in_uvicorn()

    env = os.environ if environ is None else environ
    settings = HttpSettings(
        host=env.get(ENV_HOST, DEFAULT_HOST),
        port=int(env.get(ENV_PORT, str(DEFAULT_PORT))),
        token=env.get(ENV_TOKEN) or None,
        extra_allowed_hosts=_split(env.get(ENV_ALLOWED_HOSTS)),
        extra_allowed_origins=_split(env.get(ENV_ALLOWED_ORIGINS)),
        max_body_bytes=int(env.get(ENV_MAX_BODY_BYTES, str(DEFAULT_MAX_BODY_BYTES))),
        workers=int(env.get(ENV_WORKERS, "1")),
        no_sse=bool(env.get(ENV_NO_SSE)),
        expect_sha256=env.get(ENV_EXPECT_SHA256) or None,
    )
    tools = env.get(ENV_TOOLS, "default")
    if tools not in ("default", "all"):
        raise ValueError(f"{ENV_TOOLS} must be 'default' or 'all'")
    store = open_store(env.get(ENV_DB) or None, env.get(ENV_DATA_DIR) or None)
    server = build_app_server(store, include_browse=tools == "all")
    settings = dataclasses.replace(settings, version_info=version_info())
    return create_app(server, store, settings)


def serve(
    app_or_factory: ASGIApp | str,
    *,
    host: str,
    port: int,
    workers: int = 1,
    log_level: str = "warning",
    extra: Sequence[tuple[str, Any]] = (),
) -> None:
    """Run uvicorn: in process for one worker, or ``workers`` processes from the factory."""
    import uvicorn

    from pmgs_mcp.connections import HeaderDeadlineProtocol

    options: dict[str, Any] = {
        "http": HeaderDeadlineProtocol,  # slow request heads are cut off (ADR 0015)
        "host": host,
        "port": port,
        "log_level": log_level,
        "access_log": False,
        "server_header": False,
        "proxy_headers": False,
        **dict(extra),
    }
    if isinstance(app_or_factory, str):
        uvicorn.run(app_or_factory, factory=True, workers=workers, **options)
    else:
        uvicorn.run(app_or_factory, **options)
