"""The concise form of a record: the same evidence, each repeated part sent once (ADR 0018).

Sources point into one ``files`` table, attribution and notice appear once, a nested page
leaves out the headers it shares with its parent (query, mode, index, release), members that
are null are left out (absent means null), and search excerpts are cut to a window around
the first term; every kept string is verbatim. With ``echoes=False`` (MCP answers, ADR 0018
third amendment) it also leaves out what the answer already says: a row's source equal to the
record's own (``revision.source``), ``sources`` entries cited elsewhere, ``query`` members
echoing the answer or the defaults, and search sub-page headers shared by both sub-pages
(written once on the combined page). :func:`concise_schema` derives the concise JSON Schema
from the full one, so they cannot drift.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from typing import Any, Final

from pmgs_core.folding import fold_for_search

__all__ = ["WINDOW_AFTER", "WINDOW_BEFORE", "concise_record", "concise_schema"]

WINDOW_BEFORE: Final = 30
WINDOW_AFTER: Final = 90
_ONCE: Final = ("attribution", "notice", "content_role")
_HOISTED: Final = ("terms", "language", "total_is_exact")
"""Sub-page headers written once on a combined search page when every sub-page has the same
value (``echoes=False``); a sub-page then leaves them out as inherited headers."""
_INHERITED: Final = frozenset({"query", "search_mode", "index", "release", *_HOISTED})
"""Header members a nested record leaves out when its parent record has the same value."""
_NONE: Final[Mapping[str, Any]] = {}
_QUERY_ECHOES: Final = ("scheme", "code")
"""``query`` members left out when equal to the answer's own member of that name."""
_QUERY_DEFAULTS: Final = {"language": "ja", "release": "current"}
"""``query`` members left out when equal to the tools' default (``echoes=False``)."""


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
    def __init__(
        self, window: tuple[int, int], hashes: bool, matches: int | None, echoes: bool
    ) -> None:
        self.files: dict[str, dict[str, str]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._window = window
        self._hashes = hashes
        self._matches = matches
        self._echoes = echoes
        self.cited: Counter[tuple[str, str]] = Counter()
        """How often each (file key, locator) is cited in the answer, ``sources`` included."""

    def file_key(self, path: str, sha256: str) -> str:
        key = self._keys.get((path, sha256))
        if key is None:
            key = f"f{len(self._keys) + 1}"
            self._keys[(path, sha256)] = key
            self.files[key] = {"path": path, "sha256": sha256} if self._hashes else {"path": path}
        return key

    def walk(
        self,
        value: Any,
        terms: tuple[str, ...],
        parent: Mapping[str, Any] | None,
        inherited: Mapping[str, Any] = _NONE,
    ) -> Any:
        """``parent`` is the nearest enclosing record (None at the top); ``inherited`` the
        members a row below it leaves out when equal (:func:`_row_inherits`)."""
        if isinstance(value, list):
            return [self.walk(item, terms, parent, inherited) for item in value]
        if not isinstance(value, Mapping):
            return value
        if "file_sha256" in value and len(value) == 4 and "attribution" in value:
            file = self.file_key(value["file"], value["file_sha256"])
            self.cited[(file, value["locator"])] += 1
            return {"file": file, "locator": value["locator"]}
        is_record = "record_type" in value
        rows: Mapping[str, Any] = _NONE  # what the rows of this record inherit
        if is_record:
            inherited = _NONE
            if not self._echoes:
                value = _hoist(value)
                rows = _row_inherits(value, parent)
        own_terms = terms
        page_terms = value.get("terms")
        if isinstance(page_terms, list):  # a search page: its terms window excerpts
            own_terms = tuple(
                fold_for_search(t["term"]) for t in page_terms if isinstance(t, Mapping)
            )
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
            if item is None or (key in inherited and inherited[key] == item):
                continue
            if nested and (
                key in _ONCE
                or (key in _INHERITED and parent is not None and parent.get(key) == item)
            ):
                continue
            if key == "excerpt" and isinstance(item, str):
                out[key] = _window(item, own_terms, self._window)
            elif key == "query" and is_record and isinstance(item, Mapping) and not self._echoes:
                query = self.walk(_unechoed(item, value), own_terms, below)
                if query:
                    out[key] = query
            elif rows and isinstance(item, list) and key != "sources":
                out[key] = self.walk(item, own_terms, below, rows)
            elif isinstance(item, (list, dict)):
                out[key] = self.walk(item, own_terms, below, inherited)
            else:
                out[key] = item
            if key == "matches" and omitted:
                out["matches_omitted"] = omitted
        return out


def _hoist(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A combined search page with the :data:`_HOISTED` headers every sub-page shares."""
    pages = record.get("results_by_type")
    if not isinstance(pages, Mapping) or not pages:
        return record
    shared: dict[str, Any] = {}
    for key in _HOISTED:
        values = [page.get(key) for page in pages.values() if isinstance(page, Mapping)]
        complete = key not in record and len(values) == len(pages) and None not in values
        if complete and all(v == values[0] for v in values):
            shared[key] = values[0]
    if not shared:
        return record
    out: dict[str, Any] = {}
    for key, item in record.items():
        if key == "results_by_type":
            out.update(shared)
        out[key] = item
    return out


def _unechoed(query: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """``query`` without the members the answer or the defaults already say."""
    return {
        key: item
        for key, item in query.items()
        if not (key in _QUERY_ECHOES and record.get(key) == item)
        and not (key in _QUERY_DEFAULTS and _QUERY_DEFAULTS[key] == item)
    }


def _row_inherits(record: Mapping[str, Any], parent: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the rows of ``record``'s lists (``sources`` aside), at any depth, leave out when
    equal: a classification's own source (``revision.source``), and in a classification
    search page its language (every match is of the page's language; a document hit's
    language may be null, so documents keep theirs)."""
    revision = record.get("revision")
    if isinstance(revision, Mapping) and isinstance(revision.get("source"), Mapping):
        return {"source": revision["source"]}
    if record.get("record_type") == "classification_search_page":
        language = record.get("language", (parent or {}).get("language"))
        return {} if language is None else {"language": language}
    return {}


def _uncited_sources(body: dict[str, Any], cited: Counter[tuple[str, str]]) -> None:
    """Keep in the record's ``sources`` only the entries cited nowhere else in the answer
    (``cited`` counts every citation, those in ``sources`` too)."""
    sources = body.get("sources")
    if not isinstance(sources, list):
        return
    listed = Counter((s["file"], s["locator"]) for s in sources)
    kept = [
        s for s in sources if cited[(s["file"], s["locator"])] <= listed[(s["file"], s["locator"])]
    ]
    if kept:
        body["sources"] = kept
    else:
        del body["sources"]


def concise_record(
    record: Mapping[str, Any],
    *,
    window: tuple[int, int] = (WINDOW_BEFORE, WINDOW_AFTER),
    file_hashes: bool = True,
    matches_per_document: int | None = None,
    echoes: bool = True,
) -> dict[str, Any]:
    """The concise form of any pmgs-core record (see the module docstring).

    ``window`` is the characters kept (before, after) the first term in a search excerpt;
    ``file_hashes=False`` leaves each file's SHA-256 to the full record (a file of one
    release is named by its path), and ``matches_per_document`` keeps the first matches of a
    document search hit, counting the rest in ``matches_omitted`` (both for MCP: ADR 0018,
    second amendment). ``echoes=False`` leaves out what the answer already says (module
    docstring; ADR 0018, third amendment).
    """
    compactor = _Compactor(window, file_hashes, matches_per_document, echoes)
    body = compactor.walk(record, (), None)
    if not echoes:
        _uncited_sources(body, compactor.cited)
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


def _ref_name(node: Any) -> str | None:
    ref = node.get("$ref") if isinstance(node, Mapping) else None
    return ref.removeprefix("#/$defs/") if isinstance(ref, str) else None


def _echo_targets(
    defs: Mapping[str, Any],
) -> tuple[dict[str, str], set[str], dict[str, dict[str, Any]]]:
    """Where ``echoes=False`` may leave members out: the row definitions (and the member
    they inherit) of :func:`_row_inherits`, the ``query`` objects of records, and the
    combined pages (with the schemas of the sub-page headers they may carry)."""
    rows: dict[str, str] = {}
    queries: set[str] = set()
    hoisted: dict[str, dict[str, Any]] = {}
    for name, definition in defs.items():
        props = definition.get("properties", {})
        if "record_type" not in props:
            continue
        query = _ref_name(props.get("query"))
        if query is not None:
            queries.add(query)
        if "revision" in props:
            for prop in props.values():
                row = _ref_name(prop.get("items")) if prop.get("type") == "array" else None
                if row is not None and "source" in defs[row].get("properties", {}):
                    rows[row] = "source"
        if props["record_type"].get("const") == "classification_search_page":
            hit = defs[_ref_name(props["results"]["items"]) or ""]
            rows[_ref_name(hit["properties"]["matches"]["items"]) or ""] = "language"
        pages = props.get("results_by_type", {}).get("properties", {})
        for page in pages.values():
            page_props = defs[_ref_name(page) or ""]["properties"]
            shared = {k: page_props[k] for k in _HOISTED if k in page_props}
            hoisted.setdefault(name, {}).update(shared)
    return rows, queries, hoisted


def concise_schema(schema: Mapping[str, Any], prefix: str = "concise_") -> dict[str, Any]:
    """The concise form's schema, from a self-contained full one (``$ref`` + ``$defs``).

    Its definitions are the full ones renamed with ``prefix`` (so both can live in one
    ``$defs``, as an MCP output schema accepting either needs), with ``source`` replaced by
    the file-key reference, ``attribution`` / ``notice`` / ``content_role`` and the inherited
    headers optional on records, members that may be null optional everywhere (the concise
    form leaves out nulls), and ``files`` allowed on every record. What ``echoes=False``
    leaves out is optional too: ``sources`` and the rows' ``source`` of a record with a
    ``revision``, the echoed ``query`` members, and the :data:`_HOISTED` sub-page headers,
    which a combined page may carry.
    """
    full_defs: Mapping[str, Any] = schema["$defs"]
    sourced_rows, queries, hoisted = _echo_targets(full_defs)
    defs: dict[str, Any] = {}
    for name, definition in full_defs.items():
        concise = copy.deepcopy(definition)
        _nulls_optional(concise, schema["$defs"])
        concise = _rename_refs(concise, prefix)
        if name == "source":
            concise = copy.deepcopy(_SOURCE_REF)
        props = concise.get("properties", {})
        if "matches" in props and "document_id" in props:
            props["matches_omitted"] = copy.deepcopy(_MATCHES_OMITTED)
        dropped: set[str] = set()
        if "record_type" in props:
            dropped = {*_ONCE, *_INHERITED, "sources"}
            props["files"] = copy.deepcopy(_FILES)
        if name in sourced_rows:
            dropped = {sourced_rows[name]}
        if name in queries:
            dropped = {*_QUERY_ECHOES, *_QUERY_DEFAULTS}
        if name in hoisted:
            props.update(_rename_refs(copy.deepcopy(hoisted[name]), prefix))
        if dropped and "required" in concise:
            concise["required"] = [r for r in concise["required"] if r not in dropped]
        defs[prefix + name] = concise
    top = _rename_refs({"$ref": schema["$ref"]}, prefix)
    return {"$ref": top["$ref"], "required": ["files"], "$defs": defs}
