"""The F-term grid of a theme as searchers read it on J-PlatPat.

One row band per viewpoint; its terms in ten fixed columns by the last digit of their
number (``AB12`` in column 2 of the line ``1x``), blank cells kept, so a term is always
found where its number says. Lines holding no term are left out; the first line of every
viewpoint is always there and its row header carries the viewpoint's code and title. A term
under another term is marked with one ``・`` per level below the viewpoint's direct terms
(depth from the parents :meth:`pmgs_core.PMGSStore.code_markers` gives). Terms whose number is
not two digits are listed after the lines of their viewpoint.
"""

from __future__ import annotations

from typing import Any, Final

from pmgs_core import CodeRef, HierarchySummary
from pmgs_web.view import PageRequest

__all__ = ["GRID_COLUMNS", "grid_rows", "marker_pages"]

GRID_COLUMNS: Final = 10
MARKER_PAGE: Final = 200
MAX_DEPTH: Final = 16


def _ref(item: HierarchySummary) -> CodeRef:
    return {
        "scheme": item["scheme"],
        "edition": item["edition"],
        "code": item["code"],
        "kind": "",
        "record_status": item["record_status"],
    }


def marker_pages(req: PageRequest, items: list[HierarchySummary]) -> dict[str, Any]:
    """The markers of every item (one bounded read a page of 200), by code."""
    found: dict[str, Any] = {}
    for start in range(0, len(items), MARKER_PAGE):
        refs = [_ref(item) for item in items[start : start + MARKER_PAGE]]
        for marker in req.store.code_markers(refs):
            found[marker["code"]] = marker
    return found


def _depth(code: str, viewpoint: str, parents: dict[str, str | None]) -> int:
    """1 for a direct term of the viewpoint, 2 for a term under it, and so on."""
    depth = 1
    parent = parents.get(code)
    while parent is not None and parent != viewpoint and depth < MAX_DEPTH:
        depth += 1
        parent = parents.get(parent)
    return depth


def grid_rows(req: PageRequest, items: list[HierarchySummary]) -> list[dict[str, Any]]:
    """The bands of the grid: for each viewpoint its summary, lines of ten cells (``None``
    for a blank) and the terms outside the numbered columns."""
    markers = marker_pages(req, items)
    parents = {code: marker["parent"] for code, marker in markers.items()}
    viewpoints: dict[str, dict[str, Any]] = {}
    for item in items:
        code = item["code"]
        key = code[:7]
        band = viewpoints.setdefault(key, {"code": key, "summary": None, "terms": []})
        if len(code) == 7:
            band["summary"] = item
        else:
            band["terms"].append(item)
    bands = []
    for key, band in viewpoints.items():
        lines: dict[int, list[dict[str, Any] | None]] = {0: [None] * GRID_COLUMNS}
        others = []
        for term in band["terms"]:
            number = term["code"][7:]
            depth = _depth(term["code"], key, parents)
            cell = {
                "code": term["code"],
                "number": number,
                "label": term["label"],
                "depth": depth,
                "mark": "・" * (depth - 1),
                "status": term["record_status"],
                "href": req.links.code("fterm", term["code"]),
            }
            if len(number) == 2 and number.isascii() and number.isdigit():
                ten, column = divmod(int(number), GRID_COLUMNS)
                lines.setdefault(ten, [None] * GRID_COLUMNS)[column] = cell
            else:
                others.append(cell)
        ordered = [{"ten": ten, "cells": lines[ten]} for ten in sorted(lines)]
        bands.append({"code": key, "summary": band["summary"], "lines": ordered, "others": others})
    return bands
