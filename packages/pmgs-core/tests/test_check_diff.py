"""check_codes and diff_releases against a next release whose changes were planned first.

The oracle is the generator's plan (``ReleasePlan``, written before the files) and the
revision XML as bytes on disk, never the output of the code under test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pmgs_build import build_database
from pmgs_core import PMGSQueryError, PMGSStore, diff_releases, load_schema, parse_code
from pmgs_testkit import ReleasePlan, generate_package, plan_next_release, write_next_release


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("releases")
    base = generate_package(root / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base, with_chains=True)
    following = write_next_release(base, root / "next", plan)
    build_database(base.path, root / "old.sqlite")
    build_database(following, root / "new.sqlite")
    with PMGSStore.open(root / "new.sqlite") as new:
        yield {"plan": plan, "old": root / "old.sqlite", "new": new, "next": following}


def _infor_positions(xml: Path, code: str) -> list[int]:
    """1-based positions of the <infor> elements about ``code``, read from the file's bytes."""
    text = xml.read_bytes().decode("cp932")
    entries = re.findall(r"<infor>.*?</infor>", text, re.DOTALL)
    return [n for n, entry in enumerate(entries, 1) if f">{code}</FI>" in entry]


def _trans_texts(xml: Path, code: str) -> list[str]:
    """The <trans> texts of the <infor> elements about ``code``, read from the file's bytes."""
    text = xml.read_bytes().decode("cp932")
    entries = re.findall(r"<infor>.*?</infor>", text, re.DOTALL)
    return [
        re.search(r"<trans>(.*?)</trans>", entry, re.DOTALL)[1]  # type: ignore[index]
        for entry in entries
        if f">{code}</FI>" in entry
    ]


def _all_items(old: Path, new: PMGSStore, **filters: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = diff_releases(old, new, limit=7, offset=offset, **filters)
        items.extend(page["items"])
        offset = page["next_offset"]
    return items


def test_diff_reports_exactly_the_plan(releases: dict[str, Any]) -> None:
    plan: ReleasePlan = releases["plan"]
    items = _all_items(releases["old"], releases["new"])

    def codes(section: str, scheme: str) -> set[str]:
        return {i["code"] for i in items if i["section"] == section and i["scheme"] == scheme}

    def links(section: str) -> set[tuple[str, str]]:
        return {(i["code"], i["target"]["code"]) for i in items if i["section"] == section}

    assert codes("removed", "fi") == {a.code for a in plan.abolished}
    assert codes("removed", "fterm") == set(plan.abolished_fterm_codes)
    assert codes("added", "fi") == {a.code for a in plan.added}
    added = next(i for i in items if i["section"] == "added")
    assert (added["new_parent"], added["new_title"]) == (plan.added[0].parent, plan.added[0].title)
    retitled = [i for i in items if i["section"] == "retitled"]
    assert [(i["code"], i["old_title"], i["new_title"]) for i in retitled] == [
        (r.code, r.old_title, r.new_title) for r in plan.retitled
    ]
    assert links("theme_link_removed") == set(plan.theme_links_removed)
    assert links("concordance_removed") == set(plan.concordance_removed)
    assert links("concordance_added") == set(plan.concordance_added)
    planned = (
        len(plan.abolished)
        + len(plan.abolished_fterm_codes)
        + len(plan.added)
        + len(plan.retitled)
        + len(plan.theme_links_removed)
        + len(plan.concordance_removed)
        + len(plan.concordance_added)
    )
    assert len(items) == planned  # nothing else: no moves, no IPC change, no added links
    first = diff_releases(releases["old"], releases["new"], limit=200)
    assert sum(c["count"] for c in first["counts"]) == first["total"] == planned
    jsonschema.validate(first, load_schema("release_diff"))


def test_diff_filters_by_prefix_and_scheme(releases: dict[str, Any]) -> None:
    plan: ReleasePlan = releases["plan"]
    theme = plan.abolished_theme
    under = _all_items(releases["old"], releases["new"], under=theme)
    expected = {(c, None) for c in plan.abolished_fterm_codes}
    expected |= {(fi, theme) for fi, to in plan.theme_links_removed if to == theme}
    found = {(i["code"], i["target"]["code"] if i["target"] else None) for i in under}
    assert found == expected
    fterm_only = _all_items(releases["old"], releases["new"], scheme="fterm")
    assert {i["section"] for i in fterm_only} == {"removed", "theme_link_removed"}
    same = diff_releases(releases["old"], releases["old"])
    assert (same["total"], same["items"], same["counts"]) == (0, [], [])


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"scheme": "cpc"}, "INVALID_SCHEME"),
        ({"limit": 0}, "INVALID_LIMIT"),
        ({"limit": 201}, "INVALID_LIMIT"),
        ({"offset": -1}, "INVALID_OFFSET"),
        ({"under": "  "}, "INVALID_ARGUMENT"),
        ({"under": "G" * 41}, "INVALID_ARGUMENT"),
    ],
)
def test_diff_arguments(releases: dict[str, Any], arguments: dict[str, Any], code: str) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        diff_releases(releases["old"], releases["new"], **arguments)
    assert caught.value.code == code


def test_check_formula_with_every_kind_of_change(releases: dict[str, Any]) -> None:
    plan: ReleasePlan = releases["plan"]
    one, several = plan.abolished[:2]
    formula = (
        f"[{one.code}/FI+{several.code}/FI]*{plan.retitled[0].code}/FI"
        f"-({plan.abolished_theme}AA01/FT+4C083/AA01+{plan.added[0].code}/FI)"
        "+G06F3/042/IP+G06F3/048+G06F3/048/IP+B60J5/00,501@B/FI"
    )
    record = releases["new"].check_codes(formula, since="2026-04-01")
    jsonschema.validate(record, load_schema("code_check"))
    items = record["items"]
    got = [(i["text"], i["status"]) for i in items]
    assert got == [
        (f"{one.code}/FI", "abolished"),
        (f"{several.code}/FI", "abolished"),
        (f"{plan.retitled[0].code}/FI", "changed"),
        (f"{plan.abolished_theme}AA01/FT", "theme_not_present"),
        ("4C083/AA01", "present"),
        (f"{plan.added[0].code}/FI", "changed"),
        ("G06F3/042/IP", "not_valid_at_release"),
        ("G06F3/048", "ambiguous_scheme"),
        ("G06F3/048/IP", "present"),
        ("B60J5/00,501@B/FI", "present"),
    ]
    cursor = 0
    for item in items:  # each occurrence starts where its text is next found
        cursor = formula.index(item["text"], cursor)
        assert (item["offset"], item["line"], item["column"]) == (cursor, 1, cursor + 1)
        cursor += len(item["text"])
    assert items[4]["code"] == "4C083AA01"
    assert items[4]["match"] == "normalised"
    assert items[7]["candidate_schemes"] == ["fi", "ipc"]
    assert items[7]["code"] is None
    for item, gone in ((items[0], one), (items[1], several)):
        (evidence,) = item["revisions"]
        # all of them, in the record's order, canonical, the record's text beside
        assert [t["code"] for t in evidence["targets"]] == list(gone.targets)
        assert [t["text"] for t in evidence["targets"]] == [
            text.strip() for text in _trans_texts(releases["next"] / gone.file, gone.code)
        ]
        assert [(t["status"], t["leads_to"]) for t in evidence["targets"]] == [
            ("present", [code]) for code in gone.targets
        ]
        assert (evidence["action"], evidence["date"]) == ("del", "2026-07-01")
        assert evidence["old_title"] == gone.title
        assert {s["file"] for s in evidence["sources"]} == {gone.file}
        positions = _infor_positions(releases["next"] / gone.file, gone.code)
        assert [s["locator"] for s in evidence["sources"]] == [
            f"element:infor[{n}]" for n in positions
        ]
        assert len(positions) == len(gone.targets)
    (retitle,) = items[2]["revisions"]
    assert (retitle["old_title"], retitle["new_title"]) == (
        plan.retitled[0].old_title,
        plan.retitled[0].new_title,
    )
    assert items[6]["revisions"]
    assert all(e["sources"][0]["file"].startswith("IPC_KAISEI/") for e in items[6]["revisions"])
    for evidence in items[6]["revisions"]:  # IPC targets: canonical, each with its status
        for target in evidence["targets"]:
            assert parse_code("ipc", target["code"]).canonical == target["code"]
            assert target["text"].startswith(target["code"])
            assert target["status"] != "invalid_code"
    assert record["needs_attention"] == 7
    assert record["status_counts"]["abolished"] == 2


def test_transfer_chains_are_followed_to_codes_of_the_release(releases: dict[str, Any]) -> None:
    """The plan's chain (A → B → the one-target code → its main group) and cycle (C ⇄ D)."""
    plan: ReleasePlan = releases["plan"]
    one = plan.abolished[0]
    chain_a, chain_b, cycle_c, cycle_d = plan.abolished[2:6]
    assert chain_a.targets == (chain_b.code,)
    assert chain_b.targets == (one.code,)
    assert cycle_c.targets == (cycle_d.code,)
    assert cycle_d.targets == (cycle_c.code,)
    record = releases["new"].check_codes(f"{chain_a.code}/FI + {cycle_c.code}/FI")
    jsonschema.validate(record, load_schema("code_check"))
    first, second = record["items"]
    assert (first["status"], second["status"]) == ("abolished", "abolished")
    (target,) = first["revisions"][0]["targets"]
    assert (target["code"], target["status"], target["cycle"]) == (chain_b.code, "abolished", False)
    assert target["leads_to"] == [one.targets[0]]
    steps = [(s["from"], s["code"], s["status"], s["depth"], s["cycle"]) for s in target["chain"]]
    assert steps == [
        (chain_b.code, one.code, "abolished", 1, False),
        (one.code, one.targets[0], "present", 2, False),
    ]
    assert f"{chain_b.code} (abolished → {one.targets[0]})" in first["message"]
    (loop,) = second["revisions"][0]["targets"]
    assert (loop["code"], loop["status"]) == (cycle_d.code, "abolished")
    assert (loop["leads_to"], loop["cycle"], loop["depth_limited"]) == ([], True, False)
    assert [(s["from"], s["code"], s["cycle"]) for s in loop["chain"]] == [
        (cycle_d.code, cycle_c.code, True)
    ]
    assert "cycle" in second["message"]
    for item in record["items"]:
        for evidence in item["revisions"]:
            for found in evidence["targets"]:
                assert parse_code("fi", found["code"]).canonical == found["code"]


def test_a_chain_stops_at_the_step_bound(
    releases: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pmgs_core.check

    plan: ReleasePlan = releases["plan"]
    monkeypatch.setattr(pmgs_core.check, "MAX_TRANSFER_STEPS", 0)
    record = releases["new"].check_codes(f"{plan.abolished[2].code}/FI")
    (target,) = record["items"][0]["revisions"][0]["targets"]
    assert (target["chain"], target["leads_to"], target["depth_limited"]) == ([], [], True)
    assert "not followed further" in record["items"][0]["message"]
    monkeypatch.setattr(pmgs_core.check, "MAX_TRANSFER_STEPS", 64)
    monkeypatch.setattr(pmgs_core.check, "MAX_TRANSFER_DEPTH", 1)
    record = releases["new"].check_codes(f"{plan.abolished[2].code}/FI")
    (target,) = record["items"][0]["revisions"][0]["targets"]
    assert [s["code"] for s in target["chain"]] == [plan.abolished[0].code]  # not followed
    assert (target["leads_to"], target["depth_limited"]) == ([], True)
    record = releases["new"].check_codes(f"{plan.abolished[4].code}/FI")
    (loop,) = record["items"][0]["revisions"][0]["targets"]
    assert (loop["cycle"], loop["depth_limited"]) == (True, False)  # a cycle is no depth


_WIDE = {chr(code): chr(code + 0xFEE0) for code in range(0x21, 0x7F)} | {" ": "\u3000"}
"""Printable ASCII to its full-width form (U+FF01-FF5E) and the space to the ideographic
space: what a Japanese IME types in full-width mode (the Unicode block's definition)."""


def test_a_formula_typed_in_full_width_checks_like_its_ascii_twin(
    releases: dict[str, Any],
) -> None:
    plan: ReleasePlan = releases["plan"]
    one, several = plan.abolished[:2]
    twin = (
        f"[{one.code}/FI + {several.code}/FI] * {plan.retitled[0].code}/FI"
        f" - ({plan.abolished_theme}AA01/FT + 4C083/AA01 + {plan.added[0].code}/FI)"
        " + G06F3/042/IP + G06F3/048 + G06F3/048/IP + B60J5/00,501@B/FI + HELLO/FI"
    )
    typed = "".join(_WIDE.get(char, char) for char in twin)
    assert typed.isascii() is False
    assert "+" not in typed
    store: PMGSStore = releases["new"]
    wide = store.check_codes(typed, since="2026-04-01")
    narrow = store.check_codes(twin, since="2026-04-01")
    jsonschema.validate(wide, load_schema("code_check"))
    assert (
        [i["status"] for i in wide["items"]]
        == [i["status"] for i in narrow["items"]]
        == [
            "abolished",
            "abolished",
            "changed",
            "theme_not_present",
            "present",
            "changed",
            "not_valid_at_release",
            "ambiguous_scheme",
            "present",
            "present",
            "invalid_code",
        ]
    )
    keys = ("offset", "line", "column", "tag", "scheme", "code", "revisions")
    for w, n in zip(wide["items"], narrow["items"], strict=True):
        assert {k: w[k] for k in keys} == {k: n[k] for k in keys}
        assert w["text"] == typed[w["offset"] : w["offset"] + len(w["text"])]
        assert w["match"] == ("normalised" if w["code"] else None)


def test_without_since_a_revised_code_is_present(releases: dict[str, Any]) -> None:
    plan: ReleasePlan = releases["plan"]
    record = releases["new"].check_codes(f"{plan.retitled[0].code}/FI")
    assert record["items"][0]["status"] == "present"
    assert record["needs_attention"] == 0


def test_lines_csv_and_default_scheme(releases: dict[str, Any]) -> None:
    store: PMGSStore = releases["new"]
    plan: ReleasePlan = releases["plan"]
    lines = store.check_codes(f"G06F 3/048\n\n{plan.abolished[0].code}\n", scheme="fi")
    assert lines["input_kind"] == "lines"
    assert [(i["line"], i["code"], i["status"]) for i in lines["items"]] == [
        (1, "G06F3/048", "present"),
        (3, plan.abolished[0].code, "abolished"),
    ]
    assert lines["items"][0]["match"] == "normalised"
    csv_text = f"name,code\nA,{plan.abolished_theme}AA02\nB,G06F3/042/IP\n"
    record = store.check_codes(csv_text, column="code")
    assert [(i["line"], i["status"]) for i in record["items"]] == [
        (2, "theme_not_present"),
        (3, "not_valid_at_release"),
    ]
    assert store.check_codes(csv_text, column="2")["code_count"] == 3  # the header is data


@pytest.mark.parametrize(
    ("text", "reason", "column"),
    [
        ("[G06F3/048/FI + G06F3/0482/FI", "FORMULA_SYNTAX", 1),
        ("G06F3/048/FI + (G06F3/0482/FI]", "FORMULA_SYNTAX", 30),
        ("G06F3/048/FI + + G06F3/0482/FI", "FORMULA_SYNTAX", 16),
        ("G06F3/048/FI G06F3/0482/FI", "FORMULA_SYNTAX", 14),
        ("G06F3/048/FI *", "FORMULA_SYNTAX", 15),
        ("G06F3/048/TX + 電池/FI", "FORMULA_UNKNOWN_TAG", 10),
        ("", "NO_CODES", None),
        ("/FI + G06F3/048/FI", "FORMULA_SYNTAX", 1),
    ],
)
def test_bad_formulas_are_errors_with_a_position(
    releases: dict[str, Any], text: str, reason: str, column: int | None
) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        releases["new"].check_codes(text)
    assert caught.value.code == "INVALID_QUERY"
    assert caught.value.details["reason"] == reason
    assert caught.value.details.get("column") == column


def test_wrong_shapes_are_items_and_limits_are_errors(releases: dict[str, Any]) -> None:
    store: PMGSStore = releases["new"]
    record = store.check_codes("G06F3/4/IP + 4C083AA1/FT + HELLO/FI + 電池")
    assert [i["status"] for i in record["items"]] == ["invalid_code"] * 4
    assert all(i["message"] for i in record["items"])
    ten_thousand = "\n".join(["G06F3/048/IP"] * 10_000)
    assert store.check_codes(ten_thousand)["code_count"] == 10_000
    with pytest.raises(PMGSQueryError) as caught:
        store.check_codes(ten_thousand + "\nG06F3/048/IP")
    assert caught.value.code == "TOO_MANY_ITEMS"
    with pytest.raises(PMGSQueryError) as small:
        store.check_codes("A/FI+B/FI+C/FI", max_codes=2)
    assert small.value.details == {"max_codes": 2}
    with pytest.raises(PMGSQueryError):
        store.check_codes("G06F3/048/IP", since="2026-13-01")
