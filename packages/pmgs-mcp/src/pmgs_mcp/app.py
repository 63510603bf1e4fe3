"""Assembling a server: build the tools on an open store and wrap them in the SDK server.

Shared by the stdio path, the in-process HTTP path and the ``uvicorn --factory`` workers, so
every transport serves exactly the same tools from the same kind of store. Callers open the
store first (:func:`open_store`, cheap) and import this module's SDK-heavy half only once the
database is known to be usable, so a wrong ``--db`` fails fast (ADR 0005).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.lowlevel import Server

import pmgs_core
from pmgs_core import PMGSStore, load_schema
from pmgs_mcp.collection_tools import (
    SOURCE_AWARE_TOOLS,
    collection_specs,
    with_collection_search,
    with_source,
)
from pmgs_mcp.server import build_server
from pmgs_mcp.tools import ToolSet, ToolSpec, build_toolset

if TYPE_CHECKING:
    from pmgs_core import Collection

__all__ = ["build_app_server", "build_tools", "version_info"]


def version_info() -> dict[str, str]:
    """What ``GET /version`` reports: the software, never the data (that is ``/release``)."""
    from pmgs_mcp import __version__

    return {"name": "pmgs-mcp", "version": __version__, "pmgs_core": pmgs_core.__version__}


def build_app_server(
    store: PMGSStore, *, include_browse: bool, collection: Collection | None = None
) -> Server[Any]:
    """The SDK server listing the default tools (and the browse tools if asked) over ``store``;
    with a ``collection`` (``--allow-write``), also its tools, and the browse tools with a
    ``source`` argument."""
    return build_server(
        build_tools(store, include_browse=include_browse, collection=collection),
        version=version_info()["version"],
    )


def build_tools(
    store: PMGSStore, *, include_browse: bool, collection: Collection | None = None
) -> ToolSet:
    """The tools of one server (see :func:`build_app_server`)."""
    toolset = build_toolset(store, load_schema, include_browse=include_browse or bool(collection))
    if collection is None:
        return toolset
    from pmgs_core import collection_json_schema

    def widened(spec: ToolSpec) -> ToolSpec:
        assert collection is not None
        if spec.name in SOURCE_AWARE_TOOLS:
            return with_source(spec, collection, collection_json_schema)
        if spec.name == "search_text":
            return with_collection_search(spec, collection, collection_json_schema)
        return spec

    specs = [widened(spec) for spec in toolset.specs]
    specs += collection_specs(collection, collection_json_schema)
    return ToolSet(store=store, specs=tuple(specs))


def open_store(db: str | None, data_dir: str | None) -> PMGSStore:
    """Open the reference read-only, in the contract's search order (raises PMGSQueryError)."""
    return PMGSStore.open(db, data_dir=data_dir)
