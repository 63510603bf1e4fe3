"""The pages of single codes: a code of any scheme, the F-term theme grid, scheme indexes.

Everything shown comes from :class:`pmgs_core.PMGSStore` records (``lookup``,
``hierarchy``); this module only arranges them. Hierarchy dots follow J-PlatPat's habit of
counting from the main group (FI, IPC) or the theme's terms (F-term): they are derived from
the number of parents the store returns, not from a level column of the package.
"""

from __future__ import annotations

from typing import Any, Final

from pmgs_core import ClassificationRecord, CodeRef, HierarchySummary, PMGSQueryError
from pmgs_web.code_lists import VIEWS, code_lists, dots_for, offered_views
from pmgs_web.grid import GRID_COLUMNS, grid_rows
from pmgs_web.i18n import label
from pmgs_web.view import PageRequest, View, int_param

__all__ = ["code_page", "scheme_index", "theme_grid"]

RELATION_PAGE: Final = 50
GRID_PAGE: Final = 200
GRID_MAX_PAGES: Final = 20
"""A theme grid reads at most 4,000 viewpoints and terms (the largest real theme is far below)."""
SECTIONS: Final = tuple("ABCDEFGH")

_NOT_FOUND_STATUS: Final = {"not_found": 404, "version_not_found": 404}


def _title(record: ClassificationRecord) -> str:
    """The code's title: its first text line (empty when the package has none)."""
    return record["texts"][0]["body"] if record["texts"] else ""


def _lookup_texts(req: PageRequest, scheme: str, code: str, edition: str | None) -> Any:
    """The Japanese record when English was asked for and the package has none (shown with a
    note; the JSON answer stays the English record the API gives)."""
    if req.language == "ja":
        return None
    return req.store.lookup(scheme, code, req.release, edition, "ja", relation_limit=1)


def code_page(req: PageRequest, scheme: str, code: str) -> View:
    edition = req.text("edition", 8) or None
    version = req.text("version", 32) or None
    relation_offset = int_param(req.query, "relation_offset") or 0
    child_offset = int_param(req.query, "child_offset") or 0
    view = req.text("view", 8) or "target"
    if view not in VIEWS:
        raise PMGSQueryError("INVALID_ARGUMENT", "view must be target, group or same")
    record: ClassificationRecord = req.store.lookup(
        scheme,
        code,
        req.release,
        edition,
        req.language,
        version=version,
        relation_limit=RELATION_PAGE,
        relation_offset=relation_offset,
    )
    status = _NOT_FOUND_STATUS.get(record["match_status"], 200)
    context: dict[str, object] = {"record": record, "scheme": scheme}
    if status == 200:
        found_edition = record["edition"]
        parents = req.store.hierarchy(
            "parents", scheme, record["code"], req.release, found_edition, req.language
        )["items"]
        offered = offered_views(scheme, len(parents))
        fallback = None
        if not record["texts"]:
            fallback = _lookup_texts(req, scheme, record["code"], found_edition)
        shown_record = fallback if fallback and fallback["texts"] else record
        lists = code_lists(
            req, shown_record, parents, view if view in offered else "target", child_offset
        )
        relations = _group_relations(record)
        targets = [r["target"] for _kind, group in relations for r in group]
        titles = req.store.code_titles(targets, req.language) if targets else []
        context.update(
            parents=parents,
            views=offered,
            dots=dots_for(scheme, len(parents)),
            fallback_texts=fallback["texts"] if fallback else [],
            theme=record["code"][:5] if scheme == "fterm" else None,
            relation_rows=_relation_rows(relations, titles),
            relation_versions=any(
                r["from_version"] or r["to_version"] for _k, group in relations for r in group
            ),
            own_markers=req.store.code_markers([_self_ref(record)])[0],
            has_versions=any(
                v["version"] or v["valid_from"] or v["valid_to"]
                for v in record["available_versions"]
            ),
            named_properties=[p for p in record["properties"] if p["name"] in _NAMED],
            raw_properties=[p for p in record["properties"] if p["name"] not in _NAMED],
            **lists,
        )
    title = f"{record['code']} {_title(record)}".strip()
    return View("code.html", context, record, status, title)


_NAMED: Final = frozenset(
    {"fi_coverage", "fi_revision_note", "theme_group", "translation_status_en", "sort_number"}
)
"""Properties shown with a name; the other columns (flags) are folded as the package's."""


def _self_ref(record: ClassificationRecord) -> CodeRef:
    return {
        "scheme": record["scheme"],
        "edition": record["edition"],
        "code": record["code"],
        "kind": record["kind"] or "",
        "record_status": record["record_status"] or "",
    }


def _relation_rows(
    relations: list[tuple[str, list[Any]]], titles: list[str | None]
) -> list[dict[str, Any]]:
    rows = []
    index = 0
    for kind, group in relations:
        for relation in group:
            title = titles[index] if index < len(titles) else None
            rows.append({"kind": kind, "relation": relation, "title": title})
            index += 1
    return rows


def _group_relations(record: ClassificationRecord) -> list[tuple[str, list[Any]]]:
    """Relations by kind, in the order the store gave them (parents are the breadcrumbs)."""
    groups: dict[str, list[Any]] = {}
    for relation in record["relations"]:
        if relation["kind"] == "parent":
            continue
        groups.setdefault(relation["kind"], []).append(relation)
    return list(groups.items())


def theme_grid(req: PageRequest, theme: str) -> View:
    """The F-term list of a theme as people know it: one row per viewpoint, terms across."""
    record = req.store.lookup("fterm", theme, req.release, None, req.language, relation_limit=200)
    if record["match_status"] in _NOT_FOUND_STATUS or record["kind"] != "theme":
        if record["match_status"] not in _NOT_FOUND_STATUS:
            raise PMGSQueryError("INVALID_CODE", "the grid is shown for a five-character theme")
        return View("code.html", {"record": record, "scheme": "fterm"}, record, 404, theme)
    items: list[HierarchySummary] = []
    first = None
    offset = 0
    complete = False
    for _ in range(GRID_MAX_PAGES):
        page = req.store.hierarchy(
            "descendants",
            "fterm",
            record["code"],
            req.release,
            None,
            req.language,
            limit=GRID_PAGE,
            offset=offset,
        )
        first = first or page
        items.extend(page["items"])
        if page["next_offset"] is None:
            complete = True
            break
        offset = page["next_offset"]
    rows = grid_rows(req, items)
    fallback = None if record["texts"] else _lookup_texts(req, "fterm", record["code"], None)
    coverage = [
        r for r in record["relations"] if r["kind"] == "theme" and r["target"]["scheme"] == "fi"
    ]
    titles = req.store.code_titles([r["target"] for r in coverage][:200], req.language)
    context: dict[str, object] = {
        "record": record,
        "rows": rows,
        "columns": GRID_COLUMNS,
        "truncated": not complete,
        "coverage": list(zip(coverage, titles, strict=False)),
        "coverage_ranges": [p for p in record["properties"] if p["name"] == "fi_coverage"],
        "fallback_texts": fallback["texts"] if fallback else [],
    }
    return View("theme.html", context, first, 200, f"{record['code']} {_title(record)}")


def scheme_index(req: PageRequest, scheme: str) -> View:
    """The entry points of one scheme: FI or IPC (one edition) sections, or F-term themes."""
    if scheme == "fterm":
        categories = req.store.categories(req.release)
        group = req.text("group", 4)
        themes = [t for t in categories["themes"] if group is None or t["theme"][:2] == group]
        context: dict[str, object] = {"themes": themes, "group": group}
        return View("index.html", context, categories, 200, label("fterm", req.language))
    edition = req.text("edition", 8) or None
    records = [
        req.store.lookup(scheme, letter, req.release, edition, req.language, relation_limit=1)
        for letter in SECTIONS
    ]
    found = [r for r in records if r["match_status"] not in _NOT_FOUND_STATUS]
    context = {"sections": found, "scheme": scheme, "edition": edition}
    return View("index.html", context, found, 200, scheme.upper())
