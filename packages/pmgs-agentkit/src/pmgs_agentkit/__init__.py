"""pmgs-agentkit: Codex and Claude Code configuration, the shared skill and registration.

It configures the pmgs-mcp server for AI coding agents; it is being built (see the
project's issues). Until then this package only carries its version.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pmgs-agentkit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
