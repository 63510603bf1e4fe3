"""Hostile input: markup in package texts, path tricks, long and malformed parameters.

Every answer must be an escaped page (or JSON) with the stable error code and the HTTP
status of its category; never a traceback, never markup from the package as markup.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HOSTILE_CODE, HOSTILE_TEXT
from starlette.testclient import TestClient
from web_oracle import shown

from pmgs_web import create_app
from pmgs_web.app import CONTENT_SECURITY_POLICY
from pmgs_web.releases import StoreSet


@pytest.fixture(scope="module")
def hostile(hostile_db: Path) -> TestClient:
    stores = StoreSet.open(hostile_db)
    with TestClient(create_app(stores)) as client:
        yield client  # type: ignore[misc]
    stores.close()


def test_markup_in_package_text_is_shown_as_text(hostile: TestClient) -> None:
    page = hostile.get(f"/fi/{HOSTILE_CODE}")
    assert page.status_code == 200
    assert shown(HOSTILE_TEXT) in page.text
    assert "<script" not in page.text
    assert "<b onclick" not in page.text
    # The child page (its breadcrumb label is not shown) and search excerpts escape it too.
    found = hostile.get("/search?q=太字")
    assert "&lt;script&gt;" in found.text
    assert "<mark>太字</mark>" in found.text
    assert "<script" not in found.text
    parent = hostile.get("/fi/A40Y1/00")
    assert "<script" not in parent.text
    assert "&lt;script&gt;" in parent.text


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/fi/..%2F..%2Fetc%2Fpasswd", 400, "INVALID_CODE"),
        ("/ipc/..%2F..%2F..%2Fetc", 400, "INVALID_CODE"),
        ("/document/..%2F..%2Fetc%2Fpasswd", 404, "DOCUMENT_NOT_FOUND"),
        ("/theme/..%2Fx", 400, "INVALID_CODE"),
        ("/static/..%2F..%2Fapp.py", 404, "NOT_FOUND"),
        ("/fi/" + "A" * 600, 400, "INVALID_ARGUMENT"),
        ("/search?q=" + "x" * 5000, 400, "INVALID_QUERY"),
        ("/search?q=a&order=best", 400, "INVALID_ARGUMENT"),
        ("/search?q=a&classification_offset=-1", 400, "INVALID_OFFSET"),
        ("/search?q=a&classification_offset=99999999999", 400, "INVALID_OFFSET"),
        ("/fi/A40Y?lang=fr", 400, "INVALID_LANGUAGE"),
        ("/ipc/A40Y1/02?edition=9Z", 400, "INVALID_EDITION"),
        ("/?release=JPPM1", 404, "RELEASE_NOT_FOUND"),
        ("/?release=../../x", 404, "RELEASE_NOT_FOUND"),
        ("/document/fterm_explanation:ja:2D673?page=1&section=1", 400, "INVALID_DOCUMENT_SELECTOR"),
        ("/document/fterm_explanation:ja:2D673?page=x", 400, "INVALID_DOCUMENT_SELECTOR"),
        ("/fi/A40Y9/99", 404, "not_found"),
        ("/no/such/page", 404, "NOT_FOUND"),
    ],
)
def test_bad_input_gets_its_code_and_status(
    client: TestClient, path: str, status: int, code: str
) -> None:
    page = client.get(path)
    assert page.status_code == status, page.text[:300]
    assert f'<code class="errcode">{code}</code>' in page.text
    assert "Traceback" not in page.text
    assert 'File "' not in page.text
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    if code != "not_found":
        as_json = client.get(path, headers={"Accept": "application/json"})
        assert as_json.status_code == status
        assert as_json.json()["error"]["code"] == code


def test_markup_in_the_query_is_escaped(client: TestClient) -> None:
    page = client.get('/search?q=<img src=x onerror="alert(1)">')
    assert page.status_code == 200
    assert "<img" not in page.text
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page.text


def test_nothing_writes(client: TestClient) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        answer = client.request(method, "/search?q=a")
        assert answer.status_code == 405
        assert answer.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_every_page_has_the_policy_and_no_outside_reference(client: TestClient) -> None:
    for path in ("/", "/fi/A40Y1/02", "/theme/2D673", "/search?q=制御", "/static/style.css"):
        answer = client.get(path)
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "http://" not in answer.text
        assert "https://" not in answer.text
        assert "<script" not in answer.text


def test_a_closed_store_is_a_503_page_without_traceback(sample_db: Path) -> None:
    stores = StoreSet.open(sample_db)
    with TestClient(create_app(stores)) as client:
        stores.current.close()
        page = client.get("/fi/A40Y1/02")
    assert page.status_code == 503
    assert '<code class="errcode">STORE_CLOSED</code>' in page.text
    assert "Traceback" not in page.text
