"""pmgs-mcp: the MCP server over the pmgs reference (stdio, streamable HTTP, SSE).

The server answers only through :class:`pmgs_core.PMGSStore`; it is being built (see the
project's issues). Until then this package only carries its version.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pmgs-mcp")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
