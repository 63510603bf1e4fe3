"""Write one screenshot of each page kind to a directory (``docs/images`` by default).

    uv run python packages/pmgs-web/tests/make_screenshots.py [DIR]

Builds the embedded synthetic sample into a temporary database, starts ``pmgs web`` on it
and photographs the pages in Debian's Chromium (no browser download). Only the first
screen of each page is kept, so the PNGs stay small.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from browser_kit import browser_page, viewer_server

from pmgs_build import build_database, sample_package_path

PAGES = {
    "web-home.png": "/",
    "web-fi-code.png": "/fi/A40Y1/02@A",
    "web-ipc-code.png": "/ipc/A40Y1/02?edition=8U",
    "web-fterm-grid.png": "/theme/2D673",
    "web-document.png": "/document/fterm_explanation:ja:2D673",
    "web-search.png": "/search?q=制御",
    "web-fterm-grid-en.png": "/theme/2D673?lang=en",
}


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sample.sqlite"
        build_database(sample_package_path(), db)
        with (
            viewer_server(db) as server,
            browser_page(server.url, viewport={"width": 1100, "height": 760}) as (page, watch),
        ):
            for name, path in PAGES.items():
                page.goto(server.url + path)
                page.screenshot(path=str(out / name))
                print(f"{out / name}")
            if watch.outside or watch.console_errors:
                print(f"outside: {watch.outside} console: {watch.console_errors}")
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
