"""What a searcher used to J-PlatPat looks for on a code page and a document (issue 40),
against SQL: the title in the heading, titled breadcrumbs, the three FI views with their
F / CC / HB markers, counts that match the rows, no empty or unexplained section, documents
text-first with their codes linked, one numbered pager, and pages in one language."""

from __future__ import annotations

import re
import sqlite3
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient
from web_oracle import (
    children,
    code_title,
    concept_id,
    hrefs,
    markers,
    parent_chain,
    shown,
    without_tags,
)

from pmgs_core import EVIDENCE_NOTICE, PMGSStore
from pmgs_web.app import _environment
from pmgs_web.doclinks import linked_pieces
from pmgs_web.links import Linker
from pmgs_web.view import PageRequest

FI_CODE = "A40Y1/02@A"


def _between(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def _listed(html: str, view: str) -> list[tuple[str, int, list[str], bool]]:
    """(code, dots, markers, is this code) of each entry of a view's list."""
    tree = _between(html, f'id="view-{view}"', "</ul>")
    entries = []
    for item in re.findall(r"<li( class=\"current\")?>(.*?)</li>", tree, re.S):
        current, body = item
        code = re.search(r'class="code" href="[^"]*">([^<]+)</a>', body)
        dots = re.search(r'<span class="dots" aria-hidden="true">([・]*)</span>', body)
        assert code is not None
        assert dots is not None
        entries.append(
            (
                code.group(1),
                len(dots.group(1)),
                re.findall(r">(F|CC|HB)</abbr>", body),
                bool(current),
            )
        )
    return entries


def _descendants(conn: sqlite3.Connection, code: str) -> list[tuple[str, int]]:
    """Canonical codes below ``code`` with their depth below it (SQL, breadth by parents)."""
    found: list[tuple[str, int]] = []
    level = [code]
    depth = 1
    while level:
        below = []
        for parent in level:
            below.extend(children(conn, "fi", parent))
        found.extend((c, depth) for c in below)
        level = below
        depth += 1
    return found


@pytest.mark.parametrize(
    ("scheme", "code", "edition"),
    [("fi", FI_CODE, ""), ("fterm", "2D673AA02", ""), ("ipc", "A40Y1/02", "4")],
)
def test_h1_holds_the_title_and_breadcrumbs_their_titles(
    client: TestClient, oracle: sqlite3.Connection, scheme: str, code: str, edition: str
) -> None:
    suffix = f"?edition={edition}" if edition else ""
    html = client.get(f"/{scheme}/{code}{suffix}").text
    heading = _between(html, "<h1>", "</h1>")
    assert f'id="code">{code}</span>' in heading
    assert shown(code_title(oracle, scheme, code, edition)) in heading
    crumbs = _between(html, 'class="crumbs"', "</nav>")
    for parent in parent_chain(oracle, scheme, code, edition):
        title = code_title(oracle, scheme, parent, edition)
        pattern = re.escape(f">{parent}</a>") + r" <span class=\"label\">" + re.escape(shown(title))
        assert re.search(pattern, crumbs), parent


def test_target_view_ancestors_code_and_one_level_down(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    code = "A40Y1/02"
    listed = _listed(client.get(f"/fi/{code}").text, "target")
    chain = parent_chain(oracle, "fi", code)
    assert [e[0] for e in listed[: len(chain) + 1]] == [*chain, code]
    assert [e[3] for e in listed] == [e[0] == code for e in listed]
    below = listed[len(chain) + 1 :]
    assert sorted(e[0] for e in below) == children(oracle, "fi", code)
    assert {e[1] for e in below} == {listed[len(chain)][1] + 1}
    for entry in listed:
        assert entry[2] == markers(oracle, "fi", entry[0]), entry


def test_same_level_view_lists_the_siblings(client: TestClient, oracle: sqlite3.Connection) -> None:
    listed = _listed(client.get(f"/fi/{FI_CODE}?view=same").text, "same")
    parent = parent_chain(oracle, "fi", FI_CODE)[-1]
    assert sorted(e[0] for e in listed) == children(oracle, "fi", parent)
    assert [e[0] for e in listed if e[3]] == [FI_CODE]
    for entry in listed:
        assert entry[2] == markers(oracle, "fi", entry[0]), entry


def test_group_view_is_the_main_group_with_depths(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    main_group = parent_chain(oracle, "fi", FI_CODE)[3]
    assert oracle.execute(
        "SELECT kind FROM concept WHERE scheme = 'fi' AND code = ?", (main_group,)
    ).fetchone() == ("main_group",)
    listed = _listed(client.get(f"/fi/{FI_CODE}?view=group").text, "group")
    expected = [(main_group, 0), *_descendants(oracle, main_group)]
    assert sorted((e[0], e[1]) for e in listed) == sorted(expected)
    assert listed[0][:2] == (main_group, 0)
    assert [e[0] for e in listed if e[3]] == [FI_CODE]
    for entry in listed:
        assert entry[2] == markers(oracle, "fi", entry[0]), entry
    # Every marker kind is seen in the sample's group, so a missing one would show.
    assert {m for e in listed for m in e[2]} == {"F", "CC", "HB"}


def test_relation_count_matches_the_rows(client: TestClient, oracle: sqlite3.Connection) -> None:
    for path, scheme, code, edition in [
        (f"/fi/{FI_CODE}", "fi", FI_CODE, ""),
        ("/fi/A40Y1/02", "fi", "A40Y1/02", ""),
        ("/ipc/A40Y1/02?edition=8U", "ipc", "A40Y1/02", "8U"),
    ]:
        html = client.get(path).text
        section = _between(html, "関連する分類", "</section>")
        count = int(_between(section, '<span class="count">', "</span>"))
        rows = _between(section, "<tbody>", "</tbody>").count("<tr>")
        concept = concept_id(oracle, scheme, code, edition)
        (expected,) = oracle.execute(
            "SELECT count(*) FROM relation WHERE kind != 'parent' AND "
            "(from_concept_id = ? OR (to_concept_id = ? AND kind != 'theme'))",
            (concept, concept),
        ).fetchone()
        assert count == rows == expected, path


def test_older_ipc_edition_has_no_empty_table_nor_bare_flag(client: TestClient) -> None:
    html = client.get("/ipc/A40Y1/02?edition=4").text
    assert "IPC バージョン" not in html
    assert "<table" not in html.split('class="raw-flags"', 1)[0].split("関連する分類", 1)[0]
    outside_details = re.sub(r"<details.*?</details>", "", html, flags=re.S)
    assert ">flag<" not in outside_details
    folded = _between(html, '<details class="raw-flags">', "</details>")
    assert "<code>flag</code>" in folded
    assert "原資料の列の値をそのまま表示" in folded


def test_empty_sections_are_hidden(client: TestClient, oracle: sqlite3.Connection) -> None:
    code = "A40Y1/02"
    concept = concept_id(oracle, "fi", code)
    assert oracle.execute(
        "SELECT count(*) FROM document_link WHERE concept_id = ?", (concept,)
    ).fetchone() == (0,)
    html = client.get(f"/fi/{code}").text
    assert "<h2>文書" not in html
    assert "<h2>ハンドブック・解説" not in html
    for heading in re.findall(r"<h2[^>]*>(.*?)</h2>", html, re.S):
        assert without_tags(heading).strip()


def test_document_text_first_codes_linked_one_pager(
    client: TestClient, oracle: sqlite3.Connection
) -> None:
    document = "fterm_explanation:ja:4C083"
    html = client.get(f"/document/{document}?segment_offset=5").text
    assert html.index('class="segment"') < html.index('class="related-box"')
    assert '<details class="related-box">' in html
    assert html.count('class="pager"') == 1
    pager = _between(html, 'class="pager"', "</nav>")
    assert f"/document/{document}?segment_offset=0" in hrefs(pager)
    # A heading naming a code of the release is a link to it.
    first = client.get(f"/document/{document}").text
    heading = _between(first, 'id="s2">', "</h3>")
    code = without_tags(heading).split("·")[-1].strip()
    assert oracle.execute(
        "SELECT count(*) FROM concept WHERE scheme = 'fterm' AND code = ?", (code,)
    ).fetchone() == (1,)
    assert f'<a class="code" href="/fterm/{code}">{code}</a>' in heading


def test_codes_in_text_are_linked_only_where_they_are_codes(store: PMGSStore) -> None:
    links = Linker("", "/document/x", {}, "ja")
    req = PageRequest(store, "current", "ja", {}, links)
    text = "見よ 2D673AA01、9Z999AA01、X2D673AA01 と A40Y1/02@A と G99Z1/00。"
    (pieces,) = linked_pieces(req, [text])
    assert "".join(p["text"] for p in pieces) == text
    linked = {p["text"]: p["href"] for p in pieces if p["href"]}
    assert linked == {
        "2D673AA01": "/fterm/2D673AA01",
        "A40Y1/02@A": f"/fi/{quote('A40Y1/02@A', safe='/@')}",
    }


def test_numbered_pager_names_every_page() -> None:
    macros = _environment().get_template("_macros.html").module
    links = Linker("", "/document/d", {"segment_offset": "20"}, "ja")
    html = str(
        macros.numbered_pager(  # type: ignore[attr-defined]
            links,
            lambda key: {"page_n": "{n} ページ目"}.get(key, key),
            "segment_offset",
            20,
            20,
            70,
        )
    )
    assert re.findall(r'href="/document/d\?segment_offset=(\d+)"[^>]*>(\d+)<', html) == [
        ("0", "1"),
        ("40", "3"),
        ("60", "4"),
    ]
    assert '<span class="here" aria-current="page">2</span>' in html
    assert 'rel="prev" href="/document/d?segment_offset=0"' in html
    assert 'rel="next" href="/document/d?segment_offset=40"' in html


ENGINE_WORDS = (
    "subgroup",
    "canonical",
    "exact",
    "concordance",
    "outgoing",
    "incoming",
    "search_mode",
    "FTERM ·",
    "fterm_explanation ·",
    "subject",
    "mentions",
)
JA_PAGES = (
    "/",
    f"/fi/{FI_CODE}",
    "/fi/A40Y1/02",
    "/ipc/A40Y1/02?edition=8U",
    "/fterm/2D673AA02",
    "/theme/4C083",
    "/document/fterm_explanation:ja:4C083",
    "/search?q=制御",
    "/no/such/page",
    "/fi/A40Y1/02@A?f=A40Y1/02@A/FI+4C083AA01/FT",
    "/check?f=A40Y1/02@A/FI+4C083AA01/FT&since=2026-01-01",
    "/check?formula=A40Y1/02@A/FI+%2B+G06F3/048+%2B+A40Y9/99/FI",
    "/check?formula=G06F3/048/FI+%2B+(",
    "/diff",
)


@pytest.mark.parametrize("path", JA_PAGES)
def test_japanese_pages_speak_japanese(client: TestClient, path: str) -> None:
    html = client.get(path).text
    # Paths, sources, code and attribute names are not what a reader reads.
    readable = without_tags(re.sub(r'<(span class="src"|code|details).*?</\1\W*>', "", html))
    readable = readable.replace("Synthetic test data generated by pmgs; not JPO data.", "")
    for word in ENGINE_WORDS:
        assert word not in readable, word
    assert EVIDENCE_NOTICE not in html
    assert "特許庁の PMGS パッケージから引用" in html


@pytest.mark.parametrize("path", JA_PAGES)
def test_the_english_page_speaks_english(client: TestClient, path: str) -> None:
    sep = "&" if "?" in path else "?"
    html = client.get(path.replace(":ja:", ":en:") + f"{sep}lang=en").text
    assert '<html lang="en">' in html
    for label in ("説明文", "関連する分類", "ターゲット表示", "本文へ移動", "引用", "ホーム"):
        assert label not in html, label
    assert "quoted from the JPO PMGS package" in html
    assert EVIDENCE_NOTICE not in html


def test_the_agent_notice_stays_in_the_json(client: TestClient) -> None:
    assert client.get(f"/fi/{FI_CODE}.json").json()["notice"] == EVIDENCE_NOTICE


def test_error_pages_in_the_page_language_and_home_without_a_bad_release(
    client: TestClient,
) -> None:
    bad = client.get("/?release=JPPM1")
    assert bad.status_code == 404
    assert "指定のリリースは導入されていません" in bad.text
    assert all("release=" not in href for href in hrefs(bad.text))
    assert 'name="release"' not in bad.text
    english = client.get("/no/such/page?lang=en")
    assert "There is no page at this address." in english.text
    japanese = client.get("/no/such/page")
    assert "このアドレスのページはありません。" in japanese.text
    assert "no page at this address" not in japanese.text


def test_favicon_is_served_locally(client: TestClient) -> None:
    html = client.get("/").text
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    for path in ("/static/favicon.svg", "/favicon.ico"):
        icon = client.get(path)
        assert icon.status_code == 200
        assert icon.headers["content-type"].startswith("image/svg+xml")
        assert icon.text.startswith("<svg")
        assert "Content-Security-Policy" in icon.headers


def test_skip_link_targets_the_main_content(client: TestClient) -> None:
    html = client.get(f"/fi/{FI_CODE}").text
    body = html.split("<body", 1)[1]
    assert re.search(r'^[^>]*>\s*<a class="skip" href="#main">本文へ移動</a>', body)
    assert '<main id="main"' in html
