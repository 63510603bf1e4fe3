"""``pmgs`` with every package of the workspace installed: the subcommands other packages
publish (``mcp``, ``agent-kit``, ``web``) keep the CLI's exit codes and hint lines, and the
command table of docs/cli.md names only commands that exist.

These need the whole workspace, so they run here rather than in pmgs-cli's own session
(which installs pmgs-cli and pmgs-core only).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from pmgs_build.sample import sample_package_path
from pmgs_testkit.kit import run_script as pmgs

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory set up once with the embedded sample."""
    root = tmp_path_factory.mktemp("data")
    result = pmgs("setup", sample_package_path(), "--data-dir", root, "--json", timeout=600)
    assert result.returncode == 0, result.stderr
    return root


def test_mcp_missing_database_exits_3_with_a_hint(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    cli = pmgs("lookup", "fi", "G06F3/048", "--db", missing)
    server = pmgs("mcp", "--db", missing)
    assert cli.returncode == server.returncode == 3
    assert server.stdout == ""
    assert "hint: " in server.stderr
    assert "DATABASE_NOT_FOUND" in server.stderr


def test_mcp_help_names_every_tool_of_all() -> None:
    from pmgs_mcp.tools import BROWSE_TOOL_NAMES

    result = pmgs("mcp", "--help", env={"COLUMNS": "1000"})
    assert result.returncode == 0
    help_text = " ".join(result.stdout.split())
    for name in BROWSE_TOOL_NAMES:
        assert name in help_text, name


def test_agent_kit_errors_have_a_hint_and_a_kit_without_database_warns(tmp_path: Path) -> None:
    empty = tmp_path / "not-set-up"
    python = ["--python-executable", sys.executable]
    first = pmgs("agent-kit", "--output", tmp_path / "kit", "--data-dir", empty, *python)
    assert first.returncode == 0, first.stderr
    assert f"warning: {empty} holds no database yet" in first.stderr
    assert "pmgs setup SOURCE --data-dir" in first.stderr
    again = pmgs("agent-kit", "--output", tmp_path / "kit", *python, "--json")
    assert again.returncode == 2
    assert again.stderr.splitlines()[0].startswith("error OUTPUT_EXISTS: ")
    assert again.stderr.splitlines()[1].startswith("hint: ")
    assert json.loads(again.stdout)["hint"]


def test_agent_kit_for_a_set_up_directory_does_not_warn(data_dir: Path, tmp_path: Path) -> None:
    result = pmgs(
        "agent-kit", "--output", tmp_path / "kit", "--data-dir", data_dir,
        "--python-executable", sys.executable, "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["warnings"] == []
    assert "warning" not in result.stderr


def test_docs_list_commands_that_exist_and_one_exit_code_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    commands = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)[^`]*` \|", commands, flags=re.MULTILINE)
    assert {"lookup", "search", "release", "validate", "check", "diff"} <= set(rows)
    for command in rows:
        assert pmgs(command, "--help").returncode == 0, command
    assert "release current" not in text
    assert text.count("## Exit codes") == 1
    assert "`pmgs mcp`" in text.split("## Exit codes")[1].split("##")[0]
