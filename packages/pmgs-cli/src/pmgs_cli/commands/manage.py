"""``pmgs setup | build | validate``: making and checking reference databases.

The work is done by pmgs-build (``setup_release``, ``build_database``,
``validate_database``); this module parses options, draws progress on stderr, and prints the
report. pmgs-build is imported inside the commands so that query commands never load it (ADR 0003).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

import click

from pmgs_cli.common import CliFailure, emit_json, handle_errors
from pmgs_cli.exits import EXIT_NEGATIVE, EXIT_OK, EXIT_USAGE

__all__ = ["build", "register_agents", "setup", "validate"]


def register_agents(client: str, data_dir: Path) -> dict[str, Any]:
    """Delegate agent registration to pmgs-agentkit's published ``install-agent-skill``.

    pmgs-cli never imports pmgs-agentkit: it runs the entry point through ``python -m
    pmgs_cli`` in a child process, exactly as a user would, asking it to install the skill
    and register the MCP server (with this environment's Python, which is stable: it is the
    one running ``pmgs``), and relays the per-client results of its JSON report.
    """
    import json
    from importlib.metadata import entry_points

    from pmgs_core import COMMAND_ENTRY_POINT_GROUP

    names = {ep.name for ep in entry_points(group=COMMAND_ENTRY_POINT_GROUP)}
    if "install-agent-skill" not in names:
        return {
            "status": "unavailable",
            "message": "pmgs-agentkit is not installed; install it to register Codex / "
            "Claude Code, or use --client none",
        }
    command = [
        sys.executable,
        "-m",
        "pmgs_cli",
        "install-agent-skill",
        "--client",
        client,
        "--register",
        "--yes",
        "--data-dir",
        str(data_dir.resolve()),
        "--python-executable",
        sys.executable,
        "--json",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)  # noqa: S603
    try:
        details = json.loads(result.stdout)
    except ValueError:
        details = {}
    return {
        "status": "done" if result.returncode == 0 else "failed",
        "exit_code": result.returncode,
        "skills": details.get("skills", []),
        "registrations": details.get("registrations", []),
    }


def _print_setup(report: dict[str, Any], data_dir: Path) -> None:
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_row("status", f"[bold green]{report['status']}[/bold green]")
    grid.add_row("data dir", str(data_dir))
    for key in ("release", "reference_date", "source_kind", "source_files", "database"):
        grid.add_row(key, str(report.get(key)))
    grid.add_row("source bytes", f"{report['source_bytes']:,}")
    if report.get("release_path"):
        grid.add_row("release found in", str(report["release_path"]))
    if report.get("ignored"):
        grid.add_row("ignored", _ignored_line(report["ignored"]))
    grid.add_row(
        "free / required",
        f"{report['free_bytes']:,} / {report['required_free_bytes']:,} bytes (3 × source + 1 GiB)",
    )
    if report.get("database_bytes"):
        grid.add_row("database bytes", f"{report['database_bytes']:,}")
    if report.get("quarantine_count") is not None:
        count = report["quarantine_count"]
        grid.add_row(
            "quarantined",
            f"{count:,} records (see `pmgs quarantine`)" if count else "none",
        )
    if report.get("previous"):
        grid.add_row("previous", str(report["previous"].get("database")))
    if report.get("run_report"):
        grid.add_row("run report", str(report["run_report"]))
    registration = report.get("registration")
    if registration:
        grid.add_row("registration", str(registration.get("status")))
        if registration.get("message"):
            grid.add_row("", str(registration["message"]))
    Console().print(Panel(grid, title="pmgs setup", title_align="left"))


_quarantine_budget_option = click.option(
    "--quarantine-budget",
    type=click.FloatRange(0, 1),
    default=None,
    metavar="SHARE",
    help="Share (0-1) of a data group's records that may be quarantined before the build "
    "refuses the package with FORMAT_NOT_RECOGNISED (default 0.01; 1: never refuse, build "
    "with every unreadable record quarantined and listed by `pmgs quarantine`). Conflicts "
    "with --strict.",
)
_pdf_timeout_option = click.option(
    "--pdf-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds one definition PDF may take before its worker is killed (PDF_TIMEOUT).",
)


def _ignored_line(ignored: list[str]) -> str:
    """What the source held besides the release, not read: a few names and the count."""
    shown = ", ".join(ignored[:5])
    more = f" and {len(ignored) - 5} more" if len(ignored) > 5 else ""
    return f"{len(ignored)} beside the release or left by a system, not read: {shown}{more}"


def _check_conflict(strict: bool, quarantine_budget: float | None) -> None:
    if strict and quarantine_budget is not None:
        raise CliFailure(
            "OPTIONS_CONFLICT",
            "--strict refuses every record that would be quarantined and --quarantine-budget "
            "says how many may be: give one of them",
            exit_code=EXIT_USAGE,
        )


class _Limits(TypedDict):
    """How a build treats records it cannot read with certainty, as the builders take it."""

    strict: bool
    quarantine_budget: float | None
    pdf_timeout: float


def _limits_options(strict_help: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--strict``, ``--quarantine-budget`` and ``--pdf-timeout``, checked together and given
    to the command as one ``limits`` (``setup`` and ``build`` pass them on unchanged)."""

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(command)
        def run(
            *args: Any,
            strict: bool,
            quarantine_budget: float | None,
            pdf_timeout: float,
            **kwargs: Any,
        ) -> None:
            _check_conflict(strict, quarantine_budget)
            limits: _Limits = {
                "strict": strict,
                "quarantine_budget": quarantine_budget,
                "pdf_timeout": pdf_timeout,
            }
            command(*args, limits=limits, **kwargs)

        strict_option = click.option("--strict", is_flag=True, help=strict_help)
        return strict_option(_quarantine_budget_option(_pdf_timeout_option(run)))

    return decorate


@click.command()
@click.argument("source", type=click.Path(path_type=Path, exists=False))
@click.option("--data-dir", type=click.Path(path_type=Path, file_okay=False), default=None)
@click.option("--release", default=None, help="Override the release id (JPPM…).")
@click.option("--dry-run", is_flag=True, help="Write nothing; report what would be done.")
@click.option(
    "--client",
    type=click.Choice(["codex", "claude", "both", "none"]),
    default="none",
    show_default=True,
    help="AI clients to register with (needs pmgs-agentkit).",
)
@click.option("--register/--no-register", default=True, show_default=True)
@click.option(
    "--mcp-check/--no-mcp-check",
    default=True,
    show_default=True,
    help="Before activating, serve the new database over MCP stdio and query it "
    "(skipped when pmgs-mcp is not installed).",
)
@handle_errors  # outermost: it also reports a conflict of the limits
@_limits_options(
    "Refuse the package if any record would be quarantined (by default such records are "
    "kept aside, counted, and the rest is built)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the setup report as JSON.")
@click.option("--debug", is_flag=True)
def setup(
    source: Path,
    data_dir: Path | None,
    release: str | None,
    dry_run: bool,
    client: str,
    register: bool,
    mcp_check: bool,
    limits: _Limits,
    as_json: bool,
    debug: bool,
) -> None:
    """Build, validate and activate a PMGS package (directory or ZIP) as the current release.

    Any failure leaves state/current.json and every existing database unchanged. The same
    source again reports already_ready and rewrites nothing. Records that cannot be read
    with certainty are quarantined and counted (`pmgs quarantine` lists them) unless
    --strict; a data group with more than 1 % of them (--quarantine-budget) stops with
    FORMAT_NOT_RECOGNISED.
    """
    from pmgs_build import setup_release
    from pmgs_cli.progress import progress_ui
    from pmgs_core import default_data_dir

    root = data_dir if data_dir is not None else default_data_dir()
    doctor = None
    if mcp_check:
        from pmgs_cli.commands.doctor import mcp_check_database

        doctor = mcp_check_database
    with progress_ui() as ui:
        report = setup_release(
            source,
            root,
            release=release,
            dry_run=dry_run,
            progress=ui.event,
            on_stage=ui.stage,
            doctor=doctor,
            **limits,
        )
    data = report.to_dict()
    if not dry_run and register and client != "none":
        data["registration"] = register_agents(client, root)
    elif not dry_run:
        data["registration"] = {"status": "skipped"}
    if as_json:
        emit_json(data)
    else:
        _print_setup(data, root)
    sys.exit(EXIT_OK)


@click.command()
@click.argument("source", type=click.Path(path_type=Path))
@click.argument("output", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--release", default=None, help="Override the release id (JPPM…).")
@handle_errors  # outermost: it also reports a conflict of the limits
@_limits_options("Make every record that would be quarantined an error.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--debug", is_flag=True)
def build(
    source: Path,
    output: Path,
    release: str | None,
    limits: _Limits,
    as_json: bool,
    debug: bool,
) -> None:
    """Build a database file from a package directory or its ZIP (no activation).

    Use `pmgs setup` to install a release; `build` is for inspecting and benchmarking.
    Records that cannot be read with certainty are quarantined (see `pmgs quarantine --db`)
    unless --strict; a data group with more than 1 % of them (--quarantine-budget) stops
    with FORMAT_NOT_RECOGNISED.
    """
    from pmgs_build import BuildError, build_database
    from pmgs_cli.progress import progress_ui

    try:
        with progress_ui() as ui:
            report = build_database(
                source,
                output,
                release=release,
                progress=ui.event,
                **limits,
            )
    except BuildError as exc:
        issues = [
            {
                "severity": i.severity,
                "code": i.code,
                "message": i.message,
                "source_path": i.source_path,
            }
            for i in exc.issues
        ]
        first = exc.issues[0]
        raise CliFailure(
            "BUILD_FAILED",
            f"the package could not be built: {first.code}: {first.message}",
            details={"issues": issues[:50], "issue_count": len(issues)},
        ) from None
    data = report.to_dict()
    if as_json:
        emit_json(data)
        return
    click.echo(
        f"built {data['release']} ({data['database_bytes']:,} bytes, "
        f"{data['warning_count']} warnings, {data['quarantine_count']} quarantined) "
        f"in {data['seconds']} s"
    )
    if data["ignored"]:
        click.echo(f"ignored: {_ignored_line(data['ignored'])}")


@click.command()
@click.argument("database", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Check the current database of this managed data directory (without DATABASE).",
)
@click.option("--json", "as_json", is_flag=True)
@click.option("--debug", is_flag=True)
@handle_errors
def validate(database: Path | None, data_dir: Path | None, as_json: bool, debug: bool) -> None:
    """Check a database: pages, foreign keys, search indexes, release, row counts, IPC validity.

    DATABASE is a file; without it, the database the query commands would open (--data-dir,
    $PMGS_REFERENCE_DB, the default data directory's pointer). Every check prints the figure
    it measured. The file is checked on a temporary copy (FTS checks need a writable file; a
    database is never opened for writing). Exit 0 when every check passes, 1 otherwise.
    """
    from pmgs_build import validate_database
    from pmgs_core import resolve_database

    if database is not None and data_dir is not None:
        raise CliFailure("INVALID_ARGUMENT", "give DATABASE or --data-dir, not both")
    database = resolve_database(database, data_dir=data_dir).path
    report = validate_database(database)
    data = report.to_dict()
    if as_json:
        emit_json(data)
    else:
        for check in data["checks"]:
            mark = "ok  " if check["ok"] else "FAIL"
            line = f"{mark} {check['name']}: {check['figure']}"
            click.echo(f"{line} ({check['detail']})" if check["detail"] else line)
        click.echo("valid" if report.ok else "INVALID")
    sys.exit(EXIT_OK if report.ok else EXIT_NEGATIVE)
