"""Where the browser viewer (pmgs-web) shows a code or a document, relative to its root.

The paths mirror the MCP server's ``pmgs://`` resource URIs (``/fi/G06F3/048`` for
``pmgs://fi/G06F3/048``, ``/document/<id>``), so a client can open in the browser what an
agent cited (ADR 0023). One definition: the records carry these paths and the viewer routes
and links with them.
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["code_viewer_path", "document_viewer_path"]

_CODE_SAFE = "/@,"
_DOCUMENT_SAFE = ":/@,"
_DEFAULT_IPC_EDITION = "8U"


def code_viewer_path(scheme: str, code: str, edition: str | None = None) -> str:
    """The viewer path of a code; an IPC code of an older edition than 8U adds ``?edition=``
    (the viewer, like ``lookup``, otherwise answers from 8U)."""
    path = f"/{scheme}/{quote(code, safe=_CODE_SAFE)}"
    if scheme == "ipc" and edition and edition != _DEFAULT_IPC_EDITION:
        path += f"?edition={quote(edition, safe='')}"
    return path


def document_viewer_path(document_id: str) -> str:
    """The viewer path of a document's first page."""
    return f"/document/{quote(document_id, safe=_DOCUMENT_SAFE)}"
