"""``pmgs web``: serve the viewer on this machine's loopback and open it in the browser.

The standalone viewer has no token, so it listens on loopback only and refuses any other
``Host`` header (a web page whose name is re-pointed at 127.0.0.1 cannot read it). To serve
it to other machines, mount it in ``pmgs mcp --transport http``, which has the token and
allow-lists.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import socket
import sys
import threading
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlencode

from pmgs_web.guard import LoopbackHostGuard

if TYPE_CHECKING:
    from pmgs_web.releases import StoreSet

__all__ = ["EXIT_DATABASE", "build_parser", "main"]

EXIT_DATABASE: Final = 1
"""The exit code of a database that cannot be opened (as ``pmgs mcp``)."""
EXIT_USAGE: Final = 2

log = logging.getLogger("pmgs_web")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pmgs web",
        description="Browse the pmgs reference in a web browser (read-only, this machine only).",
    )
    parser.add_argument("--db", type=Path, help="database file (default: the set-up release)")
    parser.add_argument("--data-dir", type=Path, help="data directory of `pmgs setup`")
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port; 0 picks a free one")
    parser.add_argument("--no-open", action="store_true", help="do not open the browser")
    parser.add_argument(
        "--json", action="store_true", help='print {"url": ...} on stdout once listening'
    )
    parser.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    return parser


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Browse the pmgs reference in a web browser (read-only, loopback only)."""
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pmgs-web: %(levelname)s: %(message)s"))
    logging.getLogger().handlers[:] = [handler]
    logging.getLogger().setLevel(args.log_level.upper())
    if not _is_loopback(args.host):
        log.error("--host must be a loopback address; mount the viewer in `pmgs mcp` instead")
        return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        log.error("--port must be between 0 and 65535")
        return EXIT_USAGE

    from pmgs_core import PMGSQueryError
    from pmgs_web.releases import StoreSet

    try:
        stores = StoreSet.open(args.db, args.data_dir)
    except PMGSQueryError as exc:
        log.error("cannot open the reference database: %s: %s", exc.code, exc.message)
        return EXIT_DATABASE
    # What the first search would do, done while the server is imported (ADR 0038).
    stores.current.warm_up(counts=True)
    try:
        return _serve(stores, args)
    finally:
        stores.close()


def _serve(stores: StoreSet, args: argparse.Namespace) -> int:
    import uvicorn

    from pmgs_web.app import create_app

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", args.host, args.port, exc.strerror)
        return EXIT_USAGE
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    url = f"http://{shown}:{port}/"
    app = LoopbackHostGuard(create_app(stores, precompile=True), port)
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    stores.current.wait_warm()  # before the first request is taken

    def announce() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if not server.started:
            return
        _first_page(url)
        if args.json:
            sys.stdout.write(json.dumps({"url": url, "release": stores.current_release}) + "\n")
            sys.stdout.flush()
        else:
            sys.stderr.write(f"pmgs web: {url} ({stores.current_release}); Ctrl+C stops\n")
        if not args.no_open:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[sock])
    return 0


WARM_QUERY = "装置"
"""The search the viewer answers to itself before it listens (a word most releases hold)."""


def _first_page(url: str) -> None:
    """Ask the listening viewer for one search page before saying it is ready: what a page's
    first request does once per process and no later one does (the server's first
    connection and worker thread, modules imported on first use, the store connection's
    page cache) is then done (issue 42, ADR 0038). The answer is thrown away; a failure is
    logged and serving goes on."""
    import urllib.request

    page = f"{url}search?{urlencode({'q': WARM_QUERY})}"
    try:
        with urllib.request.urlopen(page, timeout=30) as response:  # noqa: S310 - our own URL
            response.read()
    except Exception:
        log.warning("the warm-up page failed; the first request does the work", exc_info=True)
