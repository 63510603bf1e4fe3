"""Screenshots of every page type at 1280 and 390 px (``docs/images`` by default).

    uv run python packages/pmgs-web/tests/make_screenshots.py [DIR]

Builds the embedded synthetic sample into a temporary database, starts ``pmgs web`` on it
and photographs the pages in Debian's Chromium (no browser download): each page type of
``page_types.PAGE_TYPES`` as ``web-<type>-1280.png`` and ``web-<type>-390.png``, plus the
English grid. The quarantine page is taken from the sample with one unreadable FI code (the
sample itself keeps nothing aside). Only the first screen of each page is kept and the PNGs
are written with a reduced palette when Pillow is installed, so they stay small.
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from browser_kit import browser_page, viewer_server
from page_types import PAGE_TYPES, RELEASE_PAGE_TYPES, in_language

from pmgs_build import build_database, sample_package_path, setup_release
from pmgs_testkit import corrupt, generate_package, plan_next_release, write_next_release

WIDTHS = {1280: 800, 390: 844}
"""Viewport width: height (a laptop screen and a phone)."""
EXTRA = {"fterm-grid-en": in_language(PAGE_TYPES["fterm-grid"], "en")}


def _small_png(data: bytes) -> bytes:
    """The screenshot with at most 64 colours (text and flat colours lose nothing visible)."""
    try:
        from PIL import Image
    except ImportError:
        return data
    image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _two_releases(tmp: Path) -> Path:
    """The base and next releases of docs/cli.md's check example, installed in a data dir."""
    base = generate_package(tmp / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base, with_chains=True)
    following = write_next_release(base, tmp / "next", plan)
    setup_release(base.path, tmp / "data-dir")
    setup_release(following, tmp / "data-dir")
    return tmp / "data-dir"


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")
    out.mkdir(parents=True, exist_ok=True)
    pages = {**PAGE_TYPES, **EXTRA}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sample.sqlite"
        build_database(sample_package_path(), db)
        package = Path(tmp) / "JPPM2026002"
        shutil.copytree(sample_package_path(), package)
        corrupt(package, "bad_fi_code")
        kept_aside = Path(tmp) / "quarantine.sqlite"
        build_database(package, kept_aside, quarantine_budget=1.0)
        data = _two_releases(Path(tmp))
        with (
            viewer_server(db) as server,
            viewer_server(kept_aside) as second,
            viewer_server(None, "--data-dir", str(data)) as third,
        ):
            for width, height in WIDTHS.items():
                viewport = {"width": width, "height": height}
                bases = (second.url, third.url)
                with browser_page(server.url, *bases, viewport=viewport) as (page, watch):
                    for name, path in {**pages, **RELEASE_PAGE_TYPES}.items():
                        base = second.url if name == "quarantine" else server.url
                        base = third.url if name in RELEASE_PAGE_TYPES else base
                        page.goto(base + path)
                        target = out / f"web-{name}-{width}.png"
                        target.write_bytes(_small_png(page.screenshot()))
                        print(target)
                    if watch.outside:
                        print(f"requests outside the server: {watch.outside}")
                        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
