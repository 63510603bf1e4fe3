"""The ``pmgs agent-kit`` and ``pmgs install-agent-skill`` commands (``pmgs.commands`` plugins).

pmgs-cli finds these through the entry-point group and calls ``main(argv) -> int``; they use
argparse so this package adds no CLI framework. Exit codes (the ``pmgs`` table of
docs/cli.md): 0 success (including no-op), 1 a conflict or a failed registration (a
negative answer, its report printed), 2 usage errors and refusals (``OUTPUT_EXISTS``,
unstable Python), each with an ``error CODE:`` and a ``hint:`` line as ``pmgs`` prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pmgs_agentkit.config import CLIENTS, AgentKitError, Client, server_spec, shell_join
from pmgs_agentkit.kit import write_agent_kit
from pmgs_agentkit.register import RegistrationResult, register_server
from pmgs_agentkit.skills import install_skill

__all__ = ["EXIT_CONFLICT", "EXIT_OK", "EXIT_USAGE", "agent_kit_main", "install_agent_skill_main"]

EXIT_OK = 0
EXIT_CONFLICT = 1
EXIT_USAGE = 2


def _clients(choice: str) -> tuple[Client, ...]:
    return CLIENTS if choice == "both" else (choice,)  # type: ignore[return-value]


def _emit(data: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(text + "\n")


_HINTS: Final = {
    "OUTPUT_EXISTS": "Give --output a directory that does not exist yet (agent-kit never "
    "writes into an existing one).",
    "PYTHON_NOT_FOUND": "Pass --python-executable with the absolute path of the Python of "
    "the environment pmgs is installed in (e.g. /path/to/.venv/bin/python).",
    "PYTHON_NOT_ABSOLUTE": "Pass --python-executable as an absolute path.",
    "PYTHON_IN_CACHE": "Install pmgs into a project or tool environment (uv sync, uv tool "
    "install) and pass that environment's Python with --python-executable.",
}


def _refuse(error: AgentKitError, as_json: bool) -> int:
    """An error as ``pmgs`` reports one: ``error CODE: message`` and ``hint: …`` on stderr
    (``--json``: the same in an error record on stdout), exit 2."""
    hint = _HINTS.get(error.code, "See `pmgs agent-kit --help` and docs/agents.md.")
    if as_json:
        _emit({"status": "error", "error": error.to_dict(), "hint": hint}, True, "")
    sys.stderr.write(f"error {error.code}: {error.message}\nhint: {hint}\n")
    return EXIT_USAGE


def _data_dir_warnings(data_dir: str) -> list[str]:
    """Warn when the configs will point at a data directory with no database yet: the
    agents would start a server that cannot open one."""
    if (Path(data_dir) / "state" / "current.json").is_file():
        return []
    return [
        f"{data_dir} holds no database yet (no state/current.json): run "
        f"`pmgs setup SOURCE --data-dir {data_dir}` before starting the agents, or pass "
        "--data-dir with the directory you set up"
    ]


def _add_mcp_tools_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mcp-tools",
        choices=("default", "all"),
        default="default",
        help="tools of the registered server: default (lookup_classification, search_pmgs, "
        "get_pmgs_document) or all (also the browse tools and check_classification_codes, "
        "which checks a search formula's codes before an agent proposes it)",
    )


def agent_kit_main(argv: Sequence[str] | None = None) -> int:
    """Write agent configs, the skill and registration commands into a new directory.

    ``pmgs agent-kit --output DIR --client codex|claude|both``: everything lands in a fresh
    directory for review, so nothing in the user's agent setup changes behind their back.
    """
    parser = argparse.ArgumentParser(
        prog="pmgs agent-kit",
        description="Write Codex TOML, Claude Code JSON, the shared skill and the registration "
        "commands into a NEW directory for review (an existing one is refused: OUTPUT_EXISTS, "
        "exit 2).",
    )
    parser.add_argument("--output", required=True, help="directory to create")
    parser.add_argument("--client", choices=("codex", "claude", "both"), default="both")
    parser.add_argument("--data-dir", help="managed data directory (default: the OS one)")
    parser.add_argument(
        "--python-executable",
        help="absolute Python of a stable environment (default: this Python)",
    )
    _add_mcp_tools_option(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args(argv)
    try:
        spec = server_spec(
            data_dir=args.data_dir,
            python_executable=args.python_executable,
            tools=args.mcp_tools,
        )
        report = write_agent_kit(args.output, spec, _clients(args.client))
    except AgentKitError as error:
        return _refuse(error, args.json)
    warnings = _data_dir_warnings(spec.data_dir)
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    text = "\n".join([f"agent kit written to {report.output}", *report.files])
    _emit({**report.to_dict(), "warnings": warnings}, args.json, text)
    return EXIT_OK


def _registration_lines(result: RegistrationResult) -> list[str]:
    """One line per client, then the add command itself when it is the person's to run.

    "Run this command" without the command sends nobody anywhere: a client not on PATH or
    a registration planned without --yes prints the exact command line.
    """
    message = result.message
    if result.status == "planned":
        message = "not run; pass --yes to run it, or run it yourself"
    lines = [f"{result.client}: server {result.status}: {message}"]
    if result.status in ("not_installed", "planned"):
        lines.append("  " + shell_join(list(result.argv)))
    return lines


def install_agent_skill_main(argv: Sequence[str] | None = None) -> int:
    """Install the pmgs skill for Codex and/or Claude Code (and optionally register MCP).

    ``pmgs install-agent-skill --client codex|claude|both [--register [--yes]]``; idempotent,
    and a different skill of the same name is reported as a conflict, never overwritten.
    """
    parser = argparse.ArgumentParser(
        prog="pmgs install-agent-skill",
        description="Install the pmgs-reference skill into each client's personal skills "
        "directory ($CODEX_HOME/skills, $CLAUDE_CONFIG_DIR/skills). Identical content is a "
        "no-op; a different skill of the same name is never overwritten (conflict, exit 1).",
    )
    parser.add_argument("--client", choices=("codex", "claude", "both"), default="both")
    parser.add_argument(
        "--register",
        action="store_true",
        help="also register the MCP server through the client's CLI (planned only without --yes)",
    )
    parser.add_argument("--yes", action="store_true", help="run the registration commands")
    parser.add_argument("--data-dir", help="managed data directory for --register")
    parser.add_argument("--python-executable", help="absolute Python for --register")
    _add_mcp_tools_option(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args(argv)
    clients = _clients(args.client)
    skills = [install_skill(client) for client in clients]
    report: dict[str, Any] = {"skills": [result.to_dict() for result in skills]}
    lines = [f"{r.client}: skill {r.status} ({r.path})" for r in skills]
    failed = any(r.status == "conflict" for r in skills)
    if args.register:

        def echo(line: str) -> None:
            if not args.json:
                sys.stderr.write(line + "\n")

        try:
            registrations = [
                register_server(
                    client,
                    data_dir=args.data_dir,
                    python_executable=args.python_executable,
                    yes=args.yes,
                    echo=echo,
                    tools=args.mcp_tools,
                )
                for client in clients
            ]
        except AgentKitError as error:
            return _refuse(error, args.json)
        report["registrations"] = [r.to_dict() for r in registrations]
        lines += [line for r in registrations for line in _registration_lines(r)]
        failed = failed or any(r.status in ("conflict", "failed") for r in registrations)
    report["status"] = "conflict" if failed else "ok"
    _emit(report, args.json, "\n".join(lines))
    return EXIT_CONFLICT if failed else EXIT_OK
