"""Command line of the MCP server: ``pmgs-mcp``, ``python -m pmgs_mcp`` and ``pmgs mcp``.

All three run :func:`main`. It parses with :mod:`argparse` (no click: pmgs-mcp must not
depend on the CLI's argument library, ADR 0001), refuses unsafe HTTP settings before
opening anything, opens the store, and serves. Standard output belongs to the MCP protocol
on stdio, so everything this module reports goes to stderr through :mod:`logging`.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pmgs_core import Collection
    from pmgs_mcp.config import HttpSettings

__all__ = ["EXIT_DATABASE", "EXIT_USAGE", "build_parser", "main"]

EXIT_DATABASE: Final = 3
"""The database could not be opened (missing, invalid pointer, unknown schema …): the same
code as ``pmgs`` uses for these errors (docs/cli.md, "Exit codes")."""
_DATABASE_HINT: Final = (
    "hint: pass --db FILE or --data-dir DIR of a database made by `pmgs setup SOURCE`; "
    "`pmgs doctor` checks it."
)
EXIT_USAGE: Final = 2
"""Bad options, or settings refused for safety (argparse's own convention)."""

logger = logging.getLogger("pmgs_mcp")

_HTTP_TRANSPORTS: Final = ("http", "streamable-http", "sse")


def _prog() -> str:
    """``pmgs mcp`` when run as a subcommand of the pmgs CLI, else the command's own name."""
    invoked = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    stem = invoked.removesuffix(".exe")
    if stem == "pmgs":
        return "pmgs mcp"
    if stem in ("__main__.py", "-c", ""):
        return "python -m pmgs_mcp"
    return stem


def build_parser() -> argparse.ArgumentParser:
    """The option parser (public so the documentation and tests can render its help)."""
    from pmgs_mcp.config import DEFAULT_HOST, DEFAULT_PORT, ENV_TOKEN
    from pmgs_mcp.security import DEFAULT_MAX_BODY_BYTES

    parser = argparse.ArgumentParser(
        prog=_prog(),
        description=(
            "Serve the local pmgs reference to AI agents over MCP: stdio (default), or HTTP "
            "with streamable HTTP at /mcp and the legacy SSE pair GET /sse + POST /messages. "
            "Read-only; answers only from the database."
        ),
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--db", metavar="PATH", help="the SQLite reference database to serve")
    source.add_argument(
        "--data-dir",
        metavar="DIR",
        help="managed data directory; serves the database named by its state/current.json",
    )
    parser.add_argument(
        "--transport",
        choices=("stdio", *_HTTP_TRANSPORTS),
        default="stdio",
        help=(
            "stdio (default; stdout carries the protocol only) or http; 'streamable-http' and "
            "'sse' are aliases of http, which serves both"
        ),
    )
    parser.add_argument(
        "--tools",
        choices=("default", "all"),
        default="default",
        help=(
            "default: lookup_classification, search_pmgs, get_pmgs_document; all: also "
            "search_text, list_documents, list_categories, get_document_count, release_info, "
            "check_classification_codes"
        ),
    )
    write = parser.add_argument_group("the user's collection (writable, beside the release)")
    write.add_argument(
        "--allow-write",
        action="store_true",
        help=(
            "also serve the user's collection: add_item_text, update_item, delete_item, "
            "get_item_by_id, get_document, delete_document, lsa_retrain (alias "
            "reindex_collection), and "
            "list_documents / list_categories / get_document_count with a source argument "
            "(off by default; needs one writer: refused with --workers > 1)"
        ),
    )
    write.add_argument(
        "--collection",
        metavar="PATH",
        help=(
            "the collection file (default: collection/collection.sqlite under --data-dir or "
            "the default data directory); created when absent"
        ),
    )
    http = parser.add_argument_group("HTTP options")
    http.add_argument("--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST})")
    http.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})"
    )
    http.add_argument(
        "--token",
        help=(
            f"require 'Authorization: Bearer TOKEN'; prefer the {ENV_TOKEN} environment "
            "variable, which other users cannot read from the process list"
        ),
    )
    http.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help=(
            "add an accepted Host header value, e.g. the load balancer's public name "
            "(repeatable; 'name:*' accepts any port)"
        ),
    )
    http.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="add an accepted Origin, e.g. https://app.example (repeatable)",
    )
    http.add_argument(
        "--allow-unauthenticated-remote",
        action="store_true",
        help="bind a non-loopback address without a token (refused otherwise)",
    )
    http.add_argument(
        "--workers",
        type=int,
        default=1,
        help=(
            "uvicorn worker processes for streamable HTTP; with more than 1, the SSE endpoints "
            "answer 501 SSE_UNAVAILABLE (an SSE session lives in one process)"
        ),
    )
    http.add_argument(
        "--no-sse",
        action="store_true",
        help=(
            "answer the SSE endpoints with 501 SSE_UNAVAILABLE: for replicas behind a "
            "balancer without source-IP affinity"
        ),
    )
    http.add_argument(
        "--expect-sha256",
        metavar="HEX",
        help=(
            "/ready stays 503 unless the database file has this SHA-256 (default: the "
            "pointer's, or the content-addressed file name's)"
        ),
    )
    http.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY_BYTES,
        help=f"largest accepted request body (default {DEFAULT_MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default=None,
        help="stderr log level (default: warning for stdio, info for http)",
    )
    parser.add_argument("--version", action="version", version=_version_text())
    return parser


def _version_text() -> str:
    from pmgs_mcp import __version__

    return f"pmgs-mcp {__version__}"


def _configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pmgs-mcp: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # Libraries (the SDK, uvicorn) stay at warning unless debugging: at info the SDK logs
    # every stateless request, which buries what this server has to say.
    wanted = logging.getLevelNamesMapping()[level.upper()]
    root.setLevel(wanted if level == "debug" else max(wanted, logging.WARNING))
    logger.setLevel(wanted)


def _check_http_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse settings that would expose the server; exits with status 2 (usage)."""
    from pmgs_mcp.security import is_loopback_host

    if not 0 < args.port < 65536:
        parser.error("--port must be between 1 and 65535")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.expect_sha256 is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", args.expect_sha256):
        parser.error("--expect-sha256 must be 64 hexadecimal digits")
    if args.max_body_bytes < 1024:
        parser.error("--max-body-bytes must be at least 1024")
    if args.token is not None and not args.token.strip():
        parser.error("--token must not be empty")
    if not is_loopback_host(args.host) and not args.token and not args.allow_unauthenticated_remote:
        parser.error(
            f"refusing to bind {args.host!r} (reachable from other machines) without a bearer "
            "token: set --token or PMGS_MCP_TOKEN, or pass --allow-unauthenticated-remote"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the pmgs reference over MCP (stdio, streamable HTTP, SSE)."""
    from pmgs_mcp.config import ENV_TOKEN

    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    transport = "http" if args.transport in _HTTP_TRANSPORTS else "stdio"
    _configure_logging(args.log_level or ("info" if transport == "http" else "warning"))

    if transport == "http":
        if args.token is None:
            args.token = os.environ.get(ENV_TOKEN) or None
        _check_http_options(parser, args)
    elif args.workers != 1:
        parser.error("--workers applies to --transport http only")
    if args.collection is not None and not args.allow_write:
        parser.error("--collection needs --allow-write")
    if args.allow_write and args.workers > 1:
        parser.error(
            "--allow-write needs a single writer: run one worker (--workers 1) for the "
            "collection, and serve the read-only tools from other replicas"
        )

    from pmgs_core import PMGSQueryError, PMGSStore

    try:
        # Opened before the SDK is imported: a wrong --db fails in a fraction of a second.
        store = PMGSStore.open(args.db, data_dir=args.data_dir)
    except PMGSQueryError as exc:
        logger.error("cannot open the reference database: %s: %s", exc.code, exc.message)
        sys.stderr.write(_DATABASE_HINT + "\n")
        return EXIT_DATABASE

    if transport == "http" and args.workers > 1:
        store.close()  # checked; each worker opens its own
        return _serve_http_workers(args)
    # What the first search would do, done while the SDK is imported (ADR 0038).
    store.warm_up()

    from pmgs_mcp.app import build_app_server, build_tools, version_info

    collection = None
    if args.allow_write:
        try:
            collection = _open_collection(args)
        except PMGSQueryError as exc:
            logger.error("cannot open the collection: %s: %s", exc.code, exc.message)
            sys.stderr.write("hint: check --collection (or --data-dir); see docs/mcp.md.\n")
            return EXIT_DATABASE
    if transport == "stdio":
        from pmgs_mcp.server import build_server, run_stdio

        toolset = build_tools(store, include_browse=args.tools == "all", collection=collection)
        store.wait_warm()
        run_stdio(build_server(toolset, version=version_info()["version"]), toolset)
        return 0
    server = build_app_server(store, include_browse=args.tools == "all", collection=collection)

    from pmgs_mcp.http import create_app, serve

    app = create_app(
        server,
        store,
        _http_settings(args, version_info()),
        collection=collection,
        tools=args.tools,
    )
    store.wait_warm()
    _announce(args)
    serve(app, host=args.host, port=args.port, log_level=_uvicorn_level())
    return 0


def _open_collection(args: argparse.Namespace) -> Collection:
    """The writable collection ``--allow-write`` serves (see ``--collection``)."""
    from pathlib import Path

    from pmgs_core import COLLECTION_FILE, Collection, default_data_dir

    if args.collection is not None:
        return Collection(args.collection)
    root = Path(args.data_dir) if args.data_dir is not None else default_data_dir()
    return Collection(root / COLLECTION_FILE)


def _http_settings(args: argparse.Namespace, info: dict[str, str] | None = None) -> HttpSettings:
    from pmgs_mcp.config import HttpSettings

    return HttpSettings(
        host=args.host,
        port=args.port,
        token=args.token,
        extra_allowed_hosts=tuple(args.allow_host),
        extra_allowed_origins=tuple(args.allow_origin),
        max_body_bytes=args.max_body_bytes,
        version_info=dict(info or {}),
        workers=args.workers,
        no_sse=args.no_sse,
        expect_sha256=args.expect_sha256.lower() if args.expect_sha256 else None,
    )


def _uvicorn_level() -> str:
    return "info" if logging.getLogger().level <= logging.DEBUG else "warning"


def _announce(args: argparse.Namespace) -> None:
    base = f"http://{args.host}:{args.port}"
    logger.info(
        "serving %s/mcp (streamable HTTP), %s/sse (SSE%s), %s/health, %s/ready; token %s",
        base,
        base,
        ", refused: several workers" if args.workers > 1 else (", refused" if args.no_sse else ""),
        base,
        base,
        "required" if args.token else "not required",
    )


def _serve_http_workers(args: argparse.Namespace) -> int:
    """Start ``args.workers`` uvicorn processes, each building the app from the environment."""
    from pmgs_mcp.http import serve, settings_to_env

    os.environ.update(
        settings_to_env(_http_settings(args), db=args.db, data_dir=args.data_dir, tools=args.tools)
    )
    _announce(args)
    serve(
        "pmgs_mcp.http:create_app_from_env",
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=_uvicorn_level(),
    )
    return 0
