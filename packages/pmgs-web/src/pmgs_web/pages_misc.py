"""The pages around the codes: home, search, documents, releases and quarantine.

Each handler makes the store calls the page needs and returns the record the API gave,
unchanged, as the page's JSON answer.
"""

from __future__ import annotations

from typing import Final

from pmgs_core import PMGSQueryError
from pmgs_web.doclinks import linked_pieces
from pmgs_web.i18n import label
from pmgs_web.pages_code import SECTIONS
from pmgs_web.releases import StoreSet
from pmgs_web.view import PageRequest, View, int_param

__all__ = ["document_page", "home", "is_synthetic", "quarantine", "releases", "search"]

SEARCH_PAGE: Final = 20
SEGMENT_PAGE: Final = 20
QUARANTINE_PAGE: Final = 50
_ORDERS: Final = ("index", "relevance")
_MATCHES: Final = ("all", "any")


def is_synthetic(attribution: str) -> bool:
    """The generator's attribution line names the data synthetic in both languages."""
    return attribution.startswith("Synthetic") or "合成データ" in attribution


def home(req: PageRequest) -> View:
    info = req.store.release_info(req.release)
    categories = req.store.categories(req.release)
    groups: dict[str, int] = {}
    for theme in categories["themes"]:
        groups[theme["theme"][:2]] = groups.get(theme["theme"][:2], 0) + 1
    sections = [
        record
        for record in (
            req.store.lookup("fi", letter, req.release, None, req.language, relation_limit=1)
            for letter in SECTIONS
        )
        if record["match_status"] in {"exact", "normalized_exact"}
    ]
    editions = [c for c in info["classification_counts"] if c["scheme"] == "ipc"]
    context: dict[str, object] = {
        "info": info,
        "synthetic": is_synthetic(info["attribution"]),
        "sections": sections,
        "groups": sorted(groups.items()),
        "editions": editions,
    }
    return View("home.html", context, info, 200, info["release_id"])


def _choice(req: PageRequest, name: str, accepted: tuple[str, ...]) -> str:
    value = req.query.get(name) or accepted[0]
    if value not in accepted:
        raise PMGSQueryError(
            "INVALID_ARGUMENT", f"{name} must be one of {', '.join(accepted)}", {name: accepted}
        )
    return value


def search(req: PageRequest) -> View:
    """Classifications and documents at once, each with its own paging (``search_pmgs``).

    The search does not dead-end (ADR 0033): a query that is a code the release holds opens
    that code (the first of FI, F-term, IPC; ``scheme=`` picks one); an exact phrase that no
    text holds shows the any-word results of its words, named; nothing in this language
    links to the other language's hits, counted. ``scheme=`` filters the classifications,
    and each scheme's total (up to 200, then "200+") links to that filter.
    """
    query = req.query.get("q", "")
    order = _choice(req, "order", _ORDERS)
    match = _choice(req, "match", _MATCHES)
    scheme = req.query.get("scheme") or None
    if scheme is not None and scheme not in _SCHEMES:
        raise PMGSQueryError("INVALID_SCHEME", "scheme must be fi, fterm or ipc")
    offsets = (
        int_param(req.query, "classification_offset") or 0,
        int_param(req.query, "document_offset") or 0,
    )
    page = req.store.search_pmgs(
        query,
        [scheme] if scheme else None,
        release=req.release,
        language=req.language,
        limit=SEARCH_PAGE,
        classification_offset=offsets[0],
        document_offset=offsets[1],
        order=order,
        match=match,
        fallback=True,
    )
    codes = page.get("code_matches", [])
    if codes and offsets == (0, 0):
        first = codes[0]
        target = req.links.code(
            first["scheme"], first["code"], first["edition"] if first["scheme"] == "ipc" else None
        )
        return View("search.html", {}, page, 200, query, redirect=target)
    by_type = page["results_by_type"]
    terms: list[str] = []
    classifications = by_type.get("classification")
    documents = by_type.get("document")
    for typed in (classifications, documents):
        if typed is not None:
            terms.extend(term["term"] for term in typed["terms"])
    fallback = page.get("fallback")
    context: dict[str, object] = {
        "page": page,
        "q": query,
        "order": order,
        "match": match,
        "scheme": scheme,
        "marks": sorted(set(terms), key=len, reverse=True),
        "words": list(dict.fromkeys(terms)),
        "fallback": fallback,
        "other": page.get("other_language"),
        "totals": _scheme_totals(req, query, fallback is not None, order, match),
        "classifications": classifications,
        "documents": documents,
    }
    return View("search.html", context, page, 200, query or label("search", req.language))


_SCHEMES: Final = ("fi", "fterm", "ipc")
TOTAL_CAP: Final = 200
"""Hits counted per scheme for the totals line; more shows as "200+"."""


def _scheme_totals(
    req: PageRequest, query: str, fell_back: bool, order: str, match: str
) -> list[dict[str, object]]:
    """Each scheme's classification hits for what the page shows (the any-word search when
    it fell back), counted up to :data:`TOTAL_CAP`; empty for a blank query."""
    if not query.strip():
        return []
    if fell_back:
        order, match = "relevance", "any"
    totals: list[dict[str, object]] = []
    for scheme in _SCHEMES:
        counted = req.store.search(
            query,
            [scheme],
            req.release,
            req.language,
            TOTAL_CAP,
            order=order,
            match=match,
        )
        totals.append({"scheme": scheme, "count": counted["count"], "more": counted["has_more"]})
    return totals


def document_page(req: PageRequest, document_id: str) -> View:
    selector_page = int_param(req.query, "page", minimum=1, code="INVALID_DOCUMENT_SELECTOR")
    section = int_param(req.query, "section", minimum=1, code="INVALID_DOCUMENT_SELECTOR")
    locator = req.text("locator", 256)
    document = req.store.get_document(
        document_id,
        page=selector_page,
        section=section,
        locator=locator,
        segment_limit=SEGMENT_PAGE,
        segment_offset=int_param(req.query, "segment_offset") or 0,
        related_classification_limit=200,
        related_classification_offset=int_param(req.query, "related_offset") or 0,
    )
    segments = document["segments"]
    pieces = linked_pieces(
        req, [s["heading"] or "" for s in segments] + [s["body"] for s in segments]
    )
    context: dict[str, object] = {
        "document": document,
        "headings": pieces[: len(segments)],
        "bodies": pieces[len(segments) :],
    }
    return View("document.html", context, document, 200, document["title"])


def releases(req: PageRequest, stores: StoreSet) -> View:
    infos = stores.installed()
    context: dict[str, object] = {"infos": infos, "current": stores.current_release}
    return View("releases.html", context, infos, 200, label("releases", req.language))


def quarantine(req: PageRequest) -> View:
    page = req.store.list_quarantine(
        req.text("data_group", 64) or None,
        req.release,
        limit=QUARANTINE_PAGE,
        offset=int_param(req.query, "offset") or 0,
    )
    return View("quarantine.html", {"page": page}, page, 200, label("quarantine", req.language))
