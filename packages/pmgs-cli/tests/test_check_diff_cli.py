"""``pmgs check`` and ``pmgs diff`` as processes, on two releases set up side by side.

The expectations come from the generator's plan of the next release, written before its
files; exit codes and error records are the documented ones (docs/cli.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pmgs_testkit import ReleasePlan, generate_package, plan_next_release, write_next_release

from .conftest import Runner


@pytest.fixture(scope="module")
def two_releases(tmp_path_factory: pytest.TempPathFactory, pmgs: Runner) -> dict[str, Any]:
    """A data dir with the base release and its planned successor (current)."""
    root = tmp_path_factory.mktemp("two")
    base = generate_package(root / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base)
    following = write_next_release(base, root / "next", plan)
    data = root / "data"
    for package in (base.path, following):
        result = pmgs("setup", package, "--data-dir", data, "--json")
        assert result.returncode == 0, result.stderr
    return {"plan": plan, "data": data, "base": base.release}


def _pmgs_exe() -> str:
    """The console script, for the one test that writes to its stdin."""
    exe = shutil.which("pmgs", path=str(Path(sys.executable).parent))
    assert exe is not None
    return exe


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout


def test_diff_by_release_id_reports_the_plan(pmgs: Runner, two_releases: dict[str, Any]) -> None:
    plan: ReleasePlan = two_releases["plan"]
    data = two_releases["data"]
    result = pmgs("diff", two_releases["base"], plan.release, "--data-dir", data, "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    counts = {(c["section"], c["scheme"]): c["count"] for c in record["counts"]}
    assert counts == {
        ("added", "fi"): len(plan.added),
        ("removed", "fi"): len(plan.abolished),
        ("removed", "fterm"): len(plan.abolished_fterm_codes),
        ("retitled", "fi"): len(plan.retitled),
        ("theme_link_removed", "fi"): len(plan.theme_links_removed),
        ("concordance_added", "fi"): len(plan.concordance_added),
        ("concordance_removed", "fi"): len(plan.concordance_removed),
    }
    assert (record["from_release"]["release_id"], record["to_release"]["release_id"]) == (
        two_releases["base"],
        plan.release,
    )
    human = pmgs("diff", two_releases["base"], "current", "--data-dir", data, "--limit", "3")
    assert human.returncode == 0, human.stderr
    assert "changes by section" in human.stdout
    assert "next page: --offset 3" in human.stdout
    under = pmgs("diff", two_releases["base"], "current", "--data-dir", data, "--under",
                 plan.retitled[0].code, "--json")  # fmt: skip
    items = json.loads(under.stdout)["items"]
    assert {(i["section"], i["code"]) for i in items} == {
        ("retitled", plan.retitled[0].code),
        *(("concordance_added", fi) for fi, _ in plan.concordance_added),
    }


def test_diff_errors(pmgs: Runner, two_releases: dict[str, Any]) -> None:
    data = two_releases["data"]
    missing = pmgs("diff", "JPPM1999001", "current", "--data-dir", data, "--json")
    assert missing.returncode == 4
    error = json.loads(missing.stdout)["error"]
    assert error["code"] == "RELEASE_NOT_FOUND"
    assert error["details"]["available"] == sorted([two_releases["base"], "JPPM2026003"])
    bad = pmgs("diff", "current", "current", "--data-dir", data, "--limit", "500", "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "INVALID_LIMIT"
    _no_traceback(bad)


def test_check_formula_statuses_and_exit_codes(
    pmgs: Runner, two_releases: dict[str, Any], tmp_path: Path
) -> None:
    plan: ReleasePlan = two_releases["plan"]
    data = two_releases["data"]
    one, several = plan.abolished
    formula = tmp_path / "formula.txt"
    formula.write_text(
        f"[{one.code}/FI + {several.code}/FI] * {plan.abolished_theme}/AA01/FT\n", "utf-8"
    )
    result = pmgs("check", formula, "--data-dir", data, "--json")
    assert result.returncode == 1, result.stderr
    items = json.loads(result.stdout)["items"]
    assert [(i["code"], i["status"]) for i in items] == [
        (one.code, "abolished"),
        (several.code, "abolished"),
        (f"{plan.abolished_theme}AA01", "theme_not_present"),
    ]
    assert items[1]["revisions"][0]["targets"] == list(several.targets)
    old = pmgs("check", formula, "--data-dir", data, "--release", two_releases["base"], "--json")
    assert old.returncode == 0, old.stderr  # every code was valid in the base release
    annotated = pmgs("check", formula, "--data-dir", data, "--annotate")
    first_line = annotated.stdout.splitlines()[0]
    assert f"{one.code}/FI ⟦abolished: {one.targets[0]}⟧" in first_line
    assert f"⟦abolished: {', '.join(several.targets)}⟧" in first_line
    table = pmgs("check", formula, "--data-dir", data)
    assert one.file in table.stdout
    assert "element:infor[" in table.stdout


def test_check_reads_stdin_and_all_present_exits_0(two_releases: dict[str, Any]) -> None:
    exe_input = "G06F3/048/IP\nB60J5/00,501@B/FI\n"
    result = subprocess.run(
        [_pmgs_exe(), "check", "-", "--data-dir", str(two_releases["data"]), "--json"],
        input=exe_input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["input_kind"] == "lines"
    assert [i["status"] for i in record["items"]] == ["present", "present"]


@pytest.mark.parametrize(
    ("text", "code", "reason"),
    [
        ("[G06F3/048/FI + G06F3/0482/FI", "INVALID_QUERY", "FORMULA_SYNTAX"),
        ("G06F3/048/FI + 電池/TX", "INVALID_QUERY", "FORMULA_UNKNOWN_TAG"),
        ("   \n", "INVALID_QUERY", "NO_CODES"),
        ("G06F3/048/IP\n" * 10_001, "TOO_MANY_ITEMS", None),
    ],
)
def test_check_bad_input_exits_2_without_traceback(
    pmgs: Runner,
    two_releases: dict[str, Any],
    tmp_path: Path,
    text: str,
    code: str,
    reason: str | None,
) -> None:
    path = tmp_path / "in.txt"
    path.write_text(text, "utf-8")
    result = pmgs("check", path, "--data-dir", two_releases["data"], "--json")
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == code
    assert error.get("details", {}).get("reason") == reason
    _no_traceback(result)
    human = pmgs("check", path, "--data-dir", two_releases["data"])
    assert human.returncode == 2
    assert f"error {code}" in human.stderr
    _no_traceback(human)


def test_check_wrong_shapes_and_ten_thousand_codes(
    pmgs: Runner, two_releases: dict[str, Any], tmp_path: Path
) -> None:
    shapes = tmp_path / "shapes.txt"
    shapes.write_text("G06F3/4/IP + HELLO/FI", "utf-8")
    result = pmgs("check", shapes, "--data-dir", two_releases["data"], "--json")
    assert result.returncode == 2
    assert [i["status"] for i in json.loads(result.stdout)["items"]] == ["invalid_code"] * 2
    many = tmp_path / "many.txt"
    many.write_text("G06F3/048/IP\n" * 10_000, "utf-8")
    bounded = pmgs("check", many, "--data-dir", two_releases["data"], "--json")
    assert bounded.returncode == 0, bounded.stderr
    assert json.loads(bounded.stdout)["code_count"] == 10_000
