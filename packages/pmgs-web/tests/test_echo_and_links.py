"""The viewer's answers to addresses built to abuse its echo and its links (issue 41): a
query of tens of KB gives a small 400 page (the query is not echoed, once or twice), and a path that
starts with two slashes never yields a link starting with ``//`` (a link to another host).
Oracle: the bytes of the answer and every ``href`` in it."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

_HREF = re.compile(r'href="([^"]*)"')


@pytest.mark.parametrize("size", [5_000, 20_000, 60_000])  # the client sends 64 KB at most
def test_an_oversized_query_is_not_echoed(client: TestClient, size: int) -> None:
    page = client.get("/search", params={"q": "x" * size})
    assert page.status_code == 400
    assert len(page.content) < 12_000, len(page.content)
    assert "x" * 1000 not in page.text


def test_a_long_path_is_not_echoed(client: TestClient) -> None:
    page = client.get("/fi/" + "A" * 50_000)
    assert page.status_code == 400
    assert len(page.content) < 12_000, len(page.content)


@pytest.mark.parametrize(
    "path",
    ["//fi/A40Y1/00", "//fi/X?lang=en", "///search?q=a", "//example.org/", "//"],
)
def test_no_link_leaves_the_host(client: TestClient, path: str) -> None:
    page = client.get("http://testserver" + path)
    links = _HREF.findall(page.text)
    assert links, page.text[:500]
    assert not [link for link in links if link.startswith("//") or "://" in link]
