"""pmgs-mcp: the MCP server over the pmgs reference (stdio, streamable HTTP, SSE; ADR 0005).

It answers only through :class:`pmgs_core.PMGSStore`; see ``docs/mcp.md``. Importing this
package is cheap: the SDK is imported only when :func:`main` runs, so ``pmgs`` can list the
``mcp`` subcommand without paying for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pmgs_core import distribution_version

__version__ = distribution_version("pmgs-mcp")

__all__ = ["__version__", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the pmgs reference to AI agents over MCP (stdio, streamable HTTP, SSE)."""
    from pmgs_mcp.cli import main as cli_main

    return cli_main(argv)
