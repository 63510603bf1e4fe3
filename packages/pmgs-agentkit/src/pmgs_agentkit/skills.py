"""Installing the shared skill into each client's personal skills directory.

The skill is a user-visible instruction file, so installation must never destroy a copy the
user edited: identical content is a no-op, any difference is reported as a conflict and
nothing is written (ADR 0001).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from pmgs_agentkit.config import Client

__all__ = [
    "SKILL_NAME",
    "SkillInstallResult",
    "install_skill",
    "skill_files",
    "skills_dir",
]

SKILL_NAME = "pmgs-reference"

SkillStatus = Literal["installed", "unchanged", "conflict"]


def skill_files() -> dict[str, bytes]:
    """The skill's files (relative POSIX path → bytes), read from the package data.

    Python modules in the data package are packaging plumbing, not part of the skill.
    """
    root = files("pmgs_agentkit").joinpath("skill")
    found: dict[str, bytes] = {}
    pending: list[tuple[str, Any]] = [("", root)]
    while pending:
        prefix, node = pending.pop()
        for child in node.iterdir():
            rel = f"{prefix}{child.name}"
            if child.is_dir():
                if child.name != "__pycache__":
                    pending.append((rel + "/", child))
            elif not child.name.endswith((".py", ".pyc")):
                found[rel] = child.read_bytes()
    return dict(sorted(found.items()))


def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) if home else Path.home()


def skills_dir(client: Client, env: Mapping[str, str] | None = None) -> Path:
    """The personal skills directory of ``client``.

    Codex: ``$CODEX_HOME/skills`` (``CODEX_HOME`` defaults to ``~/.codex``). Claude Code:
    ``$CLAUDE_CONFIG_DIR/skills`` (defaults to ``~/.claude``). ``env`` defaults to the
    process environment; tests pass a temporary one.
    """
    environ = os.environ if env is None else env
    if client == "codex":
        base = environ.get("CODEX_HOME") or str(_home(environ) / ".codex")
    elif client == "claude":
        base = environ.get("CLAUDE_CONFIG_DIR") or str(_home(environ) / ".claude")
    else:  # pragma: no cover - guarded by the Literal type and argparse choices
        raise ValueError(f"unknown client {client!r}")
    return Path(base) / "skills"


@dataclass(frozen=True)
class SkillInstallResult:
    """What happened to one client's copy; ``differing`` names the files that block it."""

    client: Client
    status: SkillStatus
    path: Path
    differing: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "status": self.status,
            "path": str(self.path),
            "differing": list(self.differing),
        }


def _existing_files(target: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for path in target.rglob("*"):
        if path.is_file() or path.is_symlink():
            try:
                found[path.relative_to(target).as_posix()] = path.read_bytes()
            except OSError:
                found[path.relative_to(target).as_posix()] = b"\0unreadable"
    return found


def install_skill(client: Client, env: Mapping[str, str] | None = None) -> SkillInstallResult:
    """Install the skill for ``client``: ``installed``, ``unchanged`` or ``conflict``.

    A new copy is written into a temporary sibling directory and renamed into place, so a
    crash never leaves a half-written skill that a later run would report as a conflict.
    """
    target = skills_dir(client, env) / SKILL_NAME
    wanted = skill_files()
    if target.exists() or target.is_symlink():
        if not target.is_dir():
            return SkillInstallResult(client, "conflict", target, (".",))
        present = _existing_files(target)
        differing = sorted(
            name for name in set(wanted) | set(present) if wanted.get(name) != present.get(name)
        )
        if differing:
            return SkillInstallResult(client, "conflict", target, tuple(differing))
        return SkillInstallResult(client, "unchanged", target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{SKILL_NAME}.", dir=target.parent))
    try:
        for name, data in wanted.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if target.is_dir() and _existing_files(target) == wanted:
            # Another process installed the same content between our check and rename.
            return SkillInstallResult(client, "unchanged", target)
        raise
    return SkillInstallResult(client, "installed", target)
