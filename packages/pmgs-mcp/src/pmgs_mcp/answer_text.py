"""The text copy of a concise answer: every value of the structured content, keys once.

The MCP specification advises (SHOULD) the serialized JSON as a text block beside
structured content; for the concise answers of the three contract tools the text is instead
this line-oriented rendering (ADR 0018, amendment of issue 33), since a client pays for both
copies. Nothing is dropped: each value of ``structuredContent`` appears, in the same order.

* ``key: value`` for a member; a nested object's members follow, indented two spaces;
* ``key[n]: a,b`` for a list of scalars;
* ``key[n]{c1,c2.sub,…}:`` for a list of objects, then one row per item, cells joined by
  ``|`` in the header's order (``c2.sub`` is member ``sub`` of ``c2``; an empty cell is an
  absent member); a list of objects inside an item follows its row, indented, and its header
  is written at its first appearance only (later ``key[n]:``);
* the ``files`` table (and any object of objects alike) is ``files{key,path}:`` with rows.

A value holding the separator of its place (``|`` in a row, ``,`` in a list), a line break,
an outer space or a leading ``"``, and the empty string, is written as a JSON string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pmgs_core import concise_record

__all__ = ["EXCERPT_WINDOW", "answer_text", "concise_answer"]

EXCERPT_WINDOW: Final = (20, 40)
"""Characters an MCP search excerpt keeps before and after the first term (the CLI's concise
JSON keeps 30 and 90); the whole text is one ``lookup`` or ``get_pmgs_document`` away."""


def concise_answer(record: Mapping[str, Any]) -> dict[str, Any]:
    """The concise form MCP answers with: excerpts of :data:`EXCERPT_WINDOW`, files by path
    (a file of a release is named by its path; its SHA-256 is in ``detail: full``)."""
    return concise_record(record, window=EXCERPT_WINDOW, file_hashes=False)


_ALWAYS_QUOTED: Final = ("\n", "\r", "\t")


def _scalar(value: Any, separator: str = "") -> str:
    if isinstance(value, str):
        if (
            not value
            or value[0] in ' "'
            or value[-1] == " "
            or (separator and separator in value)
            or any(c in value for c in _ALWAYS_QUOTED)
        ):
            return json.dumps(value, ensure_ascii=False)
        return value
    return json.dumps(value, ensure_ascii=False)


def _is_table(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _flat(
    item: Mapping[str, Any], prefix: str, columns: dict[str, None], tables: dict[str, None]
) -> None:
    """The dotted names of ``item``'s scalar (and scalar-list) members into ``columns``, of
    its lists of objects into ``tables``, at any depth of nested objects."""
    for key, value in item.items():
        name = prefix + key
        if isinstance(value, Mapping):
            _flat(value, name + ".", columns, tables)
        elif _is_table(value):
            tables.setdefault(name, None)
        else:
            columns.setdefault(name, None)


def _at(item: Mapping[str, Any], column: str) -> Any:
    value: Any = item
    for part in column.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _cell(item: Mapping[str, Any], column: str) -> str:
    value = _at(item, column)
    if value is None:  # absent (a concise record holds no nulls)
        return ""
    if isinstance(value, list):
        return _scalar(",".join(_scalar(v, ",") for v in value), "|") if value else "[]"
    return _scalar(value, "|")


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self._headers: dict[tuple[str, str], tuple[str, ...]] = {}

    def block(self, record: Mapping[str, Any], indent: str) -> None:
        for key, value in record.items():
            if _is_table(value):
                self.table(key, value, indent, indent)
            elif isinstance(value, list):
                items = ",".join(_scalar(v, ",") for v in value)
                self.lines.append(f"{indent}{key}[{len(value)}]: {items}".rstrip())
            elif isinstance(value, Mapping):
                self.mapping(key, value, indent)
            else:
                self.lines.append(f"{indent}{key}: {_scalar(value)}")

    def mapping(self, key: str, value: Mapping[str, Any], indent: str) -> None:
        columns: dict[str, None] = {}
        tables: dict[str, None] = {}
        if value and all(isinstance(v, Mapping) for v in value.values()):
            for item in value.values():
                _flat(item, "", columns, tables)
        if columns and not tables:  # an object of flat objects: a table keyed by name
            self.lines.append(f"{indent}{key}{{key,{','.join(columns)}}}:")
            for name, item in value.items():
                cells = [_scalar(name, "|"), *(_cell(item, c) for c in columns)]
                self.lines.append(f"{indent}  " + "|".join(cells))
            return
        self.lines.append(f"{indent}{key}:" if value else f"{indent}{key}: {{}}")
        self.block(value, indent + "  ")

    def table(self, key: str, rows: Sequence[Mapping[str, Any]], indent: str, scope: str) -> None:
        columns: dict[str, None] = {}
        nested: dict[str, None] = {}
        for row in rows:
            _flat(row, "", columns, nested)
        header = tuple(columns)
        if self._headers.get((scope, key)) == header:
            self.lines.append(f"{indent}{key}[{len(rows)}]:")
        else:
            self._headers[(scope, key)] = header
            self.lines.append(f"{indent}{key}[{len(rows)}]{{{','.join(header)}}}:")
        for row in rows:
            self.lines.append(f"{indent}  " + "|".join(_cell(row, c) for c in header))
            for name in nested:
                inner = _at(row, name)
                if _is_table(inner):
                    self.table(name, inner, indent + "    ", f"{scope}{key}/")


def answer_text(record: Mapping[str, Any]) -> str:
    """The line-oriented text of a concise record (see the module docstring)."""
    writer = _Writer()
    writer.block(record, "")
    return "\n".join(writer.lines)
