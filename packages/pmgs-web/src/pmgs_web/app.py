"""The viewer as one Starlette application: addresses, HTML or JSON, errors, headers.

Every address answers GET only. ``.json`` at the end of the path (or ``Accept:
application/json`` without ``text/html``) gives the store's record for the same address
instead of the page. A store error becomes a page (or JSON) with its stable code and the
HTTP status of its category; anything unexpected is a 500 page without a traceback. Pages
are Jinja2 templates with autoescape on: package text is untrusted and is only ever
inserted as text. The Content-Security-Policy allows nothing outside this server and no
script at all; the pages need none.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from importlib.resources import files
from typing import Final
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from pmgs_core import ERROR_CATEGORIES, PMGSQueryError, PMGSStore
from pmgs_web import pages_check, pages_code, pages_misc
from pmgs_web.gather import parse_gathered
from pmgs_web.i18n import label, value_label
from pmgs_web.links import Linker
from pmgs_web.releases import StoreSet
from pmgs_web.view import PageRequest, View, check_language, status_of

__all__ = ["CONTENT_SECURITY_POLICY", "MAX_PATH_CHARS", "create_app", "viewer_for"]

log = logging.getLogger("pmgs_web")

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
MAX_PATH_CHARS: Final = 512
"""Longer paths are refused before any lookup (no code or document id comes near)."""
MAX_ECHO_CHARS: Final = 2048
"""The longest path or query an error page repeats in its own links (issue 41)."""

_HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_SCHEMES: Final = ("fi", "fterm", "ipc")
_CSS: Final = files("pmgs_web").joinpath("static/style.css").read_bytes()
_ICON: Final = files("pmgs_web").joinpath("static/favicon.svg").read_bytes()


def _mark(text: str, terms: list[str]) -> Markup:
    """``text`` escaped, with every occurrence of a search term (any case) in <mark>."""
    wanted = [term for term in terms if term]
    if not wanted:
        return escape(text)
    pattern = re.compile("|".join(re.escape(term) for term in wanted), re.IGNORECASE)
    out: list[str] = []
    position = 0
    for hit in pattern.finditer(text):
        out.append(str(escape(text[position : hit.start()])))
        out.append(f"<mark>{escape(hit.group())}</mark>")
        position = hit.end()
    out.append(str(escape(text[position:])))
    return Markup("".join(out))  # noqa: S704 - every piece above was escaped


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("pmgs_web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["mark"] = _mark
    return env


def _wants_json(request: Request, path: str) -> tuple[bool, str]:
    if path.endswith(".json"):
        return True, path[: -len(".json")]
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept, path


def _route(path: str, stores: StoreSet) -> Callable[[PageRequest], View] | None:
    """The handler of a path (already without ``.json``), or ``None``: 404."""
    parts = path.strip("/").split("/", 1) if path.strip("/") else ["index"]
    head, rest = parts[0], parts[1] if len(parts) > 1 else ""
    simple: dict[str, Callable[[PageRequest], View]] = {
        "index": pages_misc.home,
        "search": pages_misc.search,
        "quarantine": pages_misc.quarantine,
        "releases": lambda req: pages_misc.releases(req, stores),
        "check": pages_check.check_page,
        "diff": lambda req: pages_check.diff_page(req, stores),
    }
    if head in simple and not rest:
        return simple[head]
    if head in _SCHEMES:
        if not rest:
            return lambda req: pages_code.scheme_index(req, head)
        return lambda req: pages_code.code_page(req, head, rest)
    if head == "theme" and rest:
        return lambda req: pages_code.theme_grid(req, rest)
    if head == "document" and rest:
        return lambda req: pages_misc.document_page(req, rest)
    return None


class _Viewer:
    """The one endpoint: picks the handler, runs it in a worker thread, renders the answer."""

    def __init__(self, stores: StoreSet, *, precompile: bool = False) -> None:
        self.stores = stores
        self.env = _environment()
        if precompile:
            # Compiling a page's templates cost its first request ~0.1-0.3 s (issue 42).
            for name in self.env.list_templates(filter_func=lambda name: name.endswith(".html")):
                self.env.get_template(name)

    def answer(self, request: Request) -> Response:
        raw_path = request.path_params.get("path", "")
        as_json, path = _wants_json(request, "/" + raw_path)
        language = "ja"
        links = Linker(request.scope.get("root_path", ""), path, request.query_params, language)
        try:
            if len(raw_path) > MAX_PATH_CHARS or len(str(request.query_params)) > 4 * 4096:
                raise PMGSQueryError("INVALID_ARGUMENT", "the address is too long")
            language = check_language(request.query_params.get("lang"))
            links = Linker(links.root, path, request.query_params, language)
            links.set_gathered(parse_gathered(request.query_params.get("f")))
            handler = _route(path, self.stores)
            if handler is None:
                return self._error(as_json, links, "NOT_FOUND", "no page at this address", 404)
            release = request.query_params.get("release") or "current"
            store = self.stores.select(release)
            links.release_checked = True
            req = PageRequest(store, release, language, request.query_params, links)
            view = handler(req)
        except PMGSQueryError as error:
            return self._error(as_json, links, error.code, error.message, status_of(error.code))
        except Exception:
            log.exception("page failed: %s", path[:200])
            return self._error(as_json, links, "INTERNAL_ERROR", "the page failed", 500)
        if as_json:
            return _json(view.record, view.status)
        if view.redirect is not None:
            return RedirectResponse(view.redirect, 303, headers=_HEADERS)
        try:
            return self._html(view, links)
        except Exception:
            log.exception("page failed to render: %s", path[:200])
            return self._error(as_json, links, "INTERNAL_ERROR", "the page failed", 500)

    def _html(self, view: View, links: Linker) -> Response:
        template = self.env.get_template(view.template)
        language = links.language
        body = template.render(
            **view.context,
            t=lambda key: label(key, language),
            v=lambda prefix, value: value_label(prefix, value, language),
            lang=language,
            links=links,
            title=view.title,
            status=view.status,
        )
        return HTMLResponse(body, view.status, headers=_HEADERS)

    def _error(
        self, as_json: bool, links: Linker, code: str, message: str, status: int
    ) -> Response:
        record = {"code": code, "message": message}
        if as_json:
            return _json({"error": record}, status)
        if len(urlencode(links.query)) > MAX_ECHO_CHARS or len(links.path) > MAX_ECHO_CHARS:
            # An error page links to itself (language, JSON): a huge address is not echoed.
            path = links.path if len(links.path) <= MAX_ECHO_CHARS else "/"
            links = Linker(links.root, path, {}, links.language)
        if not links.release_checked:
            # The release asked for may be the fault: no link of this page keeps it.
            links.sticky.pop("release", None)
            links.query.pop("release", None)
        if not links.gathered_checked:
            # The gathered codes may be the fault: no link of this page keeps them.
            links.query.pop("f", None)
        category = "internal" if status == 500 else ERROR_CATEGORIES.get(code, "input")  # type: ignore[call-overload]
        context = {"error": record, "category": category}
        view = View("error.html", context, record, status, label("error", links.language))
        return self._html(view, links)


def _json(record: object, status: int) -> Response:
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return Response(body, status, headers=_HEADERS, media_type="application/json")


async def _css(request: Request) -> Response:
    return Response(
        _CSS, headers={**_HEADERS, "Cache-Control": "max-age=3600"}, media_type="text/css"
    )


async def _icon(request: Request) -> Response:
    return Response(
        _ICON, headers={**_HEADERS, "Cache-Control": "max-age=86400"}, media_type="image/svg+xml"
    )


class _GetOnly:
    """Refuses every method but GET and HEAD before routing: nothing here writes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in {"GET", "HEAD"}:
            response = JSONResponse(
                {"error": {"code": "METHOD_NOT_ALLOWED", "message": "the viewer is read-only"}},
                405,
                headers={**_HEADERS, "Allow": "GET, HEAD"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(stores: StoreSet, *, precompile: bool = False) -> ASGIApp:
    """The viewer over ``stores``; mount it anywhere (links follow the mount's root path).
    ``precompile`` compiles every template now rather than on the first page that needs it
    (``pmgs web`` does, before it takes requests: ADR 0038)."""
    viewer = _Viewer(stores, precompile=precompile)

    def endpoint(request: Request) -> Response:
        return viewer.answer(request)

    app = Starlette(
        routes=[
            Route("/static/style.css", _css, methods=["GET", "HEAD"]),
            Route("/static/favicon.svg", _icon, methods=["GET", "HEAD"]),
            Route("/favicon.ico", _icon, methods=["GET", "HEAD"]),
            Route("/{path:path}", endpoint, methods=["GET", "HEAD"]),
        ]
    )
    return _GetOnly(app)


def viewer_for(store: object) -> ASGIApp | None:
    """The viewer over another server's store (``pmgs mcp`` mounts it); ``None`` when the
    object is not a :class:`pmgs_core.PMGSStore`. The store stays the caller's to close."""
    if not isinstance(store, PMGSStore):
        return None
    return create_app(StoreSet(store))
