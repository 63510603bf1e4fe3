"""The searcher's workflow of issue 39 in a real headless Chromium, without any script.

search → add a hit → add a code from a code page's list → add an F-term from a grid → the
formula bar shows the three in J-PlatPat syntax → check → the changed code links to its page
and its revision record. The viewer serves a data directory with a base release and its
planned next release (``pmgs_testkit.next_release``), so the plan says which code changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_kit import CHROMIUM, Server, browser_page, viewer_server

from pmgs_testkit import ReleasePlan

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is not installed (apt-get install chromium fonts-ipaexfont)",
)


@pytest.fixture(scope="module")
def server(two_releases: tuple[Path, ReleasePlan]) -> Iterator[Server]:
    with viewer_server(None, "--data-dir", str(two_releases[0])) as running:
        yield running


def _gathered(url: str) -> list[str]:
    values = parse_qs(urlsplit(url).query).get("f")
    return values[0].split() if values else []


def test_search_gather_three_codes_and_check(
    server: Server, two_releases: tuple[Path, ReleasePlan]
) -> None:
    plan = two_releases[1]
    changed = plan.retitled[0].code
    with browser_page(server.url) as (page, watch):
        page.set_default_timeout(10_000)
        page.goto(server.url + "/")
        page.fill("header input[type=search]", plan.retitled[0].new_title.split("：")[-1])
        page.click("header button[type=submit]")
        # 1. a search hit
        hit = page.locator("ol.hits li", has=page.locator(f'a.code:text-is("{changed}")'))
        hit.locator("a.add").click()
        assert _gathered(page.url) == [f"{changed}/FI"]
        # 2. a code of a code page's list (the hit's own page, target view)
        hit.locator("a.code").first.click()
        assert page.locator("h1 #code").inner_text() == changed
        listed = page.locator("ul.tree li:not(.current) a.add").first
        listed_code = listed.locator("xpath=..").locator("a.code").first.inner_text()
        listed.click()
        assert _gathered(page.url) == [f"{changed}/FI", f"{listed_code}/FI"]
        # 3. an F-term of a grid, reached through the links (the formula rides along)
        page.click("header a.site")
        page.locator('main a[href^="/fterm/?"][href*="group="]').first.click()
        page.locator("main table a.code").first.click()
        assert urlsplit(page.url).path.startswith("/theme/")
        cell = page.locator("table.grid td.term a.add").first
        term = cell.get_attribute("aria-label") or ""
        cell.click()
        gathered = _gathered(page.url)
        assert len(gathered) == 3
        term_code = gathered[-1].removesuffix("/FT")
        assert term_code in term
        # the formula in J-PlatPat syntax, written here by hand from the three codes
        expected = f"[{changed}/FI+{listed_code}/FI]*{term_code}/FT"
        assert page.locator("#formula-text").input_value() == expected
        assert page.locator("ul.gathered a.code").all_inner_texts() == [
            changed,
            listed_code,
            term_code,
        ]
        # 4. check in one click, then with --since to see the revision
        page.click("aside.formula button[type=submit]")
        assert urlsplit(page.url).path == "/check"
        assert page.locator("#check-formula").input_value() == expected
        page.fill("#check-since", "2026-04-01")
        page.click("form.checkform button[type=submit]")
        row = page.locator("tr.st-changed")
        assert row.count() == 1
        assert row.locator("a.code").inner_text() == changed
        record = row.locator(".revision a").first
        record_href = record.get_attribute("href") or ""
        assert record_href.startswith("/document/")
        row.locator("a.code").click()
        assert page.locator("h1 #code").inner_text() == changed
        assert plan.retitled[0].new_title in page.locator("h1").inner_text()
        page.go_back()
        page.locator("tr.st-changed .revision a").first.click()
        assert urlsplit(page.url).path == urlsplit(record_href).path
        assert page.locator("h1").count() == 1
        assert watch.outside == []
        assert watch.console_errors == []
