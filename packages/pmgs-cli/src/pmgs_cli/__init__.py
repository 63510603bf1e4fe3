"""pmgs-cli: the ``pmgs`` command.

Human output goes through Rich; every command also has ``--json``, which prints exactly the
record shapes of pmgs-core. Subcommands from other packages are found through the
``pmgs.commands`` entry-point group, so this package never imports them.
"""

from importlib.metadata import PackageNotFoundError, version

from pmgs_cli.app import main

try:
    __version__ = version("pmgs-cli")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "main"]
