"""The contract between the ``pmgs`` command and the packages that add subcommands to it.

pmgs-mcp and pmgs-agentkit publish subcommands (``pmgs mcp``, ``pmgs agent-kit`` …) without
pmgs-cli importing them: each publishes an entry point in :data:`COMMAND_ENTRY_POINT_GROUP`
whose object is a :data:`CommandMain`. Keeping the contract here, in the package every other
one already depends on, means no provider needs the CLI's argument library (ADR 0001).
"""

from collections.abc import Callable, Sequence

COMMAND_ENTRY_POINT_GROUP = "pmgs.commands"
"""Entry-point group scanned by ``pmgs`` for subcommands; the entry-point name is the subcommand."""

CommandMain = Callable[[Sequence[str] | None], int]
"""A subcommand: takes the arguments after the subcommand name, returns the exit code.

Its docstring's first line is shown by ``pmgs --help``; it parses its own options and prints
its own help for ``--help``.
"""


def distribution_version(name: str) -> str:
    """The installed version of the pmgs distribution ``name`` (``0+unknown`` from a source
    tree never installed): one rule for every package's ``__version__``.

    importlib.metadata is imported here, not at module level: it costs ~70 ms, which a cold
    ``pmgs lookup`` does not pay unless it asks for a version.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "0+unknown"
