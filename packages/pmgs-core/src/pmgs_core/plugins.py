"""The contracts between packages that meet only through entry points.

pmgs-mcp and pmgs-agentkit publish subcommands (``pmgs mcp``, ``pmgs agent-kit`` …) without
pmgs-cli importing them: each publishes an entry point in :data:`COMMAND_ENTRY_POINT_GROUP`
whose object is a :data:`CommandMain`. Likewise pmgs-web offers its viewer to the MCP HTTP
server through :data:`MOUNT_ENTRY_POINT_GROUP` (a :data:`MountFactory`), so pmgs-mcp mounts it
when it is installed without importing it. Keeping the contracts here, in the package every
other one already depends on, means no provider needs the CLI's argument library or the
server's web framework (ADR 0001).
"""

import logging
from collections.abc import Callable, Sequence

COMMAND_ENTRY_POINT_GROUP = "pmgs.commands"
"""Entry-point group scanned by ``pmgs`` for subcommands; the entry-point name is the subcommand."""

CommandMain = Callable[[Sequence[str] | None], int]
"""A subcommand: takes the arguments after the subcommand name, returns the exit code.

Its docstring's first line is shown by ``pmgs --help``; it parses its own options and prints
its own help for ``--help``.
"""


MOUNT_ENTRY_POINT_GROUP = "pmgs.mounts"
"""Entry-point group of web apps the MCP HTTP server mounts beside ``/mcp``; the entry-point
name is the path (``web`` → ``/web``)."""

MountFactory = Callable[[object], object | None]
"""A mount: given the server's open store, returns an ASGI app over it, or None when it
cannot serve that store. The store stays the caller's to close."""


def mount_factories() -> list[tuple[str, MountFactory]]:
    """The installed mounts, by name, in name order; one that cannot be loaded is left out
    (an optional package half installed must not stop the server)."""
    from importlib.metadata import entry_points

    found: list[tuple[str, MountFactory]] = []
    for point in sorted(entry_points(group=MOUNT_ENTRY_POINT_GROUP), key=lambda p: p.name):
        try:
            found.append((point.name, point.load()))
        except Exception:  # any import failure means "not installed"
            logging.getLogger(__name__).warning("mount %s not loaded", point.name, exc_info=True)
    return found


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
