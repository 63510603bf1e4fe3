"""The viewer in a real headless Chromium: a searcher's path through the pages.

home → search → an F-term code page → its theme grid → the explanation document → back to
the code, in Japanese and in English. What the browser shows is compared with SQL; every
link on the visited pages must answer 200; no request may leave the server; the console
must stay free of errors (CSP violations are console errors too).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import httpx2
import pytest
from browser_kit import CHROMIUM, Server, browser_page, viewer_server
from web_oracle import segments, texts, theme_codes

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is not installed (apt-get install chromium fonts-ipaexfont)",
)

TERM = "2D673AA01"
THEME = "2D673"


@pytest.fixture(scope="module")
def server(sample_db: Path) -> Iterator[Server]:
    with viewer_server(sample_db) as running:
        yield running


def _check_links(page: object, base: str, checked: set[str]) -> None:
    """Every link of the page answers 200 (each address is fetched once per test)."""
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")  # type: ignore[attr-defined]
    assert hrefs
    with httpx2.Client(timeout=30) as http:
        for href in hrefs:
            assert href.startswith(base + "/"), href
            if href in checked:
                continue
            checked.add(href)
            assert http.get(href).status_code == 200, href


def _shown_texts(page: object, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]  # type: ignore[attr-defined]


@pytest.mark.parametrize("language", ["ja", "en"])
def test_search_code_grid_document_and_back(
    server: Server, oracle: sqlite3.Connection, language: str
) -> None:
    label = texts(oracle, "fterm", TERM, language)[0][0]
    word = label.split("：")[-1].split(": ")[-1]
    checked: set[str] = set()
    with browser_page(server.url) as (page, watch):
        start = server.url + ("/?lang=en" if language == "en" else "/")
        page.goto(start)
        heading = page.locator("h1").inner_text()
        release = oracle.execute("SELECT release_id FROM release").fetchone()[0]
        assert release in heading
        _check_links(page, server.url, checked)

        # Search with the form of the home page (no script: a plain GET form).
        page.locator("form.bigsearch input[name=q]").fill(word)
        page.locator("form.bigsearch button").click()
        page.wait_for_url("**/search?**")
        assert unquote(page.url).find(f"q={word}") > 0 or word.replace(" ", "+") in unquote(
            page.url
        )
        assert page.locator("mark").count() > 0
        _check_links(page, server.url, checked)

        # The F-term code page from the results.
        page.locator(f'ol.hits a.code:text-is("{TERM}")').first.click()
        page.wait_for_url(f"**/fterm/{TERM}*")
        assert page.locator("#code").inner_text() == TERM
        assert label in _shown_texts(page, "ul.texts .body")
        _check_links(page, server.url, checked)

        # Its theme grid: every canonical viewpoint and term is a cell link.
        page.locator("a.gridlink").first.click()
        page.wait_for_url(f"**/theme/{THEME}*")
        cells = page.eval_on_selector_all(
            "table.grid a:not(.add)", "els => els.map(e => new URL(e.href).pathname)"
        )
        assert sorted(c.removeprefix("/fterm/") for c in cells) == theme_codes(oracle, THEME)
        _check_links(page, server.url, checked)

        # The explanation document in the page's language, then back to the code.
        document = f"fterm_explanation:{language}:{THEME}"
        page.locator(f'a.doc[href*="{document}"]').first.click()
        page.wait_for_url("**/document/**")
        shown_bodies = _shown_texts(page, "article.segment p.body")
        assert shown_bodies == [body.strip() for _s, body, _l in segments(oracle, document)][:20]
        _check_links(page, server.url, checked)
        # The related codes are folded after the text: open them, then follow the term.
        page.locator("details.related-box summary").click()
        page.locator(f'ul.related a.code:text-is("{TERM}")').click()
        page.wait_for_url(f"**/fterm/{TERM}*")
        assert page.locator("#code").inner_text() == TERM
        assert ("lang=en" in page.url) == (language == "en")

        assert watch.outside == []
        assert watch.console_errors == []
        assert all(url.startswith(server.url + "/") for url in watch.requests)
        assert any(url.endswith("/static/style.css") for url in watch.requests)


def test_japanese_renders_in_a_japanese_font(server: Server) -> None:
    """The CSS names local Japanese fonts; Chromium resolves one of them (IPAex on Debian)."""
    with browser_page(server.url) as (page, watch):
        page.goto(server.url + "/fi/A40Y1/02@A")
        family = page.evaluate("getComputedStyle(document.documentElement).fontFamily")
        for name in ("Hiragino", "Yu Gothic", "Meiryo", "Noto Sans CJK JP", "IPAex"):
            assert name in family
        assert watch.console_errors == []
        assert watch.outside == []
