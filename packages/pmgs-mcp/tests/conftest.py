"""Shared fixtures: one small generated database per session, real servers on loopback ports.

Nothing here mocks the MCP SDK. Servers run as real subprocesses (``python -m pmgs_mcp``):
stdio servers are spawned by the SDK's own stdio client, HTTP servers are real uvicorn
processes on a free 127.0.0.1 port. The database (``reference``) and the ``store`` on it are
the shared kit's (``pmgs_testkit.pytest_plugin``, default scale): built once per
session from a synthetic package, so the tests know named example codes and documents.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pmgs_mcp_testkit import (
    TOKEN,
    HttpServer,
    Reference,
    start_http_server,
    stop_http_server,
)

pytest_plugins = ["pmgs_testkit.pytest_plugin"]


@pytest.fixture(scope="session")
def token_server(
    reference: Reference, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """HTTP server with every tool and a bearer token (from the environment variable)."""
    server = start_http_server(
        reference, tmp_path_factory.mktemp("token-server"), "--tools", "all", token=TOKEN
    )
    yield server
    stop_http_server(server)


@pytest.fixture(scope="session")
def open_server(
    reference: Reference, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """HTTP server with the default tools, no token, and one extra allowed origin."""
    server = start_http_server(
        reference,
        tmp_path_factory.mktemp("open-server"),
        "--allow-origin",
        "https://app.example",
    )
    yield server
    stop_http_server(server)
