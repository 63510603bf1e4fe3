"""Accessibility and small screens in Debian's Chromium (issue 40).

axe-core (pinned in ``axe/package-lock.json``, installed by ``npm ci`` on first use; never a
browser download) finds no violation on any page type in either language; at 390 px no page
scrolls sideways (wide tables scroll inside their own box); and the pages hold what a searcher
looks for first: the code's title in the ``<h1>``, a document's text before its related codes,
the F-term grid's terms in the column of their number.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import CHROMIUM, Server, browser_page, viewer_server
from page_types import PAGE_TYPES, RELEASE_PAGE_TYPES, in_language
from web_oracle import texts, theme_codes

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is not installed (apt-get install chromium fonts-ipaexfont)",
)

AXE_DIR = Path(__file__).parent / "axe"
AXE_SCRIPT = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core from its lock file: ``npm ci`` once when it is not installed yet."""
    if not AXE_SCRIPT.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install axe-core for the accessibility tests")
        subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=AXE_DIR,
            check=True,
            capture_output=True,
        )
    return AXE_SCRIPT.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def server(sample_db: Path) -> Iterator[Server]:
    with viewer_server(sample_db) as running:
        yield running


@pytest.fixture(scope="module")
def quarantine_server(quarantine_db: Path) -> Iterator[Server]:
    """The quarantine page with rows in it (the sample keeps nothing aside)."""
    with viewer_server(quarantine_db) as running:
        yield running


@pytest.fixture(scope="module")
def releases_server(two_releases: tuple[Path, Any]) -> Iterator[Server]:
    """Two installed releases, for /check with every status and /diff."""
    with viewer_server(None, "--data-dir", str(two_releases[0])) as running:
        yield running


ALL_PAGE_TYPES = {**PAGE_TYPES, **RELEASE_PAGE_TYPES}


def _base(name: str, server: Server, quarantine_server: Server, releases: Server) -> str:
    if name in RELEASE_PAGE_TYPES:
        return releases.url
    return quarantine_server.url if name == "quarantine" else server.url


def _violations(page: Any, axe_source: str) -> list[dict[str, Any]]:
    # Evaluated through the DevTools protocol: the page's CSP (no script) is not bypassed
    # for the page itself, only this test's script runs.
    page.evaluate(axe_source)
    result = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        {"id": v["id"], "targets": [n["target"] for n in v["nodes"]][:5], "help": v["help"]}
        for v in result
    ]


@pytest.mark.parametrize("language", ["ja", "en"])
def test_axe_finds_no_violation_on_any_page_type(
    server: Server,
    quarantine_server: Server,
    releases_server: Server,
    axe_source: str,
    language: str,
) -> None:
    found: dict[str, list[dict[str, Any]]] = {}
    bases = (quarantine_server.url, releases_server.url)
    with browser_page(server.url, *bases) as (page, watch):
        for name, path in ALL_PAGE_TYPES.items():
            base = _base(name, server, quarantine_server, releases_server)
            page.goto(base + in_language(path, language))
            if name == "quarantine":
                assert page.locator("table.list tbody tr").count() > 0
            violations = _violations(page, axe_source)
            if violations:
                found[name] = violations
        assert watch.outside == []
    assert found == {}


@pytest.mark.parametrize("language", ["ja", "en"])
def test_no_page_scrolls_sideways_at_390_px(
    server: Server, quarantine_server: Server, releases_server: Server, language: str
) -> None:
    widths: dict[str, int] = {}
    bases = (quarantine_server.url, releases_server.url)
    with browser_page(server.url, *bases, viewport=PHONE) as (page, watch):
        for name, path in ALL_PAGE_TYPES.items():
            base = _base(name, server, quarantine_server, releases_server)
            page.goto(base + in_language(path, language))
            widths[name] = page.evaluate(
                "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            )
        assert watch.outside == []
    assert {name: width for name, width in widths.items() if width > PHONE["width"]} == {}


def test_grid_terms_sit_in_the_column_of_their_number(
    server: Server, oracle: sqlite3.Connection
) -> None:
    theme = "4C083"
    with browser_page(server.url, viewport={"width": 1280, "height": 900}) as (page, _watch):
        page.goto(f"{server.url}/theme/{theme}")
        headings = page.eval_on_selector_all(
            "table.grid thead th.col",
            "els => els.map(e => [e.textContent.trim(), e.getBoundingClientRect().left])",
        )
        cells = page.eval_on_selector_all(
            "table.grid td a:not(.add)",
            "els => els.map(e => [new URL(e.href).pathname.split('/').pop(),"
            " e.closest('td').getBoundingClientRect().left])",
        )
    assert [label for label, _x in headings] == [str(d) for d in range(10)]
    column_x = [x for _label, x in headings]
    terms = [code for code in theme_codes(oracle, theme) if len(code) == 9]
    assert sorted(code for code, _x in cells) == terms
    for code, x in cells:
        assert x == pytest.approx(column_x[int(code[-1])], abs=1), code


def test_a_document_shows_its_text_before_its_related_codes(server: Server) -> None:
    with browser_page(server.url) as (page, _watch):
        page.goto(server.url + PAGE_TYPES["document"])
        order = page.evaluate(
            "() => { const s = document.querySelector('article.segment');"
            " const r = document.querySelector('ul.related');"
            " return s.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING; }"
        )
        assert order
        # The related codes are folded: they take no room until opened.
        assert page.locator("details.related-box").get_attribute("open") is None


@pytest.mark.parametrize(
    ("scheme", "code", "edition"),
    [("fi", "A40Y1/02@A", ""), ("fterm", "2D673AA02", ""), ("ipc", "A40Y1/02", "4")],
)
def test_a_code_page_h1_holds_its_title(
    server: Server, oracle: sqlite3.Connection, scheme: str, code: str, edition: str
) -> None:
    title = texts(oracle, scheme, code, "ja", edition)[0][0]
    suffix = f"?edition={edition}" if edition else ""
    with browser_page(server.url) as (page, _watch):
        page.goto(f"{server.url}/{scheme}/{code}{suffix}")
        heading = page.locator("h1").inner_text()
    assert code in heading
    assert title in heading


def _media_boxes(pdf: bytes) -> list[tuple[float, float]]:
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    return [(float(w), float(h)) for w, h in boxes]


@pytest.mark.parametrize(
    ("path", "landscape"),
    [(PAGE_TYPES["fterm-grid"], True), (PAGE_TYPES["fi-code"], False)],
)
def test_print_a4_grid_landscape_without_the_header(
    server: Server, path: str, landscape: bool
) -> None:
    a4 = (595.0, 842.0)  # points
    with browser_page(server.url) as (page, _watch):
        page.goto(server.url + path)
        pdf = page.pdf(prefer_css_page_size=True, print_background=True)
        page.emulate_media(media="print")
        hidden = page.evaluate(
            "['header.top', 'form', '.skip'].map(s => document.querySelector(s))"
            ".filter(e => e).map(e => getComputedStyle(e).display)"
        )
        grid_width = page.evaluate(
            "(() => { const g = document.querySelector('table.grid');"
            " return g ? [g.scrollWidth, document.querySelector('main').clientWidth] : null; })()"
        )
    boxes = _media_boxes(pdf)
    assert boxes
    expected = (a4[1], a4[0]) if landscape else a4
    for width, height in boxes:
        assert width == pytest.approx(expected[0], abs=2)
        assert height == pytest.approx(expected[1], abs=2)
    assert set(hidden) == {"none"}
    if grid_width is not None:
        assert grid_width[0] <= grid_width[1]  # the whole grid fits the printed width


def test_first_tab_shows_the_skip_link_with_a_visible_focus_ring(server: Server) -> None:
    with browser_page(server.url) as (page, _watch):
        page.goto(server.url + PAGE_TYPES["fterm-grid"])
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "(() => { const e = document.activeElement; const s = getComputedStyle(e);"
            " const r = e.getBoundingClientRect();"
            " return {cls: e.className, href: e.getAttribute('href'), outline: s.outlineStyle,"
            " width: parseFloat(s.outlineWidth), left: r.left, top: r.top}; })()"
        )
        assert focused["cls"] == "skip"
        assert focused["href"] == "#main"
        assert focused["outline"] != "none"
        assert focused["width"] >= 2
        assert focused["left"] >= 0
        assert focused["top"] >= 0  # on screen while focused
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"
        # The next Tab leaves the header behind: the first link of the content.
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('main') !== null")
