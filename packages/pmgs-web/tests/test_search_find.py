"""The viewer's search does not dead-end (issue 39, ADR 0033).

On a reference at :data:`pmgs_testkit.phrases.PHRASE_SCALE`: the 20 hand-written phrases show
the fallback message naming their words and link to the code whose title they paraphrase
on page one; an English word on the Japanese page links to the English results, counted; a
code in any notation opens its page; the totals per scheme are the store's counts and each
links to its filter; each hit shows its parent or theme titles; no engine name is shown.
"""

from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest
from starlette.testclient import TestClient

from pmgs_core import PMGSStore
from pmgs_testkit.kit import ReferenceDatabase
from pmgs_testkit.phrases import PHRASE_SCALE, PHRASES, phrase_targets
from pmgs_testkit.pytest_plugin import ReferenceFactory
from pmgs_web import create_app
from pmgs_web.releases import StoreSet

ENGINE_WORDS = ("sqlite", "fts5", "trigram", "bigram", "bm25", "substring", "lexical", "sudachi")


@pytest.fixture(scope="module")
def phrase_db(pmgs_reference_factory: ReferenceFactory) -> ReferenceDatabase:
    return pmgs_reference_factory(PHRASE_SCALE, 7)


@pytest.fixture(scope="module")
def phrase_client(phrase_db: ReferenceDatabase) -> Iterator[TestClient]:
    stores = StoreSet.open(phrase_db.db)
    with TestClient(create_app(stores)) as client:
        yield client
    stores.close()


@pytest.fixture(scope="module")
def phrase_store(phrase_db: ReferenceDatabase) -> Iterator[PMGSStore]:
    with PMGSStore.open(phrase_db.db) as store:
        yield store


def _hrefs(text: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]*)"', text)]


def _visible(text: str) -> str:
    """The page's text without tags, attributes or the stylesheet link."""
    return html.unescape(re.sub(r"<[^>]*>", " ", text))


@pytest.mark.parametrize(("phrase", "title", "words"), PHRASES, ids=[p[0] for p in PHRASES])
def test_phrase_shows_its_words_and_the_code(
    phrase_client: TestClient,
    phrase_db: ReferenceDatabase,
    phrase: str,
    title: str,
    words: tuple[str, ...],
) -> None:
    page = phrase_client.get("/search", params={"q": phrase})
    assert page.status_code == 200
    fallback = page.text.split('class="fallback"', 1)[1].split("</p>", 1)[0]
    assert f'<span class="query">{phrase}</span>' in fallback
    shown = re.findall(r'<span class="term">([^<]*)</span>', fallback)
    assert shown == list(words)
    hrefs = _hrefs(page.text)
    linked = {
        (scheme, code)
        for scheme, code in phrase_targets(phrase_db.db, title)
        if any(h.split("?")[0] == f"/{scheme}/{quote(code, safe='/@,')}" for h in hrefs)
    }
    assert linked, (phrase, title)
    visible = _visible(page.text).lower()
    assert not [word for word in ENGINE_WORDS if word in visible]


def test_nothing_in_japanese_links_to_the_english_results(
    phrase_client: TestClient, phrase_store: PMGSStore
) -> None:
    page = phrase_client.get("/search?q=control")
    note = page.text.split('class="other-language"', 1)[1].split("</p>", 1)[0]
    english = phrase_store.search_pmgs("control", language="en", limit=20)["results_by_type"]
    count = len(english["classification"]["results"])
    assert f"分類 {count}" in note
    (link,) = _hrefs(note)
    assert link == "/search?q=control&lang=en"
    followed = phrase_client.get(link)
    assert 'class="other-language"' not in followed.text
    first = english["classification"]["results"][0]
    assert f"/{first['scheme']}/{quote(first['code'], safe='/@,')}" in " ".join(
        _hrefs(followed.text)
    )


def test_a_code_in_any_notation_opens_its_page(
    phrase_client: TestClient, phrase_db: ReferenceDatabase
) -> None:
    connection = sqlite3.connect(phrase_db.db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        (term,) = connection.execute(
            "SELECT code FROM concept WHERE scheme = 'fterm' AND status = 'canonical' "
            "AND length(code) = 9 ORDER BY id LIMIT 1"
        ).fetchone()
    finally:
        connection.close()
    for typed, target in (
        ("G06F 3/048", "/fi/G06F3/048"),
        ("G06F3/048", "/fi/G06F3/048"),
        (term, f"/fterm/{term}"),
        (f"{term[:5]} {term[5:]}", f"/fterm/{term}"),
    ):
        answer = phrase_client.get("/search", params={"q": typed}, follow_redirects=False)
        assert answer.status_code == 303, typed
        assert urlsplit(answer.headers["location"]).path == target
        assert phrase_client.get(answer.headers["location"]).status_code == 200
    english = phrase_client.get("/search?q=G06F3/048&lang=en", follow_redirects=False)
    assert english.headers["location"] == "/fi/G06F3/048?lang=en"


def test_totals_per_scheme_and_filters(phrase_client: TestClient, phrase_store: PMGSStore) -> None:
    query = "制御"
    page = phrase_client.get("/search", params={"q": query})
    totals = page.text.split('class="totals"', 1)[1].split("</p>", 1)[0]
    names = {"fi": "FI", "fterm": "Fターム", "ipc": "IPC"}
    for scheme, name in names.items():
        counted = phrase_store.search(query, [scheme], limit=200)
        shown = f"{name} {counted['count']}" + ("+" if counted["has_more"] else "")
        assert shown in _visible(totals), (scheme, totals)
        link = f"/search?q={quote(query)}&scheme={scheme}"
        assert link in _hrefs(totals)
        filtered = phrase_client.get(link)
        hits = filtered.text.split('<ol class="hits"', 1)[1].split("</ol>", 1)[0]
        schemes = set(re.findall(r'href="/(fi|fterm|ipc)/', hits.split('class="context"')[0]))
        assert schemes == {scheme}
        assert f"<strong>{name}" in filtered.text


def test_each_hit_shows_its_parent_or_theme_title(
    phrase_client: TestClient, phrase_store: PMGSStore
) -> None:
    record = phrase_store.search_pmgs("制御", limit=20)["results_by_type"]["classification"]
    with_context = [hit for hit in record["results"] if hit.get("context")]
    assert with_context
    page = phrase_client.get("/search?q=制御")
    visible = _visible(page.text)
    for hit in with_context:
        for entry in hit["context"]:
            assert entry["code"] in visible
            if entry["title"]:
                assert entry["title"] in visible
    assert not [word for word in ENGINE_WORDS if word in visible.lower()]
