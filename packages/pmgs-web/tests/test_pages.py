"""Every page kind against the database: texts, links and JSON twins checked with SQL."""

from __future__ import annotations

import re
import sqlite3
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient
from web_oracle import (
    children,
    code_title,
    grid_of,
    hrefs,
    linked_codes,
    parent_chain,
    segments,
    shown,
    term_depth,
    texts,
    theme_codes,
    theme_fi_coverage,
)

from pmgs_core import PMGSStore

FI_CODE = "A40Y1/02@A"
THEME = "2D673"
DOCUMENT = "fterm_explanation:ja:4C083"


def with_source(html: str, body: str, file: str, locator: str) -> bool:
    """The text is shown with its source file and locator right beside it."""
    pattern = (
        re.escape(shown(body))
        + r'</span> <span class="src"[^>]*>'
        + re.escape(f"{file} · {locator}")
    )
    return re.search(pattern, html) is not None


def test_home_shows_release_notice_and_entry_points(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    release_id, reference_date = oracle.execute(
        "SELECT release_id, reference_date FROM release"
    ).fetchone()
    page = client.get("/")
    assert page.status_code == 200
    assert f"リリース {release_id}" in page.text
    assert f"<time>{reference_date}</time>" in page.text
    assert "合成データです" in page.text  # the synthetic-data notice
    links = hrefs(page.text)
    sections = [
        r[0]
        for r in oracle.execute(
            "SELECT code FROM concept WHERE scheme='fi' AND kind='section' AND status='canonical'"
        )
    ]
    assert sections
    for section in sections:
        assert f"/fi/{section}" in links
    groups = {
        r[0]
        for r in oracle.execute(
            "SELECT substr(code,1,2) FROM concept WHERE scheme='fterm' AND kind='theme'"
        )
    }
    for group in groups:
        assert f"/fterm/?group={group}" in links
    editions = {
        r[0] for r in oracle.execute("SELECT DISTINCT edition FROM concept WHERE scheme='ipc'")
    }
    for edition in editions:
        assert f"/ipc/?edition={edition}" in links


def test_fi_code_page_texts_breadcrumbs_children_relations(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    page = client.get(f"/fi/{FI_CODE}")
    assert page.status_code == 200
    html = page.text
    expected = texts(oracle, "fi", FI_CODE, "ja")
    assert expected
    for body, file, locator in expected:
        assert with_source(html, body, file, locator)
    crumbs = html.split('class="crumbs"', 1)[1].split("</nav>", 1)[0]
    shown_chain = re.findall(r'class="code" href="[^"]*">([^<]+)</a>', crumbs)
    assert shown_chain == parent_chain(oracle, "fi", FI_CODE)
    # The parent page lists this code among its children, one dot deeper than the parent.
    parent = parent_chain(oracle, "fi", FI_CODE)[-1]
    parent_page = client.get(f"/fi/{parent}").text
    tree = parent_page.split('id="view-target"', 1)[1].split("</ul>", 1)[0]
    listed = re.findall(r'class="code" href="[^"]*">([^<]+)</a>', tree)
    chain = parent_chain(oracle, "fi", parent)
    assert listed[: len(chain) + 1] == [*chain, parent]
    assert sorted(listed[len(chain) + 1 :]) == children(oracle, "fi", parent)
    assert (
        '<span class="dots" aria-hidden="true">・・</span><a class="code" href="/fi/A40Y1/02@A">'
        in tree
    )
    # Relations are links: the concordance to IPC and the F-term theme with its grid.
    links = hrefs(html)
    assert "/ipc/A40Y1/02?edition=8U" in links
    assert "/fterm/2D673" in links
    assert "/theme/2D673" in links


def test_english_switch_and_fallback(client: TestClient, oracle: sqlite3.Connection) -> None:
    english = texts(oracle, "fi", FI_CODE, "en")
    assert english
    page = client.get(f"/fi/{FI_CODE}?lang=en")
    assert page.status_code == 200
    for body, file, locator in english:
        assert with_source(page.text, body, file, locator)
    assert '<html lang="en">' in page.text
    # Links keep the language; the switch leads back to Japanese.
    assert "/fi/A40Y1/02?lang=en" in hrefs(page.text)
    assert f"/fi/{FI_CODE}" in hrefs(page.text)
    # The IPC text of the sample has no English: the Japanese text is shown with a note.
    assert texts(oracle, "ipc", "A40Y1/02", "en", "8U") == []
    ipc = client.get("/ipc/A40Y1/02?edition=8U&lang=en")
    assert "The package has no English text for this code" in ipc.text
    for body, file, locator in texts(oracle, "ipc", "A40Y1/02", "ja", "8U"):
        assert with_source(ipc.text, body, file, locator)


def test_ipc_page_versions_and_validity(client: TestClient, oracle: sqlite3.Connection) -> None:
    rows = oracle.execute(
        "SELECT r.version, r.valid_from FROM revision AS r JOIN concept AS c "
        "ON c.id = r.concept_id WHERE c.scheme='ipc' AND c.edition='8U' AND c.code='A40Y1/02'"
    ).fetchall()
    page = client.get("/ipc/A40Y1/02?edition=8U")
    assert page.status_code == 200
    for version, valid_from in rows:
        assert f"version={quote(version)}" in page.text
        assert f"<td>{valid_from}</td>" in page.text


@pytest.mark.parametrize("theme", ["2D673", "3K991", "4C083", "5N036"])
def test_theme_grid_numbered_columns_bands_and_sub_terms(
    client: TestClient, oracle: sqlite3.Connection, theme: str
) -> None:
    """One band per viewpoint; a term in the line of its tens and the column of its units,
    blanks kept; column headings 0–9; the viewpoint's title in the band's header; a term
    below another term marked with one dot a level below the viewpoint's own terms."""
    page = client.get(f"/theme/{theme}")
    assert page.status_code == 200
    grid = grid_of(page.text)
    assert grid.headings[1:] == [str(d) for d in range(10)]
    canonical = theme_codes(oracle, theme)
    viewpoints = [c for c in canonical if len(c) == 7]
    assert [band["header_href"] for band in grid.bands] == [f"/fterm/{v}" for v in viewpoints]
    for viewpoint, band in zip(viewpoints, grid.bands, strict=True):
        header = str(band["header"])
        assert header.startswith(viewpoint[5:])
        assert code_title(oracle, "fterm", viewpoint) in header
        terms = [c for c in canonical if c.startswith(viewpoint) and c != viewpoint]
        tens = sorted({0} | {int(t[7:]) // 10 for t in terms})
        lines = band["lines"]
        assert isinstance(lines, list)
        assert len(lines) == len(tens)
        expected: dict[tuple[int, int], str] = {
            (tens.index(int(t[7:]) // 10), int(t[7:]) % 10): t for t in terms
        }
        for line_index, line in enumerate(lines):
            assert len(line) == 10  # blanks are kept as cells
            for column, cell in enumerate(line):
                code = expected.get((line_index, column))
                if code is None:
                    assert cell["href"] is None
                    assert "empty" in cell["class"]
                    continue
                assert cell["href"] == f"/fterm/{code}"
                depth = term_depth(oracle, code)
                assert (cell["sub"] or "") == "・" * (depth - 1), code
                assert ("lower" in cell["class"]) == (depth > 1)
    if theme == THEME:
        assert any(term_depth(oracle, c) > 1 for c in canonical if len(c) == 9)


@pytest.mark.parametrize("theme", ["2D673", "4C083"])
def test_theme_coverage_with_titles_comes_before_the_grid(
    client: TestClient, oracle: sqlite3.Connection, theme: str
) -> None:
    html = client.get(f"/theme/{theme}").text
    coverage = theme_fi_coverage(oracle, theme)
    assert coverage
    box = html.split('class="coverage-box"', 1)[1].split("</section>", 1)[0]
    assert html.index('class="coverage-box"') < html.index('class="grid"')
    for code in coverage:
        href = f"/fi/{quote(code, safe='/@,')}"
        assert f'<a class="code" href="{href}">{code}</a> <span class="label">' in box
        assert shown(code_title(oracle, "fi", code)) in box
    links = hrefs(html)
    documents = oracle.execute(
        "SELECT d.document_key FROM document_link AS l JOIN document AS d "
        "ON d.id = l.document_id JOIN concept AS c ON c.id = l.concept_id "
        "WHERE c.scheme = 'fterm' AND c.code = ?",
        (theme,),
    ).fetchall()
    for (key,) in documents:
        assert f"/document/{key}" in links
    heading = html.split("<h1>", 1)[1].split("</h1>", 1)[0]
    assert shown(code_title(oracle, "fterm", theme)) in heading


def test_document_page_segments_paging_and_codes(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    expected = segments(oracle, DOCUMENT)
    page = client.get(f"/document/{DOCUMENT}")
    assert page.status_code == 200
    for section, body, locator in expected:
        assert f'id="s{section}"' in page.text
        assert shown(body) in page.text
        assert f"· {locator}</span>" in page.text
    links = hrefs(page.text)
    for scheme, code in linked_codes(oracle, DOCUMENT):
        assert f"/{scheme}/{quote(code, safe='/@,')}" in links
    later = client.get(f"/document/{DOCUMENT}?segment_offset=5")
    assert [s for s, _b, _l in expected if f'id="s{s}"' in later.text] == [6, 7]
    assert f"/document/{DOCUMENT}?segment_offset=0" in hrefs(later.text)


def test_search_groups_marks_and_pages(client: TestClient, store: PMGSStore) -> None:
    page = client.get("/search?q=制御")
    assert page.status_code == 200
    record = store.search_pmgs("制御", limit=20)
    first = record["results_by_type"]["classification"]["results"][0]
    assert f"/{first['scheme']}/{quote(first['code'], safe='/@,')}" in hrefs(page.text)
    assert "<mark>制御</mark>" in page.text
    assert "分類" in page.text
    assert "文書" in page.text
    assert page.text.count("<mark>") >= record["results_by_type"]["classification"]["count"]


def test_search_any_word_and_relevance_are_the_store_s(
    client: TestClient, store: PMGSStore
) -> None:
    query = "制御 存在しない語句"
    # No text holds both words: the viewer shows the any-word search of them (ADR 0033).
    fallen = client.get(f"/search.json?q={query}").json()
    assert fallen == store.search_pmgs(query, fallback=True)
    assert fallen["fallback"]["words"] == ["制御", "存在", "語句"]  # しない: an auxiliary
    assert "該当なし" in client.get("/search?q=存在しない語句").text
    ranked = store.search_pmgs(query, order="relevance", match="any")
    assert ranked["results_by_type"]["classification"]["results"]
    answer = client.get(f"/search.json?q={query}&order=relevance&match=any").json()
    assert answer == ranked


@pytest.mark.parametrize("query", ["制", "制御", "a", "ab", "A4"])
def test_short_queries_answer_as_the_api(client: TestClient, store: PMGSStore, query: str) -> None:
    answer = client.get("/search.json", params={"q": query}).json()
    assert answer == store.search_pmgs(query, fallback=True)


@pytest.mark.parametrize(
    ("path", "call"),
    [
        ("/index.json", lambda s: s.release_info()),
        (f"/fi/{FI_CODE}.json", lambda s: s.lookup("fi", FI_CODE, relation_limit=50)),
        (
            "/ipc/A40Y1/02.json?edition=8U&lang=en",
            lambda s: s.lookup("ipc", "A40Y1/02", edition="8U", language="en"),
        ),
        (
            f"/theme/{THEME}.json",
            lambda s: s.hierarchy("descendants", "fterm", THEME, limit=200),
        ),
        (f"/document/{DOCUMENT}.json", lambda s: s.get_document(DOCUMENT, segment_limit=20)),
        ("/quarantine.json", lambda s: s.list_quarantine(limit=50)),
        ("/fterm/.json", lambda s: s.categories()),
        ("/fi/A40Y9/99.json", lambda s: s.lookup("fi", "A40Y9/99")),
    ],
)
def test_json_twin_is_the_api_record(
    client: TestClient, store: PMGSStore, path: str, call: object
) -> None:
    assert callable(call)
    answer = client.get(path)
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == call(store)
    by_accept = client.get(path.replace(".json", ""), headers={"Accept": "application/json"})
    assert by_accept.json() == answer.json()


def test_not_found_code_is_a_404_page(client: TestClient) -> None:
    page = client.get("/fi/A40Y9/99")
    assert page.status_code == 404
    assert '<code class="errcode">not_found</code>' in page.text


def test_releases_list_and_older_release(data_dir: object) -> None:
    from pathlib import Path

    from conftest import OLD_RELEASE

    from pmgs_web import create_app
    from pmgs_web.releases import StoreSet

    assert isinstance(data_dir, Path)
    stores = StoreSet.open(data_dir=data_dir)
    try:
        with TestClient(create_app(stores)) as client:
            listing = client.get("/releases")
            assert listing.status_code == 200
            assert f"/?release={OLD_RELEASE}" in hrefs(listing.text)
            assert "JPPM2026002</a> (現在)" in listing.text
            older = client.get(f"/?release={OLD_RELEASE}")
            assert f"リリース {OLD_RELEASE}" in older.text
            # Links of an older release's page keep the release.
            assert any(f"release={OLD_RELEASE}" in h for h in hrefs(older.text) if "/fi/" in h)
            listed = client.get("/releases.json").json()
            assert [i["release_id"] for i in listed] == ["JPPM2026002", OLD_RELEASE]
            old_db = next((data_dir / "data" / "releases" / OLD_RELEASE).glob("*/*.sqlite"))
            with PMGSStore.open(old_db) as old_store:
                assert listed[1] == old_store.release_info()
            info = client.get(f"/index.json?release={OLD_RELEASE}").json()
            assert info["release_id"] == OLD_RELEASE
            missing = client.get("/?release=JPPM1999001")
            assert missing.status_code == 404
            assert "RELEASE_NOT_FOUND" in missing.text
    finally:
        stores.close()


def test_quarantine_page_counts_as_sql(client: TestClient, oracle: sqlite3.Connection) -> None:
    total = oracle.execute("SELECT count(*) FROM quarantine").fetchone()[0]
    page = client.get("/quarantine")
    assert page.status_code == 200
    assert f'<span class="count">{total}</span>' in page.text


def test_scheme_indexes(client: TestClient, oracle: sqlite3.Connection) -> None:
    themes = [
        r[0]
        for r in oracle.execute(
            "SELECT code FROM concept WHERE scheme='fterm' AND kind='theme' AND code LIKE '2D%'"
        )
    ]
    page = client.get("/fterm/?group=2D")
    assert sorted(
        h.removeprefix("/theme/") for h in hrefs(page.text) if h.startswith("/theme/")
    ) == sorted(themes)
    sections = oracle.execute(
        "SELECT code FROM concept WHERE scheme='ipc' AND edition='8U' AND kind='section'"
    ).fetchall()
    ipc = client.get("/ipc/?edition=8U")
    for (code,) in sections:
        assert f"/ipc/{code}?edition=8U" in hrefs(ipc.text)


def test_a_code_typed_in_the_search_box_opens_it(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    schemes = sorted(
        r[0] for r in oracle.execute("SELECT DISTINCT scheme FROM concept WHERE code='G06F3/048'")
    )
    assert "fi" in schemes
    for typed in ("G06F3/048", "G06F 3/048", "G06F   3/   048", "Ｇ０６Ｆ３／０４８"):
        page = client.get("/search", params={"q": typed}, follow_redirects=False)
        assert page.status_code == 303, typed
        assert page.headers["location"] == "/fi/G06F3/048"  # FI first of the schemes
    if "ipc" in schemes:
        ipc = client.get("/search?q=G06F3/048&scheme=ipc", follow_redirects=False)
        assert ipc.headers["location"].startswith("/ipc/G06F3/048")
    answer = client.get("/search.json?q=G06F 3/048").json()
    assert sorted(m["scheme"] for m in answer["code_matches"]) == schemes
    assert client.get("/search?q=制御", follow_redirects=False).status_code == 200


def test_viewer_paths_of_cited_codes_answer(client: TestClient) -> None:
    from pmgs_web import code_path, document_path

    assert code_path("ipc", "G06F3/048") == "/ipc/G06F3/048"
    assert code_path("fi", "B60J5/00,501@B") == "/fi/B60J5/00,501@B"
    assert document_path("fi_handbook:ja:A40Y1/02@A") == "/document/fi_handbook:ja:A40Y1/02@A"
    for path in (
        code_path("fi", FI_CODE),
        code_path("fterm", "2D673AA01"),
        document_path(DOCUMENT),
    ):
        assert client.get(path).status_code == 200
