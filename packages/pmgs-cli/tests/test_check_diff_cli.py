"""``pmgs check`` and ``pmgs diff`` as processes, on two releases set up side by side.

The expectations come from the generator's plan of the next release, written before its
files; exit codes and error records are the documented ones (docs/cli.md).
"""

from __future__ import annotations

import json
import re
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
    plan = plan_next_release(base, with_chains=True)
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
    one, several = plan.abolished[:2]
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
    targets = items[1]["revisions"][0]["targets"]
    assert [t["code"] for t in targets] == list(several.targets)
    assert [t["text"] for t in targets] == [text.strip() for text in several.target_texts]
    assert [t["status"] for t in targets] == ["present"] * len(several.targets)
    old = pmgs("check", formula, "--data-dir", data, "--release", two_releases["base"], "--json")
    assert old.returncode == 0, old.stderr  # every code was valid in the base release
    annotated = pmgs("check", formula, "--data-dir", data, "--annotate")
    first_line = annotated.stdout.splitlines()[0]
    assert f"{one.code}/FI ⟦abolished: {one.targets[0]}⟧" in first_line
    assert f"⟦abolished: {', '.join(several.targets)}⟧" in first_line
    table = pmgs("check", formula, "--data-dir", data)
    assert one.file in table.stdout
    assert "element:infor[" in table.stdout
    for code, text in zip(several.targets, several.target_texts, strict=True):
        assert f"→ {code} present (record: {text.strip()!r})" in table.stdout


def _unboxed(output: str) -> str:
    """A Rich table's text with its borders, padding and line breaks taken out."""
    return re.sub(r"[\s│┃┏┓┗┛┡┩└┘━─┳┻╇┼┬┴╋]", "", output)


def test_check_follows_chains_and_evidence_wraps_at_80_columns(
    pmgs_process: Runner, two_releases: dict[str, Any], tmp_path: Path
) -> None:
    """Chain A → B → (abolished) → present and cycle C ⇄ D, in the table at 80 columns and in
    --annotate; every title and locator whole (folded, never cut with …)."""
    plan: ReleasePlan = two_releases["plan"]
    one = plan.abolished[0]
    chain_a, chain_b, cycle_c, cycle_d = plan.abolished[2:6]
    formula = tmp_path / "chain.txt"
    formula.write_text(f"{chain_a.code}/FI + {cycle_c.code}/FI\n", "utf-8")
    data = two_releases["data"]
    table = pmgs_process("check", formula, "--data-dir", data, env={"COLUMNS": "80"})
    assert table.returncode == 1, table.stderr
    assert "…" not in table.stdout
    assert max(len(line) for line in table.stdout.splitlines()) <= 80
    flat = _unboxed(table.stdout)
    for gone in (chain_a, cycle_c):
        assert _unboxed(gone.title) in flat
        assert _unboxed(gone.file) in flat
    assert _unboxed(f"→ {chain_b.code} abolished ⇒ {one.targets[0]}") in flat
    assert _unboxed(f"→ {cycle_d.code} abolished (a cycle: not followed)") in flat
    annotated = pmgs_process("check", formula, "--data-dir", data, "--annotate")
    line = annotated.stdout.splitlines()[0]
    assert f"{chain_a.code}/FI ⟦abolished: {chain_b.code} ⇒ {one.targets[0]}⟧" in line
    assert f"{cycle_c.code}/FI ⟦abolished: {cycle_d.code} (abolished, a cycle)⟧" in line


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


@pytest.mark.skipif(sys.platform == "win32", reason="closes descriptor 0 with a POSIX shell")
@pytest.mark.parametrize("as_json", [True, False])
def test_check_with_stdin_closed_exits_2(two_releases: dict[str, Any], as_json: bool) -> None:
    """``pmgs check - <&-``: descriptor 0 closed before the process starts (sys.stdin None)."""
    argv = [_pmgs_exe(), "check", "-", "--data-dir", str(two_releases["data"])]
    argv += ["--json"] if as_json else []
    result = subprocess.run(
        ["/bin/sh", "-c", 'exec "$@" <&-', "sh", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    _no_traceback(result)
    assert "error INVALID_ARGUMENT: standard input is closed" in result.stderr
    assert "`pmgs check formula.txt`" in result.stderr
    if as_json:
        error = json.loads(result.stdout)["error"]
        assert (error["code"], error["details"]) == ("INVALID_ARGUMENT", {"reason": "STDIN_CLOSED"})


def test_diff_retitled_titles_wrap_at_80_columns(
    pmgs_process: Runner, two_releases: dict[str, Any]
) -> None:
    plan: ReleasePlan = two_releases["plan"]
    (retitled,) = plan.retitled
    result = pmgs_process(
        "diff", two_releases["base"], "current", "--data-dir", two_releases["data"],
        "--under", retitled.code, env={"COLUMNS": "80"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    flat = _unboxed(result.stdout)
    assert _unboxed(f"「{retitled.old_title}」→「{retitled.new_title}」") in flat


_HINTED = re.compile(r"`([^`]*\bpmgs [^`]*)`")
"""A command in a hint: backticked text that runs pmgs."""


def _hint_of(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("hint: ")]
    assert len(lines) == 1, result.stderr
    return lines[0].removeprefix("hint: ")


def _error_hints(pmgs: Runner, data: Path, base: str, work: Path) -> dict[str, str]:
    """The hint of every error ``check`` and ``diff`` report for their input, by case."""
    inputs = {
        "empty.txt": "",
        "many.txt": "G06F3/048/IP\n" * 10_001,
        "syntax.txt": "G06F3/048/FI + + G06F3/0482/FI",
        "tag.txt": "G06F3/048/TX",
        "huge.txt": "G" * 2_000_001,
        "table.csv": "name,code\nA,G06F3/048/IP\n",
        "formula.txt": "G06F3/048/IP",
    }
    for name, text in inputs.items():
        (work / name).write_text(text, "utf-8")
    (work / "latin1.txt").write_bytes(b"\x81\x7f\xff")
    cases = {
        "NO_CODES": ("check", work / "empty.txt"),
        "TOO_MANY_ITEMS": ("check", work / "many.txt"),
        "FORMULA_SYNTAX": ("check", work / "syntax.txt"),
        "FORMULA_UNKNOWN_TAG": ("check", work / "tag.txt"),
        "INPUT_TOO_LARGE": ("check", work / "huge.txt"),
        "CSV_COLUMN_NOT_FOUND": ("check", work / "table.csv", "--column", "nope"),
        "since": ("check", work / "formula.txt", "--since", "2026-13-01"),
        "encoding": ("check", work / "latin1.txt"),
        "missing file": ("check", work / "absent.txt"),
        "annotate and json": ("check", work / "formula.txt", "--annotate", "--json"),
        "check --release": ("check", work / "formula.txt", "--release", "JPPM1999001"),
        "check --release shape": ("check", work / "formula.txt", "--release", "old"),
        "diff FROM": ("diff", "JPPM1999001", "current"),
        "diff TO": ("diff", base, "nope"),
    }
    hints = {}
    for case, argv in cases.items():
        result = pmgs(*argv, "--data-dir", data)
        assert result.returncode in (2, 4), (case, result.stderr)
        hints[case] = _hint_of(result)
    return hints


@pytest.mark.skipif(sys.platform == "win32", reason="runs the hints' shell command lines")
def test_every_hint_of_check_and_diff_names_a_command_that_works(
    pmgs: Runner, two_releases: dict[str, Any], tmp_path: Path
) -> None:
    """Each backticked command of each hint is run (files named in it exist, the data dir is
    added) and must not be a usage error: the hint sends nobody to an option that is not
    there."""
    data, base = two_releases["data"], two_releases["base"]
    hints = _error_hints(pmgs, data, base, tmp_path)
    closed = subprocess.run(
        ["/bin/sh", "-c", 'exec "$@" <&-', "sh", _pmgs_exe(), "check", "-", "--data-dir", data],
        capture_output=True, text=True, encoding="utf-8", check=False, timeout=120,
    )  # fmt: skip
    hints["stdin closed"] = _hint_of(closed)
    assert "search text" not in " ".join(hints.values())
    assert "notes" not in " ".join(hints.values())
    assert "512" not in " ".join(hints.values())
    assert "--release" not in hints["diff FROM"] + hints["diff TO"]
    assert base == "JPPM2026002"  # the release id the diff hint's example names
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("formula.txt", "part1.txt"):
        (runs / name).write_text("G06F3/048/IP\n", "utf-8")  # every --input reads it
    (runs / "codes.csv").write_text("A,G06F3/048/IP\n", "utf-8")  # no header: --column 2
    ran = 0
    for case, hint in hints.items():
        commands = _HINTED.findall(hint)
        assert commands, (case, hint)
        for command in commands:
            shell = re.sub(
                r"\bpmgs (\w+)", lambda m: f'"{_pmgs_exe()}" {m[1]} --data-dir "{data}"', command
            )
            done = subprocess.run(  # the hint's own command line, its files in runs/
                shell, shell=True, cwd=runs, capture_output=True, text=True, encoding="utf-8",
                check=False, timeout=120,
            )  # fmt: skip
            assert done.returncode in (0, 1), (case, command, done.stderr)
            assert "Usage:" not in done.stderr, (case, command)
            ran += 1
    assert ran >= len(hints)
