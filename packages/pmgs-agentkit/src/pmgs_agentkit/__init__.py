"""pmgs-agentkit: Codex and Claude Code configuration, the shared skill and registration.

One server description (:func:`server_spec`) is rendered as Codex TOML and Claude Code JSON,
the one ``pmgs-reference`` skill is installed for both clients, and registration goes
through each client's own CLI. ``agent_kit_main`` and ``install_agent_skill_main`` are the
``pmgs.commands`` entry points behind ``pmgs agent-kit`` and ``pmgs install-agent-skill``.
See ADR 0001.
"""

from pmgs_agentkit.cli import agent_kit_main, install_agent_skill_main
from pmgs_agentkit.config import (
    CLIENTS,
    SERVER_NAME,
    AgentKitError,
    Client,
    ServerSpec,
    claude_add_json_argv,
    claude_mcp_json,
    claude_server_json,
    codex_add_argv,
    codex_config_toml,
    resolve_python_executable,
    server_spec,
)
from pmgs_agentkit.kit import AgentKitReport, write_agent_kit
from pmgs_agentkit.register import RegistrationResult, Runner, register_server
from pmgs_agentkit.skills import (
    SKILL_NAME,
    SkillInstallResult,
    install_skill,
    skill_files,
    skills_dir,
)
from pmgs_core import distribution_version

__version__ = distribution_version("pmgs-agentkit")

__all__ = [
    "CLIENTS",
    "SERVER_NAME",
    "SKILL_NAME",
    "AgentKitError",
    "AgentKitReport",
    "Client",
    "RegistrationResult",
    "Runner",
    "ServerSpec",
    "SkillInstallResult",
    "__version__",
    "agent_kit_main",
    "claude_add_json_argv",
    "claude_mcp_json",
    "claude_server_json",
    "codex_add_argv",
    "codex_config_toml",
    "install_agent_skill_main",
    "install_skill",
    "register_server",
    "resolve_python_executable",
    "server_spec",
    "skill_files",
    "skills_dir",
    "write_agent_kit",
]
