"""Stdio requests whose ``id`` is neither a string nor an integer get an answer.

JSON-RPC 2.0 tells a request (``id`` present) from a notification (no ``id``); MCP narrows a
request id to a string or an integer. The SDK's message types have no place for any other
id, so a line such as ``{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`` validates as a
*notification* with the id dropped, and nothing answers it: the client waits for ever
(issue 27). Whether the member was there is visible only in the line itself, so the stdio
transport's parser is wrapped for the time the stdio server runs: a request object with an
``id`` of another type (a fraction, ``null``, an object, an array, a boolean) is refused
before the SDK reads it, and :func:`pmgs_mcp.server.unreadable_message_error` answers
``-32600`` with id null (the id cannot be echoed in a type MCP does not have). Lines without
such an id cost one substring test.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

__all__ = ["InvalidRequestIdError", "strict_request_ids"]


class InvalidRequestIdError(ValueError):
    """A request whose id is not a string or an integer (JSON-RPC -32600, id null)."""


def _check(line: object) -> None:
    if not isinstance(line, str | bytes | bytearray):
        return
    text = line if isinstance(line, str) else bytes(line).decode("utf-8", "replace")
    if '"id"' not in text:
        return
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return  # not JSON: the SDK reports it, and it is answered -32700
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        return
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        raise InvalidRequestIdError("a request id must be a string or an integer")


class _StrictIdAdapter:
    """The SDK's message adapter with the id check in front of ``validate_json``."""

    def __init__(self, adapter: Any) -> None:
        self._adapter = adapter

    def validate_json(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        _check(data)
        return self._adapter.validate_json(data, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)


class _StdioTypes:
    """What the stdio transport sees as ``mcp.types``: the module, with the strict adapter."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self.jsonrpc_message_adapter = _StrictIdAdapter(module.jsonrpc_message_adapter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


@contextlib.contextmanager
def strict_request_ids() -> Iterator[None]:
    """Check request ids in the SDK's stdio transport while the block runs.

    Only the stdio transport's own name for ``mcp.types`` is replaced (and restored): the
    HTTP transports and every other reader of the module are untouched.
    """
    from mcp.server import stdio

    original = vars(stdio)["types"]
    setattr(stdio, "types", _StdioTypes(original))  # noqa: B010 - a name mypy cannot see
    try:
        yield
    finally:
        setattr(stdio, "types", original)  # noqa: B010
