"""One description of the pmgs MCP server, rendered in each client's own format.

Codex and Claude Code keep their MCP settings in different formats (TOML in
``config.toml``, JSON in ``~/.claude.json`` / ``.mcp.json``). Everything here derives from a
single :class:`ServerSpec`, so the two configurations can never disagree about which Python
runs the server or which data directory it serves (ADR 0001).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import tomli_w

__all__ = [
    "CLIENTS",
    "SERVER_NAME",
    "AgentKitError",
    "Client",
    "McpTools",
    "ServerSpec",
    "claude_add_json_argv",
    "claude_mcp_json",
    "claude_server_json",
    "codex_add_argv",
    "codex_config_toml",
    "resolve_python_executable",
    "server_spec",
]

SERVER_NAME: Final = "pmgs-reference"
"""The MCP server name both clients register; the skill refers to its tools by this name."""

Client = Literal["codex", "claude"]
CLIENTS: Final[tuple[Client, ...]] = ("codex", "claude")

# Codex waits 10 s for a server to start by default; a cold Python start on a slow disk (or a
# first start after an upgrade compiling bytecode) can come close, so leave headroom.
CODEX_STARTUP_TIMEOUT_SEC: Final = 30
CODEX_TOOL_TIMEOUT_SEC: Final = 60

_CACHE_MARKERS: Final = ("/.cache/uv/", "uv/cache", "archive-v0")


class AgentKitError(Exception):
    """A refusal with a stable ``code`` that scripts (and pmgs setup) can match on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def resolve_python_executable(path: str | os.PathLike[str] | None = None) -> str:
    """Return the absolute Python the clients should start, or refuse an unstable one.

    The clients start the server long after this command has exited, from another working
    directory and often with another PATH. A relative or bare ``python`` would then name a
    different interpreter (or none), and an interpreter inside uv's cache (``uv run --with``,
    ``uvx``) disappears when the cache is pruned. Symlinks are deliberately not resolved: a
    virtual environment's ``bin/python`` is a symlink whose target does not see the venv.
    """
    raw = os.fspath(path) if path is not None else sys.executable
    if not raw:
        raise AgentKitError("PYTHON_NOT_FOUND", "no Python executable is known for this process")
    if not os.path.isabs(raw):
        raise AgentKitError(
            "PYTHON_NOT_ABSOLUTE",
            f"the Python executable must be an absolute path, not {raw!r}",
        )
    normalized = os.path.normpath(raw)
    marker_view = normalized.replace("\\", "/").lower()
    if any(marker in marker_view for marker in _CACHE_MARKERS):
        raise AgentKitError(
            "PYTHON_IN_CACHE",
            f"{normalized} lives in uv's cache, which can be pruned at any time; "
            "use the Python of a project or tool environment (for example .venv)",
        )
    if not os.path.isfile(normalized) or not os.access(normalized, os.X_OK):
        raise AgentKitError("PYTHON_NOT_FOUND", f"{normalized} is not an executable file")
    return normalized


McpTools = Literal["default", "all"]
"""Which tools the registered server offers (``pmgs mcp --tools``)."""


@dataclass(frozen=True)
class ServerSpec:
    """How to start the pmgs MCP server: an absolute Python and an absolute data directory."""

    python_executable: str
    data_dir: str
    name: str = SERVER_NAME
    tools: McpTools = "default"
    """``all`` starts the server with ``--tools all`` (the browse tools and
    ``check_classification_codes``); ``default`` keeps the contract's three tools."""

    @property
    def args(self) -> list[str]:
        tools = ["--tools", "all"] if self.tools == "all" else []
        return ["-m", "pmgs_mcp", "--data-dir", self.data_dir, *tools]

    @property
    def argv(self) -> list[str]:
        return [self.python_executable, *self.args]


def server_spec(
    *,
    data_dir: str | os.PathLike[str] | None = None,
    python_executable: str | os.PathLike[str] | None = None,
    tools: McpTools = "default",
) -> ServerSpec:
    """Build the server description, validating the Python and making the root absolute.

    ``data_dir`` defaults to the OS managed directory of the contract (the one ``pmgs setup``
    uses). It need not exist yet: a kit may be generated before the first setup.
    """
    if data_dir is None:
        from pmgs_core import default_data_dir

        root = str(default_data_dir())
    else:
        root = os.path.abspath(os.path.expanduser(os.fspath(data_dir)))
    return ServerSpec(
        python_executable=resolve_python_executable(python_executable),
        data_dir=str(Path(root)),
        tools=tools,
    )


def _codex_table(spec: ServerSpec) -> dict[str, Any]:
    return {
        "command": spec.python_executable,
        "args": spec.args,
        "startup_timeout_sec": CODEX_STARTUP_TIMEOUT_SEC,
        "tool_timeout_sec": CODEX_TOOL_TIMEOUT_SEC,
    }


def codex_config_toml(spec: ServerSpec) -> str:
    """The ``[mcp_servers.<name>]`` fragment to merge into Codex's ``config.toml``."""
    return tomli_w.dumps({"mcp_servers": {spec.name: _codex_table(spec)}})


def claude_server_json(spec: ServerSpec) -> dict[str, Any]:
    """The server object Claude Code stores (and ``claude mcp add-json`` accepts)."""
    return {"type": "stdio", "command": spec.python_executable, "args": spec.args}


def claude_mcp_json(spec: ServerSpec) -> dict[str, Any]:
    """The project-scoped ``.mcp.json`` form of the same server."""
    return {"mcpServers": {spec.name: claude_server_json(spec)}}


def codex_add_argv(spec: ServerSpec, executable: str = "codex") -> list[str]:
    """``codex mcp add <name> -- <python> -m pmgs_mcp --data-dir <root>``."""
    return [executable, "mcp", "add", spec.name, "--", *spec.argv]


def claude_add_json_argv(spec: ServerSpec, executable: str = "claude") -> list[str]:
    """``claude mcp add-json --scope user <name> '<json>'`` (user scope: every project)."""
    payload = json.dumps(claude_server_json(spec), ensure_ascii=False, separators=(",", ":"))
    return [executable, "mcp", "add-json", "--scope", "user", spec.name, payload]


def shell_join(argv: list[str]) -> str:
    """POSIX shell rendering of ``argv`` for documents a person copies from."""
    return shlex.join(argv)
