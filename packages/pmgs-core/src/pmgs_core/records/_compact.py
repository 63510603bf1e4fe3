"""The concise form of a record: the same evidence, each repeated part sent once (ADR 0018).

Sources point into one ``files`` table, attribution and notice appear once, and search
excerpts are cut to a window around the first term; every kept string is verbatim.
:func:`concise_schema` derives the concise JSON Schema from the full one, so they cannot drift.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from pmgs_core.folding import fold_for_search

__all__ = ["WINDOW_AFTER", "WINDOW_BEFORE", "concise_record", "concise_schema"]

WINDOW_BEFORE: Final = 30
WINDOW_AFTER: Final = 90
_ONCE: Final = ("attribution", "notice", "content_role")
_SOURCE_KEYS: Final = frozenset({"file", "file_sha256", "locator", "attribution"})


def _window(text: str, terms: tuple[str, ...]) -> str:
    if len(text) <= WINDOW_BEFORE + WINDOW_AFTER:
        return text
    folded = fold_for_search(text)
    at = min((folded.find(t) for t in terms if t and t in folded), default=0)
    if len(folded) != len(text):  # folding changed lengths: positions do not carry over
        at = 0
    start = max(0, at - WINDOW_BEFORE)
    end = min(len(text), at + WINDOW_AFTER)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


class _Compactor:
    def __init__(self) -> None:
        self.files: dict[str, dict[str, str]] = {}
        self._keys: dict[tuple[str, str], str] = {}

    def file_key(self, path: str, sha256: str) -> str:
        key = self._keys.get((path, sha256))
        if key is None:
            key = f"f{len(self._keys) + 1}"
            self._keys[(path, sha256)] = key
            self.files[key] = {"path": path, "sha256": sha256}
        return key

    def walk(self, value: Any, terms: tuple[str, ...], depth: int) -> Any:
        if isinstance(value, list):
            return [self.walk(item, terms, depth) for item in value]
        if not isinstance(value, Mapping):
            return value
        if set(value) == _SOURCE_KEYS:
            return {
                "file": self.file_key(value["file"], value["file_sha256"]),
                "locator": value["locator"],
            }
        own_terms = terms
        if isinstance(value.get("terms"), list):  # a search page: its terms window excerpts
            own_terms = tuple(
                fold_for_search(t["term"]) for t in value["terms"] if isinstance(t, Mapping)
            )
        out: dict[str, Any] = {}
        for key, item in value.items():
            if depth > 0 and "record_type" in value and key in _ONCE:
                continue
            if key == "excerpt" and isinstance(item, str):
                out[key] = _window(item, own_terms)
            else:
                nested = depth + 1 if "record_type" in value else depth
                out[key] = self.walk(item, own_terms, nested)
        return out


def concise_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The concise form of any pmgs-core record (see the module docstring)."""
    compactor = _Compactor()
    body = compactor.walk(record, (), 0)
    return {**body, "files": compactor.files}


_FILES: Final = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "additionalProperties": False,
        "required": ["path", "sha256"],
        "properties": {"path": {"type": "string"}, "sha256": {"type": "string"}},
    },
    "description": "The source files of this answer, by the keys its sources refer to.",
}
_SOURCE_REF: Final = {
    "type": "object",
    "additionalProperties": False,
    "required": ["file", "locator"],
    "properties": {
        "file": {"type": "string", "description": "A key of the record's files table."},
        "locator": {"type": "string"},
    },
}


def _rename_refs(node: Any, prefix: str) -> Any:
    if isinstance(node, list):
        return [_rename_refs(item, prefix) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, item in node.items():
        if key == "$ref" and isinstance(item, str) and item.startswith("#/$defs/"):
            out[key] = "#/$defs/" + prefix + item.removeprefix("#/$defs/")
        else:
            out[key] = _rename_refs(item, prefix)
    return out


def concise_schema(schema: Mapping[str, Any], prefix: str = "concise_") -> dict[str, Any]:
    """The concise form's schema, from a self-contained full one (``$ref`` + ``$defs``).

    Its definitions are the full ones renamed with ``prefix`` (so both can live in one
    ``$defs``, as an MCP output schema accepting either needs), with ``source`` replaced by
    the file-key reference, ``attribution`` / ``notice`` / ``content_role`` optional below
    the top, and ``files`` allowed on every record.
    """
    defs: dict[str, Any] = {}
    for name, definition in schema["$defs"].items():
        concise = _rename_refs(copy.deepcopy(definition), prefix)
        if name == "source":
            concise = copy.deepcopy(_SOURCE_REF)
        props = concise.get("properties", {})
        if "record_type" in props:
            concise["required"] = [r for r in concise.get("required", []) if r not in _ONCE]
            props["files"] = copy.deepcopy(_FILES)
        defs[prefix + name] = concise
    top = _rename_refs({"$ref": schema["$ref"]}, prefix)
    return {"$ref": top["$ref"], "required": ["files"], "$defs": defs}
