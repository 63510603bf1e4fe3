"""The ``pmgs`` command group and the discovery of subcommands published by other packages.

See ADR 0001.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from pmgs_cli.commands.check import check
from pmgs_cli.commands.demo import demo
from pmgs_cli.commands.diff import diff
from pmgs_cli.commands.doctor import doctor
from pmgs_cli.commands.manage import build, setup, validate
from pmgs_cli.commands.notes import notes
from pmgs_cli.commands.query import document, hierarchy, lookup, quarantine, release, search
from pmgs_cli.exits import output_failed, quiet_broken_pipe, stdout_broken, write_failed
from pmgs_core import COMMAND_ENTRY_POINT_GROUP, CommandMain

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

EXIT_USAGE = 2
"""Exit code of a usage error (click's own convention, kept for every command)."""


def _plugin_entry_points() -> dict[str, EntryPoint]:
    """Index the published subcommands by name; the first distribution to claim a name wins.

    importlib.metadata is imported here, not at module level: built-in commands never need
    it, and it is a large part of a cold start.
    """
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=COMMAND_ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def _plugin_summary(ep: EntryPoint) -> str:
    """The first line of the provider's docstring, for ``pmgs --help``.

    Loading the entry point imports only the provider's package (the published providers
    keep their heavy dependencies inside ``main``), and only when help is listed.
    """
    try:
        target = ep.load()
    except Exception:  # a broken plugin must not break pmgs --help
        return f"(cannot be loaded; reinstall {ep.dist.name if ep.dist else ep.value})"
    doc = (getattr(target, "__doc__", None) or "").strip()
    first = doc.splitlines()[0].strip() if doc else ""
    origin = ep.dist.name if ep.dist else ep.value
    return first or f"Provided by {origin}."


class _PluginCommand(click.Command):
    """A subcommand published by another package, described lazily from its docstring."""

    def __init__(self, ep: EntryPoint) -> None:
        self._ep = ep

        def run(args: tuple[str, ...]) -> None:
            target: CommandMain = ep.load()
            sys.exit(target(list(args)))

        super().__init__(
            name=ep.name,
            callback=run,
            params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
            context_settings={"ignore_unknown_options": True, "help_option_names": []},
            add_help_option=False,
        )

    def get_short_help_str(self, limit: int = 45) -> str:
        if self.help is None:
            self.help = _plugin_summary(self._ep)
        return super().get_short_help_str(limit)


def _plugin_command(ep: EntryPoint) -> click.Command:
    """Wrap a provider's ``main(argv) -> int`` so that it parses its own arguments.

    The provider is imported only when its subcommand runs (or help is listed), which keeps
    heavy dependencies (the MCP SDK, for example) off the path of ``pmgs lookup``.
    """
    return _PluginCommand(ep)


class PmgsGroup(click.Group):
    """A click group that lists built-in commands and those published through entry points."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_plugin_entry_points()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        builtin = super().get_command(ctx, cmd_name)  # built-ins: no entry-point scan
        if builtin is not None:
            return builtin
        ep = _plugin_entry_points().get(cmd_name)
        return _plugin_command(ep) if ep is not None else None


@click.group(cls=PmgsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pmgs-cli", prog_name="pmgs")
def cli() -> None:
    """pmgs: a local, read-only reference of the Japanese patent classifications.

    FI, F-term and every IPC edition, with the handbooks, explanations, revision documents
    and IPC definitions of the JPO PMGS package, answered with their sources.
    """


for _command in (
    setup,
    build,
    validate,
    doctor,
    lookup,
    search,
    document,
    hierarchy,
    release,
    quarantine,
    demo,
    notes,
    check,
    diff,
):
    cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pmgs`` and return its exit code instead of exiting (for tests and embedding).

    Commands end with ``sys.exit`` (so that a code reaches the shell from deep inside a
    renderer); that exit is caught here and returned like every other outcome. The console
    script passes the code to ``sys.exit``.
    """
    _portable_streams()
    if argv is None:
        argv = sys.argv[1:]
    argv = [_utf8_argument(arg) for arg in argv]
    try:
        code = _run(argv)
        if stdout_broken():  # what is still buffered must reach stdout before the answer counts
            return output_failed()
        return code
    except SystemExit as exc:  # quiet_broken_pipe
        return _exit_status(exc.code)
    except OSError as exc:  # click's own output (help, usage) to a stdout that refuses it
        if not write_failed(exc):
            raise
        return output_failed(exc)


def _portable_streams() -> None:
    """Under a locale that is not UTF-8 (``LC_ALL=C`` without Python's coercion), write what
    the encoding cannot hold as ``\\uXXXX``: Japanese text stays readable, and JSON stays JSON
    (an escape of the same text), instead of a failed write."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not isinstance(encoding, str) or reconfigure is None:
            continue
        try:
            if codecs.lookup(encoding).name != "utf-8":
                reconfigure(errors="backslashreplace")
        except (LookupError, ValueError, OSError):  # pragma: no cover - an exotic stream
            continue


def _utf8_argument(arg: str) -> str:
    """An argument as the UTF-8 text it was typed in, when a non-UTF-8 locale decoded its
    bytes into surrogates (``pmgs search 電池`` under ``LC_ALL=C``)."""
    if not any("\udc80" <= char <= "\udcff" for char in arg):
        return arg
    try:
        return os.fsencode(arg).decode("utf-8")
    except (UnicodeError, ValueError):
        return arg


def _run(argv: Sequence[str] | None) -> int:
    try:
        result: Any = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except SystemExit as exc:
        return _exit_status(exc.code)
    except click.ClickException as exc:
        exc.show()
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except BrokenPipeError:
        quiet_broken_pipe()
    return int(result) if isinstance(result, int) else 0


def _exit_status(code: object) -> int:
    """The status the interpreter would exit with for ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    click.echo(str(code), err=True)
    return 1
