"""A real viewer process and a real headless Chromium, for the browser tests and screenshots.

The server is ``python -m pmgs_web`` on a free loopback port (it prints its URL as JSON).
Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright; no browser is downloaded.
Every request the page makes is recorded; one that leaves the server is aborted and kept in
``outside`` so a test can fail on it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]


@contextmanager
def viewer_server(db: Path | None, *args: str) -> Iterator[Server]:
    """``pmgs web`` on ``db`` (or, with ``db`` None, on what ``args`` such as
    ``--data-dir DIR`` name)."""
    where = ["--db", str(db)] if db is not None else []
    process = subprocess.Popen(
        [sys.executable, "-m", "pmgs_web", *where, *args, "--port", "0", "--json", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(
                f"pmgs web did not start: {process.stderr.read() if process.stderr else ''}"
            )
        yield Server(json.loads(line)["url"].rstrip("/"), process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Watch:
    """What the browser did: requests, requests that left the server, console errors."""

    base: str
    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


@contextmanager
def browser_page(base: str, *also: str, **context_options: Any) -> Iterator[tuple[Any, Watch]]:
    """A page whose requests may go to ``base`` (and the servers ``also``) only."""
    from playwright.sync_api import sync_playwright

    watch = Watch(base)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            context = browser.new_context(**context_options)

            def route(route: Any) -> None:
                url = route.request.url
                watch.requests.append(url)
                if any(url.startswith(allowed + "/") for allowed in (base, *also)):
                    route.continue_()
                else:
                    watch.outside.append(url)
                    route.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on(
                "console",
                lambda msg: watch.console_errors.append(msg.text) if msg.type == "error" else None,
            )
            page.on("pageerror", lambda error: watch.console_errors.append(str(error)))
            yield page, watch
        finally:
            browser.close()
