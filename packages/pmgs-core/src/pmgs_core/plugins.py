"""The contract between the ``pmgs`` command and the packages that add subcommands to it.

pmgs-mcp and pmgs-agentkit publish subcommands (``pmgs mcp``, ``pmgs agent-kit`` …) without
pmgs-cli importing them: each publishes an entry point in :data:`COMMAND_ENTRY_POINT_GROUP`
whose object is a :data:`CommandMain`. Keeping the contract here, in the package every other
one already depends on, means no provider needs the CLI's argument library.
"""

from collections.abc import Callable, Sequence

COMMAND_ENTRY_POINT_GROUP = "pmgs.commands"
"""Entry-point group scanned by ``pmgs`` for subcommands; the entry-point name is the subcommand."""

CommandMain = Callable[[Sequence[str] | None], int]
"""A subcommand: takes the arguments after the subcommand name, returns the exit code.

Its docstring's first line is shown by ``pmgs --help``; it parses its own options and prints
its own help for ``--help``.
"""
