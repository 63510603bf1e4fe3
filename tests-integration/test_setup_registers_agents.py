"""``pmgs setup --client codex`` installs the skill and registers the MCP server through
pmgs-agentkit's published subcommand, with a fake ``codex`` that records what it was asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pmgs_build

FAKE_CODEX = """#!{python}
import json, sys
with open({log!r}, "a", encoding="utf-8") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
# `codex mcp get NAME --json` for a server that is not registered yet
sys.exit(1 if sys.argv[1:3] == ["mcp", "get"] else 0)
"""


def test_setup_with_client_registers_the_server(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "codex-argv.jsonl"
    codex = bin_dir / "codex"
    codex.write_text(FAKE_CODEX.format(python=sys.executable, log=str(log)), encoding="utf-8")
    codex.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    data_dir = tmp_path / "data"
    env = dict(
        os.environ,
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    )
    pmgs = Path(sys.executable).with_name("pmgs")
    sample = str(pmgs_build.sample_package_path())
    command = [str(pmgs), "setup", sample, "--data-dir", str(data_dir), "--client", "codex"]
    result = subprocess.run(
        [*command, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    registration = json.loads(result.stdout)["registration"]
    assert registration["status"] == "done"
    assert [s["status"] for s in registration["skills"]] == ["installed"]
    assert (home / ".codex" / "skills" / "pmgs-reference" / "SKILL.md").is_file()
    assert [r["status"] for r in registration["registrations"]] == ["registered"]

    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    add = [call for call in calls if call[:2] == ["mcp", "add"]]
    assert add == [
        [
            "mcp",
            "add",
            "pmgs-reference",
            "--",
            sys.executable,
            "-m",
            "pmgs_mcp",
            "--data-dir",
            str(data_dir.resolve()),
        ]
    ]
