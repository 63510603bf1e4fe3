"""``pmgs agent-kit``: every configuration file written into a new directory for review.

Some users (and most organisations) want to read what will be registered before anything
touches a client's configuration. The kit is that reviewable form; it is only ever written
into a directory that did not exist, so a previous kit is never silently replaced (ADR 0001).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmgs_agentkit import config
from pmgs_agentkit.config import AgentKitError, Client, ServerSpec, shell_join
from pmgs_agentkit.skills import SKILL_NAME, skill_files

__all__ = ["AgentKitReport", "write_agent_kit"]


@dataclass(frozen=True)
class AgentKitReport:
    """What was written: the directory, its files (relative paths) and the commands."""

    output: Path
    clients: tuple[Client, ...]
    files: tuple[str, ...]
    commands: dict[str, list[str]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "written",
            "output": str(self.output),
            "clients": list(self.clients),
            "files": list(self.files),
            "commands": self.commands,
        }


def _commands_md(spec: ServerSpec, commands: dict[str, list[str]]) -> str:
    lines = [
        "# pmgs-reference: registration commands / 登録コマンド",
        "",
        f"- server name: `{spec.name}`",
        f"- python: `{spec.python_executable}`",
        f"- data dir: `{spec.data_dir}`",
        "",
        "Run the commands below (POSIX shell quoting) or merge the files of this directory by",
        "hand. 下のコマンドを実行するか、このディレクトリの設定を手で取り込む。",
        "",
    ]
    for client, argv in commands.items():
        lines += [f"## {client}", "", "```sh", shell_join(argv), "```", ""]
    lines += [
        "Skill / スキル: copy `skill/pmgs-reference/` into `$CODEX_HOME/skills/` (Codex) and",
        "`$CLAUDE_CONFIG_DIR/skills/` (Claude Code), or run `pmgs install-agent-skill`.",
        "",
    ]
    return "\n".join(lines)


def _commands_sh(commands: dict[str, list[str]]) -> str:
    body = "\n".join(shell_join(argv) for argv in commands.values())
    return f"#!/bin/sh\n# Registers pmgs-reference with the selected clients.\nset -eu\n{body}\n"


def write_agent_kit(
    output: str | os.PathLike[str], spec: ServerSpec, clients: Sequence[Client]
) -> AgentKitReport:
    """Write the kit for ``clients`` into the new directory ``output``.

    Raises :class:`AgentKitError` ``OUTPUT_EXISTS`` if ``output`` exists (even empty). The
    directory is claimed with an exclusive ``mkdir`` first, and removed again if writing fails.
    """
    root = Path(os.path.abspath(output))
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        root.mkdir()
    except FileExistsError:
        raise AgentKitError(
            "OUTPUT_EXISTS", f"{root} already exists; agent-kit only writes a new directory"
        ) from None
    contents: dict[str, bytes] = {}
    commands: dict[str, list[str]] = {}
    if "codex" in clients:
        contents["codex/config.toml"] = config.codex_config_toml(spec).encode()
        commands["codex"] = config.codex_add_argv(spec)
    if "claude" in clients:
        server = json.dumps(config.claude_server_json(spec), ensure_ascii=False, indent=2) + "\n"
        project = json.dumps(config.claude_mcp_json(spec), ensure_ascii=False, indent=2) + "\n"
        contents["claude/add-json.json"] = server.encode()
        contents["claude/.mcp.json"] = project.encode()
        commands["claude"] = config.claude_add_json_argv(spec)
    for name, data in skill_files().items():
        contents[f"skill/{SKILL_NAME}/{name}"] = data
    contents["commands.md"] = _commands_md(spec, commands).encode()
    contents["commands.sh"] = _commands_sh(commands).encode()
    try:
        for name, data in contents.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (root / "commands.sh").chmod(0o755)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return AgentKitReport(root, tuple(clients), tuple(sorted(contents)), commands)
