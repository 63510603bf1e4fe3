"""The planned next release: written as planned, deterministic, and built without new issues.

The diff and check tests (pmgs-core, pmgs-cli, pmgs-mcp) rely on the plan being the truth
about the files; this module checks that from the files' bytes.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import build_database
from pmgs_core import parse_code
from pmgs_testkit import generate_package, plan_next_release, write_next_release


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("next")
    base = generate_package(root / "base", scale=0.0005, seed=11, with_documents=True)
    plan = plan_next_release(base)
    return {
        "root": root,
        "base": base,
        "plan": plan,
        "next": write_next_release(base, root / "a", plan),
    }


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_base_same_plan_same_bytes(made: dict[str, Any]) -> None:
    again = plan_next_release(made["base"])
    assert again == made["plan"]
    second = write_next_release(made["base"], made["root"] / "b", again)
    assert _tree_digest(second) == _tree_digest(made["next"])
    with pytest.raises(FileExistsError):
        write_next_release(made["base"], made["root"] / "b", again)


def test_files_say_what_the_plan_says(made: dict[str, Any]) -> None:
    plan, root = made["plan"], made["next"]
    fi_table = "".join(p.read_text("utf-8") for p in (root / "FI" / "FI").glob("*.csv"))
    for gone in plan.abolished:
        assert parse_code("fi", gone.code).fixed_width() not in fi_table
        xml = (root / gone.file).read_bytes().decode("cp932")
        entries = re.findall(rf'<FI attr="del">{re.escape(gone.code)}</FI>.*?</infor>', xml, re.S)
        trans = [re.search(r"<trans>(.*?)</trans>", e)[1] for e in entries]  # type: ignore[index]
        assert trans == list(gone.target_texts)
    assert parse_code("fi", plan.added[0].code).fixed_width() in fi_table
    assert len(plan.abolished[0].targets) == 1
    assert len(plan.abolished[1].targets) > 1
    names = {p.name for p in root.rglob("*.csv")}
    assert all(name.endswith(f"_{plan.reference_date:%Y%m%d}.csv") for name in names)
    theme_rows = (next((root / "FTERM" / "THEME").glob("*.csv"))).read_text("utf-8")
    assert f"\n{plan.abolished_theme}," not in theme_rows


def test_next_release_builds_without_new_issues(made: dict[str, Any]) -> None:
    root = made["root"]
    build_database(made["base"].path, root / "old.sqlite")
    report = build_database(made["next"], root / "new.sqlite")
    assert report.release == made["plan"].release

    def issues(db: Path) -> set[str]:
        with sqlite3.connect(db) as conn:
            return {row[0] for row in conn.execute("SELECT DISTINCT code FROM build_issue")}

    assert issues(root / "new.sqlite") <= issues(root / "old.sqlite")
