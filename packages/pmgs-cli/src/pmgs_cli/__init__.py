"""pmgs-cli: the ``pmgs`` command.

Human output goes through Rich; every command also has ``--json``, which prints exactly the
record shapes of pmgs-core. Subcommands from other packages are found through the
``pmgs.commands`` entry-point group, so this package never imports them (ADR 0001).
"""

from typing import Any

from pmgs_cli.app import main


def __getattr__(name: str) -> Any:
    """``__version__`` on demand: importlib.metadata costs ~70 ms, too much for a cold lookup."""
    if name == "__version__":
        from pmgs_core import distribution_version

        return distribution_version("pmgs-cli")
    raise AttributeError(name)


__all__ = ["__version__", "main"]
