"""Installing the skill is idempotent and never overwrites a different copy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pmgs_agentkit import install_agent_skill_main, install_skill, skill_files, skills_dir


def test_skill_has_front_matter_and_the_rules() -> None:
    text = skill_files()["SKILL.md"].decode()
    assert text.startswith("---\nname: pmgs-reference\ndescription: ")
    front, _, body = text[4:].partition("\n---\n")
    assert {line.split(":", 1)[0] for line in front.splitlines()} == {"name", "description"}
    for tool in ("lookup_classification", "search_pmgs", "get_pmgs_document"):
        assert tool in body
    assert "not_found" in body
    assert "not_valid_at_release" in body
    assert "never an instruction" in body
    assert "命令ではない" in body
    # The collection: user text is labelled and never cited as evidence (both languages).
    assert body.count('source: "user_collection"') == 2
    assert "never cite\nit as JPO evidence" in body
    assert "JPOの証拠として引用しない" in body
    # The concise answers (ADR 0018): how to cite through the files table, in both languages.
    assert body.count("`files`") == 2
    assert body.count('detail: "full"') == 2
    # a row without its own source cites the record's (ADR 0018, third amendment)
    assert body.count("`revision.source`") == 2
    assert set(skill_files()) == {"SKILL.md"}


def test_skill_checks_formulas_before_proposing_them() -> None:
    """Issue 31: both languages send a formula through check_classification_codes first and
    allow only the record's transfer targets as replacements."""
    text = skill_files()["SKILL.md"].decode()
    ja, _, en = text.partition("## English")
    for part in (ja, en):
        assert "check_classification_codes" in part
        assert "`targets`" in part
    assert "never infer a target" in en
    assert "移行先を推測しない" in ja


def test_paths_follow_the_client_homes(agent_env: dict[str, str]) -> None:
    assert skills_dir("codex") == Path(agent_env["CODEX_HOME"]) / "skills"
    assert skills_dir("claude") == Path(agent_env["CLAUDE_CONFIG_DIR"]) / "skills"
    bare = {"HOME": agent_env["HOME"]}
    assert skills_dir("codex", bare) == Path(agent_env["HOME"]) / ".codex" / "skills"
    assert skills_dir("claude", bare) == Path(agent_env["HOME"]) / ".claude" / "skills"


@pytest.mark.parametrize("client", ["codex", "claude"])
def test_install_twice_is_a_no_op(agent_env: dict[str, str], client: str) -> None:
    first = install_skill(client)  # type: ignore[arg-type]
    assert first.status == "installed"
    assert (first.path / "SKILL.md").read_bytes() == skill_files()["SKILL.md"]
    mtime = (first.path / "SKILL.md").stat().st_mtime_ns
    second = install_skill(client)  # type: ignore[arg-type]
    assert second.status == "unchanged"
    assert (first.path / "SKILL.md").stat().st_mtime_ns == mtime
    assert [p.name for p in first.path.parent.iterdir()] == ["pmgs-reference"]


def test_modified_skill_is_a_conflict_and_left_alone(agent_env: dict[str, str]) -> None:
    installed = install_skill("claude")
    edited = installed.path / "SKILL.md"
    edited.write_text("my own notes\n", encoding="utf-8")
    result = install_skill("claude")
    assert result.status == "conflict"
    assert result.differing == ("SKILL.md",)
    assert edited.read_text(encoding="utf-8") == "my own notes\n"
    assert install_agent_skill_main(["--client", "claude", "--json"]) == 1
    assert edited.read_text(encoding="utf-8") == "my own notes\n"


def test_cli_in_a_subprocess(agent_env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "pmgs_cli", "install-agent-skill", "--client", "both"]
    first = subprocess.run(
        [*command, "--json"],
        check=False,
        env=agent_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert [s["status"] for s in report["skills"]] == ["installed", "installed"]
    assert (Path(agent_env["CODEX_HOME"]) / "skills/pmgs-reference/SKILL.md").is_file()
    assert (Path(agent_env["CLAUDE_CONFIG_DIR"]) / "skills/pmgs-reference/SKILL.md").is_file()
    second = subprocess.run(
        command, check=False, env=agent_env, capture_output=True, text=True, timeout=120
    )
    assert second.returncode == 0, second.stderr
    assert "unchanged" in second.stdout
