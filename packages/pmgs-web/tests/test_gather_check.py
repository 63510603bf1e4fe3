"""Issue 39 in the viewer: codes gathered into a formula (``f``), ``/check`` and ``/diff``.

The gathered codes ride in one GET parameter, so every internal link and form of every page
must carry it (read from the HTML, not trusted); the formula is compared with strings
written by hand; ``/check`` is compared with ``pmgs check --json`` run as a process on the
same formula, and ``/diff`` with the release plan of ``pmgs_testkit.next_release``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient
from web_oracle import without_tags

from pmgs_core import code_viewer_path
from pmgs_testkit import ReleasePlan
from pmgs_web.gather import MAX_GATHERED, formula_text, parse_gathered

GATHERED = [("fi", "A40Y1/02@A"), ("fterm", "4C083AA01"), ("fi", "A40Y1/02"), ("ipc", "A40Y1/02")]
F_VALUE = "A40Y1/02@A/FI 4C083AA01/FT A40Y1/02/FI A40Y1/02/IP"
FORMULA = "[A40Y1/02@A/FI+A40Y1/02/FI]*4C083AA01/FT*A40Y1/02/IP"
"""The J-PlatPat formula of GATHERED, written by hand: FI, F-term, IPC; ``+`` within a scheme,
``*`` between schemes, a group of more than one code bracketed."""

PAGES = [
    "/",
    "/search?q=A40Y1/02",
    "/search?q=制御",
    "/fi/A40Y1/02@A",
    "/fi/A40Y1/02@A?view=group",
    "/fi/A40Y1/02@A?view=same",
    "/fterm/2D673AA02",
    "/ipc/A40Y1/02?edition=8U",
    "/theme/4C083",
    "/document/fterm_explanation:ja:4C083",
    "/fi/",
    "/fterm/?group=2D",
    "/releases",
    "/quarantine",
    "/check",
    "/diff",
    "/no/such/page",
]


class _Links(HTMLParser):
    """Every ``<a href>`` (with its class) and every form (action and hidden inputs)."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[tuple[str, str]] = []
        self.forms: list[tuple[str, dict[str, str]]] = []
        self.textareas: dict[str, str] = {}
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "a" and "href" in values:
            self.anchors.append((values["href"], values.get("class", "")))
        elif tag == "form":
            self.forms.append((values.get("action", ""), {}))
        elif tag == "input" and values.get("type") == "hidden" and self.forms:
            self.forms[-1][1][values["name"]] = values.get("value", "")
        elif tag == "textarea":
            self._textarea = values.get("id", "")
            self.textareas[self._textarea] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self.textareas[self._textarea] += data


def _parsed(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def _f_of(href: str) -> str | None:
    values = parse_qs(urlsplit(href).query).get("f")
    return values[0] if values else None


def test_the_formula_of_gathered_codes_is_written_in_jplatpat_syntax() -> None:
    assert formula_text(GATHERED) == FORMULA
    assert formula_text([("fi", "G06F3/048"), ("fi", "G06F3/0482")]) == "G06F3/048/FI+G06F3/0482/FI"
    assert formula_text([("fterm", "2D673AA01"), ("fi", "G06F3/048")]) == (
        "G06F3/048/FI*2D673AA01/FT"
    )
    assert formula_text([]) == ""
    assert parse_gathered(F_VALUE) == GATHERED


def test_every_page_shows_the_formula_and_every_internal_link_keeps_it(client: TestClient) -> None:
    for path in PAGES:
        sep = "&" if "?" in path else "?"
        response = client.get(f"{path}{sep}f={F_VALUE}")
        assert response.status_code in {200, 404}, path
        found = _parsed(response.text)
        if path != "/check":  # the check page is the formula's own form
            assert found.textareas.get("formula-text") == FORMULA, path
        internal = [(h, c) for h, c in found.anchors if h.startswith("/")]
        assert internal, path
        for href, css in internal:
            kept = _f_of(href)
            if {"add", "drop", "drop-all"} & set(css.split()):
                # a control that changes the formula: by exactly one code (or all), into
                # an f the next page reads back (a code with "," or "@" included)
                changed = set(parse_gathered(kept))
                assert len(changed ^ set(GATHERED)) == (len(GATHERED) if css == "drop-all" else 1)
                continue
            assert kept == F_VALUE, (path, href)
        for action, hidden in found.forms:
            assert action.startswith("/"), (path, action)
            assert hidden.get("f") == F_VALUE, (path, action)


def test_add_and_remove_controls_change_exactly_one_code(client: TestClient) -> None:
    start = "A40Y1/02@A/FI"
    found = _parsed(client.get(f"/theme/4C083?f={start}").text)
    adds = [h for h, c in found.anchors if c == "add" and (_f_of(h) or "").endswith("/FT")]
    assert adds
    first = adds[0]
    assert _f_of(first) == f"{start} {_f_of(first).split()[-1]}"  # type: ignore[union-attr]
    added = parse_gathered(_f_of(first))[-1]
    assert added[0] == "fterm"
    after = client.get(first)
    assert after.status_code == 200
    shown = _parsed(after.text)
    assert shown.textareas["formula-text"] == f"{start}*{added[1]}/FT"
    drops = {h for h, c in shown.anchors if c == "drop"}
    assert {_f_of(h) for h in drops} == {start, f"{added[1]}/FT"}
    # the grid cell of the added code now offers to take it out
    assert any(c == "add in" and _f_of(h) == start for h, c in shown.anchors)


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (" ".join(f"A40Y1/{n:02d}/FI" for n in range(MAX_GATHERED + 1)), "TOO_MANY_ITEMS"),
        ("G06F3/048/XX", "INVALID_ARGUMENT"),
        ("<b>/FI", "INVALID_ARGUMENT"),
    ],
)
def test_a_bad_or_too_long_formula_is_an_error_whose_links_drop_it(
    client: TestClient, value: str, code: str
) -> None:
    response = client.get("/fi/A40Y1/02@A", params={"f": value})
    assert response.status_code == 400
    assert f'<code class="errcode">{code}</code>' in response.text
    found = _parsed(response.text)
    assert all(_f_of(h) is None for h, _ in found.anchors)
    assert client.get("/fi/A40Y1/02@A.json", params={"f": value}).json()["error"]["code"] == code


def test_a_full_formula_offers_no_more_additions(client: TestClient) -> None:
    value = " ".join(f"A40Y1/{n:02d}/FI" for n in range(MAX_GATHERED))
    found = _parsed(client.get("/theme/4C083", params={"f": value}).text)
    assert not [h for h, c in found.anchors if c == "add"]


# --- /check against `pmgs check` -----------------------------------------------------------


def _formula(plan: ReleasePlan) -> str:
    chained = next(a.code for a in plan.abolished if len(a.targets) > 1)
    retitled = plan.retitled[0].code
    return (
        f"[{chained}/FI + {plan.abolished[0].code}/FI] * {retitled}/FI"
        f" - ({plan.abolished_theme}AA01/FT + {plan.added[0].parent}/FI) + G06F3/048"
        " + NOT_A_CODE/FI"
    )


def _cli_statuses(data: Path, formula: str, tmp_path: Path) -> list[tuple[str, str]]:
    source = tmp_path / "formula.txt"
    source.write_text(formula, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pmgs_cli",
            "check",
            str(source),
            "--data-dir",
            str(data),
            "--since",
            "2026-04-01",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in {1, 2}, result.stderr
    record = json.loads(result.stdout)
    return [(item["text"], item["status"]) for item in record["items"]]


def _page_statuses(html: str) -> list[str]:
    return [chunk.split('"', 1)[0] for chunk in html.split('<tr class="st-')[1:]]


def test_check_page_statuses_equal_pmgs_check(
    releases_client: TestClient, two_releases: tuple[Path, ReleasePlan], tmp_path: Path
) -> None:
    data, plan = two_releases
    formula = _formula(plan)
    expected = _cli_statuses(data, formula, tmp_path)
    assert {status for _, status in expected} >= {
        "abolished",
        "changed",
        "theme_not_present",
        "present",
        "ambiguous_scheme",
    }
    params = {"formula": formula, "since": "2026-04-01"}
    record = releases_client.get("/check.json", params=params).json()
    assert [(i["text"], i["status"]) for i in record["items"]] == expected
    page = releases_client.get("/check", params=params)
    assert page.status_code == 200
    assert _page_statuses(page.text) == [status for _, status in expected]
    # the full-width (IME) twin reads exactly like the ASCII formula
    wide = formula.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)}).replace(" ", "\u3000")
    twin = releases_client.get("/check.json", params={**params, "formula": wide}).json()
    assert [i["status"] for i in twin["items"]] == [status for _, status in expected]


def test_check_page_links_codes_and_transfer_targets(
    releases_client: TestClient, two_releases: tuple[Path, ReleasePlan]
) -> None:
    _, plan = two_releases
    formula = _formula(plan)
    params = {"formula": formula, "since": "2026-04-01"}
    record = releases_client.get("/check.json", params=params).json()
    hrefs = {
        urlsplit(h).path
        for h, _ in _parsed(releases_client.get("/check", params=params).text).anchors
    }
    for item in record["items"]:
        path = (
            code_viewer_path(item["scheme"], item["code"])
            if item["code"] and item["scheme"] in {"fi", "fterm", "ipc"}
            else None
        )
        if item["status"] in {"present", "changed"}:
            assert path in hrefs, item["text"]
            assert releases_client.get(path).status_code == 200  # type: ignore[arg-type]
        for revision in item["revisions"]:
            if revision["document_id"]:
                assert f"/document/{revision['document_id']}" in hrefs
            for target in revision["targets"]:
                if target["status"] in {"present", "changed"}:
                    assert code_viewer_path("fi", target["code"]) in hrefs, target
                for code in target["leads_to"]:
                    assert code_viewer_path("fi", code) in hrefs, target
    abolished = next(a for a in plan.abolished if len(a.targets) > 1)
    for target in abolished.targets:
        assert code_viewer_path("fi", target) in hrefs
    # the retitled (changed) code links to its revision record
    changed = next(i for i in record["items"] if i["status"] == "changed")
    assert changed["code"] == plan.retitled[0].code
    assert changed["revisions"]
    assert changed["revisions"][0]["document_id"]


def test_checking_a_typed_formula_gathers_its_codes(releases_client: TestClient) -> None:
    page = releases_client.get(
        "/check", params={"formula": "G06F3/0482/FI＋Ｈ９３Ｖ１／００／ＦＩ"}
    )
    found = _parsed(page.text)
    home = next(h for h, _ in found.anchors if urlsplit(h).path == "/")
    assert _f_of(home) == "G06F3/0482/FI H93V1/00/FI"


def test_check_page_syntax_error_keeps_the_formula(releases_client: TestClient) -> None:
    page = releases_client.get("/check", params={"formula": "G06F3/048/FI + (G06F3/0482/FI"})
    assert page.status_code == 400
    assert "FORMULA_SYNTAX" in page.text
    assert _parsed(page.text).textareas["check-formula"] == "G06F3/048/FI + (G06F3/0482/FI"


# --- /diff --------------------------------------------------------------------------------


def test_diff_page_pages_the_plan_with_each_code_a_link(
    releases_client: TestClient, two_releases: tuple[Path, ReleasePlan]
) -> None:
    _, plan = two_releases
    params = {"from": plan.base_release, "to": plan.release, "scheme": "fi"}
    record = releases_client.get("/diff.json", params=params).json()
    counts = {(c["section"], c["scheme"]): c["count"] for c in record["counts"]}
    assert counts[("removed", "fi")] == len(plan.abolished)
    assert counts[("retitled", "fi")] == len(plan.retitled)
    assert counts[("added", "fi")] == len(plan.added)
    assert record["limit"] == 50
    assert len(record["items"]) <= 50
    page = releases_client.get("/diff", params=params)
    anchors = _parsed(page.text).anchors
    for item in record["items"]:
        release = plan.base_release if item["section"].endswith("removed") else plan.release
        wanted = code_viewer_path(item["scheme"], item["code"])
        assert any(
            urlsplit(h).path == wanted and parse_qs(urlsplit(h).query).get("release") == [release]
            for h, _ in anchors
        ), item
    for href, _ in anchors:
        if urlsplit(href).path.startswith("/fi/") and "release" in href:
            assert releases_client.get(href).status_code == 200, href
    narrowed = releases_client.get("/diff.json", params={**params, "under": "G06F3/"}).json()
    assert {i["code"] for i in narrowed["items"]} == {plan.retitled[0].code}
    second = releases_client.get("/diff.json", params={**params, "offset": "1"}).json()
    assert second["items"] == record["items"][1:51]


def test_diff_refuses_a_release_not_installed(releases_client: TestClient) -> None:
    response = releases_client.get("/diff", params={"from": "JPPM1999001"})
    assert response.status_code == 404
    assert "RELEASE_NOT_FOUND" in response.text


def test_check_statuses_are_shown_in_the_page_language(client: TestClient) -> None:
    formula = "A40Y1/02@A/FI + G06F3/048 + A40Y9/99/FI"
    ja = without_tags(client.get("/check", params={"formula": formula}).text)
    en = without_tags(client.get("/check", params={"formula": formula, "lang": "en"}).text)
    for ja_label, en_label, raw in (
        ("有効", "present", "present"),
        ("分類が曖昧", "ambiguous scheme", "ambiguous_scheme"),
        ("見つかりません", "not found", "not_found"),
    ):
        assert ja_label in ja
        assert raw not in ja
        assert en_label in en
        assert ja_label not in en


def test_check_without_a_formula_is_an_empty_form(client: TestClient) -> None:
    page = client.get("/check")
    assert page.status_code == 200
    assert _parsed(page.text).textareas["check-formula"] == ""
    assert "<table" not in page.text
    assert client.get("/check.json").json() is None
