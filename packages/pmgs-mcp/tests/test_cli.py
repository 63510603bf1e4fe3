"""Entry points and the stdio wire: ``pmgs-mcp``, ``python -m pmgs_mcp``, ``pmgs mcp``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pmgs_mcp_testkit import Reference, server_command, start_http_server, stop_http_server

import pmgs_mcp
from pmgs_core import COMMAND_ENTRY_POINT_GROUP, PMGSStore


def _bin(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found is not None, f"{name} is not installed next to {sys.executable}"
    return found


def test_the_pmgs_commands_entry_point_is_main() -> None:
    found = [ep for ep in entry_points(group=COMMAND_ENTRY_POINT_GROUP) if ep.name == "mcp"]
    assert len(found) == 1
    assert found[0].load() is pmgs_mcp.main
    assert pmgs_mcp.main.__doc__


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "pmgs_mcp"],
        ["pmgs-mcp"],
        ["pmgs", "mcp"],
    ],
)
def test_every_entry_point_accepts_db_and_data_dir(command: list[str]) -> None:
    if command[0] != sys.executable:
        command = [_bin(command[0]), *command[1:]]
    result = subprocess.run(
        [*command, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "--db" in result.stdout
    assert "--data-dir" in result.stdout
    assert "--transport" in result.stdout


def test_prog_name_follows_the_entry_point() -> None:
    result = subprocess.run(
        [_bin("pmgs"), "mcp", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stdout.startswith("usage: pmgs mcp")


def test_version() -> None:
    result = subprocess.run(
        [*server_command("--version")], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"pmgs-mcp {pmgs_mcp.__version__}"


def test_missing_database_fails_fast_with_its_code(tmp_path: Path) -> None:
    result = subprocess.run(
        server_command("--db", str(tmp_path / "missing.sqlite")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 3  # as `pmgs` exits for a missing database (docs/cli.md)
    assert result.stdout == ""  # stdout belongs to the protocol, even when failing
    assert "hint: " in result.stderr
    assert "DATABASE_NOT_FOUND" in result.stderr
    assert str(tmp_path) not in result.stderr


def test_data_dir_is_honoured(tmp_path: Path) -> None:
    # An empty data directory has no pointer: the store's own error code comes back.
    result = subprocess.run(
        server_command("--data-dir", str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 3
    assert "cannot open the reference database" in result.stderr


def test_usage_errors_exit_2() -> None:
    for args in (["--port", "0", "--transport", "http"], ["--workers", "2"], ["--tools", "x"]):
        result = subprocess.run(
            server_command(*args), capture_output=True, text=True, timeout=60, check=False
        )
        assert result.returncode == 2, args


def test_stdout_carries_only_protocol_messages(reference: Reference, tmp_path: Path) -> None:
    """A raw stdio session: every line the server writes to stdout is a JSON-RPC message."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "lookup_classification", "arguments": {"scheme": "ipc"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {
                "name": "lookup_classification",
                "arguments": {"scheme": "ipc", "code": "G06F3/048"},
            },
        },
    ]
    stderr_file = (tmp_path / "stderr").open("w")
    process = subprocess.Popen(
        server_command("--db", str(reference.db), "--log-level", "debug"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr_file,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    process.stdin.flush()
    decoded = []
    # A client waits for its answers before closing stdin (EOF ends the session at once).
    while len([m for m in decoded if "id" in m]) < 4:
        line = process.stdout.readline()
        assert line, "the server closed stdout early"
        decoded.append(json.loads(line))
    process.stdin.close()
    rest = process.stdout.read()
    assert process.wait(timeout=30) == 0
    stderr_file.close()
    stderr = (tmp_path / "stderr").read_text()
    decoded += [json.loads(line) for line in rest.splitlines()]
    assert all(message["jsonrpc"] == "2.0" for message in decoded)
    by_id = {message["id"]: message for message in decoded if "id" in message}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[1]["result"]["serverInfo"]["name"] == "pmgs"
    assert "instructions" in by_id[1]["result"]
    assert [tool["name"] for tool in by_id[2]["result"]["tools"]] == [
        "lookup_classification",
        "search_pmgs",
        "get_pmgs_document",
    ]
    assert by_id[3]["result"]["isError"] is True
    # On the wire, an error result has no structuredContent; its text is the error object.
    assert "structuredContent" not in by_id[3]["result"]
    error = json.loads(by_id[3]["result"]["content"][0]["text"])["error"]
    assert error["code"] == "INVALID_ARGUMENT"
    assert error["details"] == {"argument": "code"}
    assert by_id[4]["result"]["structuredContent"]["code"] == "G06F3/048"
    assert stderr  # debug logging went to stderr, not into the protocol stream


def test_several_workers_serve_one_stateless_endpoint(
    reference: Reference, store: PMGSStore, tmp_path: Path
) -> None:
    server = start_http_server(reference, tmp_path, "--workers", "2")

    async def calls() -> list[object]:
        results: list[object] = []
        for _ in range(2):  # two sessions, several requests each: any worker may answer any
            async with (
                httpx2.AsyncClient(timeout=30) as http,
                Client(streamable_http_client(f"{server.base_url}/mcp", http_client=http)) as c,
            ):
                for code in ("G06F3/048", "G06F3/041", "G06F"):
                    result = await c.call_tool(
                        "lookup_classification",
                        {"scheme": "ipc", "code": code, "detail": "full"},
                    )
                    results.append(result.structured_content)
        return results

    try:
        results = anyio.run(calls)
    finally:
        stop_http_server(server)
    expected = [
        json.loads(json.dumps(store.lookup("ipc", code, relation_limit=5)))
        for code in ("G06F3/048", "G06F3/041", "G06F")
    ]
    assert results == expected * 2


def test_importing_the_package_does_not_import_the_sdk() -> None:
    # The pmgs CLI loads the entry point's module to run `pmgs mcp`; listing commands and
    # `import pmgs_mcp` must stay cheap, so the SDK is imported only when a server starts.
    code = (
        "import sys, pmgs_mcp, pmgs_mcp.cli; pmgs_mcp.cli.build_parser(); "
        "print(sorted(m for m in ('mcp', 'starlette', 'uvicorn', 'pydantic') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The versions docs/mcp.md says the stdio server negotiates in ``initialize``."""


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_stdio_initialize_accepts_each_documented_version(
    reference: Reference, version: str
) -> None:
    process = subprocess.Popen(
        server_command("--db", str(reference.db)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "version-probe", "version": "1"},
        },
    }
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())  # read before EOF, which ends the session
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert answer["result"]["protocolVersion"] == version
