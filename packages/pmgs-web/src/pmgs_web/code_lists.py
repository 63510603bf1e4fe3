"""J-PlatPat's three views of a code in its hierarchy, each code with its F / CC / HB markers.

* ``target`` (the default): the ancestors, the code, and one level down (its children);
* ``group``: the whole main group the code belongs to, as a list with titles (FI and IPC
  codes at or below a main group);
* ``same``: the codes at the same level, under the same parent (the siblings).

Every entry is ``{ref, label, dots, markers, current}``. Dots count from the main group
(FI, IPC) or from the viewpoint (F-term) as everywhere in the viewer; inside the group list
they are the depth below the main group, read from the parents
:meth:`pmgs_core.PMGSStore.code_markers` gives (the summaries carry no level).
"""

from __future__ import annotations

from typing import Any, Final

from pmgs_core import ClassificationRecord, HierarchyPage, HierarchySummary
from pmgs_web.grid import marker_pages
from pmgs_web.view import PageRequest

__all__ = ["LIST_PAGE", "VIEWS", "code_lists"]

VIEWS: Final = ("target", "group", "same")
LIST_PAGE: Final = 50
GROUP_PAGE: Final = 200
_DOT_BASE: Final = {"fi": 3, "ipc": 3, "fterm": 2}
_MAIN_GROUP_DEPTH: Final = 3
"""Parents above a main group: section, class, subclass."""


def dots_for(scheme: str, parent_count: int) -> int:
    return max(0, parent_count - _DOT_BASE.get(scheme, 0))


def _entry(item: HierarchySummary, dots: int, current: bool = False) -> dict[str, Any]:
    return {"ref": item, "label": item["label"], "dots": dots, "current": current}


def _self(record: ClassificationRecord, label: str) -> HierarchySummary:
    return {
        "scheme": record["scheme"],
        "edition": record["edition"],
        "code": record["code"],
        "version": None,
        "label": label,
        "record_status": record["record_status"] or "canonical",
    }


def _page(req: PageRequest, direction: str, record: Any, **kw: Any) -> HierarchyPage:
    scheme, code, edition = record["scheme"], record["code"], record["edition"]
    return req.store.hierarchy(direction, scheme, code, req.release, edition, req.language, **kw)


def offered_views(scheme: str, parent_count: int) -> list[str]:
    views = ["target"]
    if scheme in ("fi", "ipc") and parent_count >= _MAIN_GROUP_DEPTH:
        views.append("group")
    if parent_count > 0:
        views.append("same")
    return views


def code_lists(
    req: PageRequest,
    record: ClassificationRecord,
    parents: list[HierarchySummary],
    view: str,
    offset: int,
) -> dict[str, Any]:
    """The entries of ``view`` for the code of ``record`` and its paging values."""
    scheme = record["scheme"]
    title = record["texts"][0]["body"] if record["texts"] else ""
    me = _self(record, title)
    depth = len(parents)
    entries: list[dict[str, Any]] = []
    page: HierarchyPage | None = None
    children_count = 0
    if view == "group":
        top = parents[_MAIN_GROUP_DEPTH] if depth > _MAIN_GROUP_DEPTH else me
        page = req.store.hierarchy(
            "descendants",
            scheme,
            top["code"],
            req.release,
            record["edition"],
            req.language,
            limit=GROUP_PAGE,
            offset=offset,
        )
        items = page["items"]
        found = marker_pages(req, items)
        level: dict[str, int] = {top["code"]: 0}
        if offset == 0:
            entries.append(_entry(top, 0, top["code"] == record["code"]))
        for item in items:
            parent = found.get(item["code"], {}).get("parent")
            level[item["code"]] = level.get(parent, 0) + 1 if parent else 1
            entries.append(_entry(item, level[item["code"]], item["code"] == record["code"]))
    elif view == "same":
        page = _page(req, "children", parents[-1], limit=LIST_PAGE, offset=offset)
        dots = dots_for(scheme, depth)
        entries = [_entry(item, dots, item["code"] == record["code"]) for item in page["items"]]
    else:
        entries = [_entry(item, dots_for(scheme, index)) for index, item in enumerate(parents)]
        entries.append(_entry(me, dots_for(scheme, depth), True))
        page = _page(req, "children", record, limit=LIST_PAGE, offset=offset)
        children_count = page["count"]
        child_dots = dots_for(scheme, depth + 1)
        entries.extend(_entry(item, child_dots) for item in page["items"])
    markers = marker_pages(req, [entry["ref"] for entry in entries])
    for entry in entries:
        entry["markers"] = markers.get(entry["ref"]["code"])
    marked = any(
        m and (m["fterm_theme"] or m["concordance"] or m["handbook"])
        for m in (entry["markers"] for entry in entries)
    )
    return {
        "view": view,
        "any_markers": marked,
        "entries": entries,
        "list_page": page,
        "children_count": children_count,
    }
