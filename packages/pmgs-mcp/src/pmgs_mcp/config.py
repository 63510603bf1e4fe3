"""Settings of the HTTP transport, kept apart from the HTTP stack so the CLI can parse cheaply.

Importing this module pulls in no web framework: the stdio path reads the defaults from here
without loading Starlette's routing, SSE or uvicorn (ADR 0005).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from pmgs_mcp.security import DEFAULT_MAX_BODY_BYTES, default_allowed_hosts, default_allowed_origins

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "HttpSettings"]

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 3001

ENV_TOKEN: Final = "PMGS_MCP_TOKEN"  # noqa: S105 - the variable name, not a secret
"""The bearer token, when not given with ``--token`` (keeps it out of the process list)."""
ENV_HOST: Final = "PMGS_MCP_HOST"
ENV_PORT: Final = "PMGS_MCP_PORT"
ENV_ALLOWED_HOSTS: Final = "PMGS_MCP_ALLOWED_HOSTS"
ENV_ALLOWED_ORIGINS: Final = "PMGS_MCP_ALLOWED_ORIGINS"
ENV_MAX_BODY_BYTES: Final = "PMGS_MCP_MAX_BODY_BYTES"
ENV_TOOLS: Final = "PMGS_MCP_TOOLS"
ENV_DB: Final = "PMGS_MCP_DB"
ENV_DATA_DIR: Final = "PMGS_MCP_DATA_DIR"
ENV_WORKERS: Final = "PMGS_MCP_WORKERS"
"""How many worker processes serve the port (each worker needs it for the SSE rule)."""
ENV_NO_SSE: Final = "PMGS_MCP_NO_SSE"
ENV_EXPECT_SHA256: Final = "PMGS_MCP_EXPECT_SHA256"


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """How the HTTP app checks its callers. Extra hosts/origins add to the loopback defaults."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    extra_allowed_hosts: tuple[str, ...] = ()
    extra_allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    version_info: Mapping[str, str] = field(default_factory=dict)
    workers: int = 1
    no_sse: bool = False
    expect_sha256: str | None = None

    @property
    def allowed_hosts(self) -> list[str]:
        hosts = default_allowed_hosts(self.host, self.port)
        return list(dict.fromkeys([*hosts, *(h.lower() for h in self.extra_allowed_hosts)]))

    @property
    def allowed_origins(self) -> list[str]:
        origins = default_allowed_origins(self.allowed_hosts)
        extra = (o.lower().rstrip("/") for o in self.extra_allowed_origins)
        return list(dict.fromkeys([*origins, *extra]))
