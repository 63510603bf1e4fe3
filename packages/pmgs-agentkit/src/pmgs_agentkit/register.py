"""Registering the server with a client through the client's own CLI.

The clients own their configuration files (Claude Code's ``~/.claude.json`` also holds
unrelated state), so pmgs never edits them: it runs ``codex mcp add`` / ``claude mcp
add-json`` itself, only with explicit consent (``yes=True``), and otherwise hands back the
exact command to run (ADR 0001).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pmgs_agentkit.config import (
    Client,
    McpTools,
    ServerSpec,
    claude_add_json_argv,
    claude_server_json,
    codex_add_argv,
    server_spec,
)

__all__ = ["RegistrationResult", "Runner", "register_server"]

RegistrationStatus = Literal[
    "registered", "planned", "not_installed", "unchanged", "conflict", "failed"
]

_TIMEOUT_SECONDS = 60


class Runner(Protocol):
    """The subset of :func:`subprocess.run` used here (tests may pass a fake)."""

    def __call__(
        self,
        args: Sequence[str],
        *,
        capture_output: bool,
        text: bool,
        check: bool,
        timeout: float,
    ) -> subprocess.CompletedProcess[str]: ...


@dataclass(frozen=True)
class RegistrationResult:
    """Outcome for one client; ``argv`` is the add command that was (or would be) run."""

    client: Client
    status: RegistrationStatus
    argv: tuple[str, ...]
    message: str
    exit_code: int | None = None
    existing: dict[str, Any] | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "status": self.status,
            "argv": list(self.argv),
            "message": self.message,
            "exit_code": self.exit_code,
        }


def _find(mapping: Any, key: str) -> Any:
    """``key`` at the top level or under ``transport`` (``codex mcp get --json`` nests it)."""
    if not isinstance(mapping, dict):
        return None
    if key in mapping:
        return mapping[key]
    transport = mapping.get("transport")
    return transport.get(key) if isinstance(transport, dict) else None


def _codex_existing(output: str, spec: ServerSpec) -> bool | None:
    """Whether ``codex mcp get --json`` output describes ``spec``; None if unparseable."""
    try:
        data = json.loads(output)
    except ValueError:
        return None
    command, args = _find(data, "command"), _find(data, "args")
    if command is None:
        return None
    return bool(command == spec.python_executable and list(args or []) == spec.args)


def _claude_existing(output: str, spec: ServerSpec) -> bool | None:
    """Whether ``claude mcp get`` text describes ``spec``; None if it names no command.

    ``claude mcp get`` prints text (``Command: …`` and ``Args: …`` lines), not JSON, so the
    check compares those two lines with the wanted command and space-joined arguments.
    """
    fields: dict[str, str] = {}
    for line in output.splitlines():
        key, sep, value = line.strip().partition(":")
        if sep:
            fields.setdefault(key.strip().lower(), value.strip())
    if "command" not in fields:
        return None
    return fields["command"] == spec.python_executable and fields.get("args", "") == " ".join(
        spec.args
    )


def register_server(
    client: Client,
    *,
    data_dir: str | os.PathLike[str] | None,
    python_executable: str | os.PathLike[str] | None,
    yes: bool,
    runner: Runner = subprocess.run,
    echo: Callable[[str], None] | None = None,
    tools: McpTools = "default",
) -> RegistrationResult:
    """Register the pmgs server with ``client`` using the client's CLI.

    - CLI not on PATH → ``not_installed`` with the command to run later.
    - Already registered with the same command and args → ``unchanged`` (nothing run).
    - Registered differently → ``conflict``; the existing entry is left alone.
    - ``yes=False`` → ``planned``: the command is only returned (and echoed).
    - Otherwise the add command runs → ``registered`` or ``failed``.

    The CLI is resolved with :func:`shutil.which` to an absolute path so the command shown is
    exactly the program that runs. ``echo`` receives each command line before it runs.
    """
    spec = server_spec(data_dir=data_dir, python_executable=python_executable, tools=tools)
    found = shutil.which(client)
    executable = os.path.abspath(found) if found else client
    if client == "codex":
        add_argv = codex_add_argv(spec, executable)
        get_argv = [executable, "mcp", "get", spec.name, "--json"]
    else:
        add_argv = claude_add_json_argv(spec, executable)
        get_argv = [executable, "mcp", "get", spec.name]
    if not found:
        return RegistrationResult(
            client,
            "not_installed",
            tuple(add_argv),
            f"{client} is not on PATH; after installing it, run the command in argv",
        )

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        if echo is not None:
            echo("$ " + " ".join(argv))
        return runner(argv, capture_output=True, text=True, check=False, timeout=_TIMEOUT_SECONDS)

    current = run(get_argv)
    if current.returncode == 0:
        parse = _codex_existing if client == "codex" else _claude_existing
        same = parse(current.stdout, spec)
        if same:
            return RegistrationResult(
                client, "unchanged", tuple(add_argv), f"{spec.name} is already registered"
            )
        wanted = claude_server_json(spec)
        return RegistrationResult(
            client,
            "conflict",
            tuple(add_argv),
            f"{client} already has a different (or unreadable) {spec.name} entry; remove it "
            f"with `{client} mcp remove {spec.name}` to register {wanted['command']}",
        )
    if not yes:
        if echo is not None:
            echo("(not run; pass --yes to run) $ " + " ".join(add_argv))
        return RegistrationResult(client, "planned", tuple(add_argv), "run with yes=True")
    done = run(add_argv)
    if done.returncode != 0:
        return RegistrationResult(
            client,
            "failed",
            tuple(add_argv),
            f"{client} exited with {done.returncode}",
            done.returncode,
        )
    return RegistrationResult(client, "registered", tuple(add_argv), "registered", 0)
