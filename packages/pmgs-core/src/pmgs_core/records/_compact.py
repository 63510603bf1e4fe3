"""The concise form of a record: the same evidence, each repeated part sent once (ADR 0018).

Sources point into one ``files`` table, attribution and notice appear once, a nested page
leaves out the headers it shares with its parent (query, mode, index, release), members that
are null are left out (absent means null), and search excerpts are cut to a window around
the first term; every kept string is verbatim. :func:`concise_schema` derives the concise
JSON Schema from the full one, so they cannot drift.
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
_INHERITED: Final = frozenset({"query", "search_mode", "index", "language", "release"})
"""Header members a nested record leaves out when its parent record has the same value."""


def _window(text: str, terms: tuple[str, ...], window: tuple[int, int]) -> str:
    before, after = window
    if len(text) <= before + after:
        return text
    folded = fold_for_search(text)
    at = min((folded.find(t) for t in terms if t and t in folded), default=0)
    if len(folded) != len(text):  # folding changed lengths: positions do not carry over
        at = 0
    start = max(0, at - before)
    end = min(len(text), at + after)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


class _Compactor:
    def __init__(self, window: tuple[int, int], hashes: bool, matches: int | None) -> None:
        self.files: dict[str, dict[str, str]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._window = window
        self._hashes = hashes
        self._matches = matches

    def file_key(self, path: str, sha256: str) -> str:
        key = self._keys.get((path, sha256))
        if key is None:
            key = f"f{len(self._keys) + 1}"
            self._keys[(path, sha256)] = key
            self.files[key] = {"path": path, "sha256": sha256} if self._hashes else {"path": path}
        return key

    def walk(self, value: Any, terms: tuple[str, ...], parent: Mapping[str, Any] | None) -> Any:
        """``parent`` is the nearest enclosing record (None at the top)."""
        if isinstance(value, list):
            return [self.walk(item, terms, parent) for item in value]
        if not isinstance(value, Mapping):
            return value
        if "file_sha256" in value and len(value) == 4 and "attribution" in value:
            return {
                "file": self.file_key(value["file"], value["file_sha256"]),
                "locator": value["locator"],
            }
        own_terms = terms
        page_terms = value.get("terms")
        if isinstance(page_terms, list):  # a search page: its terms window excerpts
            own_terms = tuple(
                fold_for_search(t["term"]) for t in page_terms if isinstance(t, Mapping)
            )
        is_record = "record_type" in value
        nested = is_record and parent is not None
        below = value if is_record else parent
        out: dict[str, Any] = {}
        omitted = 0
        if self._matches is not None and "document_id" in value:
            matches = value.get("matches")
            if isinstance(matches, list) and len(matches) > self._matches:
                omitted = len(matches) - self._matches
                value = {**value, "matches": matches[: self._matches]}
        for key, item in value.items():
            if item is None:
                continue
            if nested and (
                key in _ONCE
                or (key in _INHERITED and parent is not None and parent.get(key) == item)
            ):
                continue
            if key == "excerpt" and isinstance(item, str):
                out[key] = _window(item, own_terms, self._window)
            elif isinstance(item, (list, dict)):
                out[key] = self.walk(item, own_terms, below)
            else:
                out[key] = item
            if key == "matches" and omitted:
                out["matches_omitted"] = omitted
        return out


def concise_record(
    record: Mapping[str, Any],
    *,
    window: tuple[int, int] = (WINDOW_BEFORE, WINDOW_AFTER),
    file_hashes: bool = True,
    matches_per_document: int | None = None,
) -> dict[str, Any]:
    """The concise form of any pmgs-core record (see the module docstring).

    ``window`` is the characters kept (before, after) the first term in a search excerpt;
    ``file_hashes=False`` leaves each file's SHA-256 to the full record (a file of one
    release is named by its path), and ``matches_per_document`` keeps the first matches of a
    document search hit, counting the rest in ``matches_omitted`` (both for MCP: ADR 0018,
    second amendment).
    """
    compactor = _Compactor(window, file_hashes, matches_per_document)
    body = compactor.walk(record, (), None)
    return {**body, "files": compactor.files}


_FILES: Final = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "additionalProperties": False,
        "required": ["path"],
        "properties": {"path": {"type": "string"}, "sha256": {"type": "string"}},
    },
    "description": (
        "The source files of this answer, by the keys its sources refer to (the SHA-256 of "
        "each is in the full record where a concise answer leaves it out)."
    ),
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


_MATCHES_OMITTED: Final = {
    "type": "integer",
    "minimum": 1,
    "description": "Matches of this document left out of a concise page (detail: full has them).",
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


def _admits_null(schema: Any, defs: Mapping[str, Any]) -> bool:
    """Whether a property's schema accepts null (such a member is left out when null)."""
    if not isinstance(schema, Mapping):
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _admits_null(defs.get(ref.removeprefix("#/$defs/")), defs)
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in schema.get("enum", ()) or ("const" in schema and schema["const"] is None):
        return True
    branches = [*schema.get("anyOf", ()), *schema.get("oneOf", ())]
    return any(_admits_null(branch, defs) for branch in branches)


def _nulls_optional(node: Any, defs: Mapping[str, Any]) -> None:
    """Make every member that may be null optional, in ``node`` and all its sub-schemas
    (``defs``: the full schema's definitions, which its ``$ref`` point into)."""
    if isinstance(node, list):
        for item in node:
            _nulls_optional(item, defs)
        return
    if not isinstance(node, dict):
        return
    props = node.get("properties")
    if isinstance(props, dict) and "required" in node:
        node["required"] = [r for r in node["required"] if not _admits_null(props.get(r), defs)]
    for item in node.values():
        _nulls_optional(item, defs)


def concise_schema(schema: Mapping[str, Any], prefix: str = "concise_") -> dict[str, Any]:
    """The concise form's schema, from a self-contained full one (``$ref`` + ``$defs``).

    Its definitions are the full ones renamed with ``prefix`` (so both can live in one
    ``$defs``, as an MCP output schema accepting either needs), with ``source`` replaced by
    the file-key reference, ``attribution`` / ``notice`` / ``content_role`` and the inherited
    headers optional on records, members that may be null optional everywhere (the concise
    form leaves out nulls), and ``files`` allowed on every record.
    """
    defs: dict[str, Any] = {}
    for name, definition in schema["$defs"].items():
        concise = copy.deepcopy(definition)
        _nulls_optional(concise, schema["$defs"])
        concise = _rename_refs(concise, prefix)
        if name == "source":
            concise = copy.deepcopy(_SOURCE_REF)
        props = concise.get("properties", {})
        if "matches" in props and "document_id" in props:
            props["matches_omitted"] = copy.deepcopy(_MATCHES_OMITTED)
        if "record_type" in props:
            dropped = set(_ONCE) | _INHERITED
            concise["required"] = [r for r in concise.get("required", []) if r not in dropped]
            props["files"] = copy.deepcopy(_FILES)
        defs[prefix + name] = concise
    top = _rename_refs({"$ref": schema["$ref"]}, prefix)
    return {"$ref": top["$ref"], "required": ["files"], "$defs": defs}
