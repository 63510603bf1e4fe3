"""The searcher's formula pages: ``/check`` (is every code of a formula still valid?) and
``/diff`` (what changed between two installed releases).

``/check`` calls :meth:`pmgs_core.PMGSStore.check_codes`, the very call ``pmgs check``
makes, so a page shows the statuses the command prints; full-width (IME) input is read by
the core exactly like its ASCII twin. ``/diff`` asks :func:`pmgs_core.diff_releases` for one
small page (``limit`` / ``offset``), never the whole difference.
"""

from __future__ import annotations

from typing import Any, Final

from pmgs_core import PMGSQueryError, diff_releases
from pmgs_web.gather import MAX_GATHERED, Gathered
from pmgs_web.i18n import label
from pmgs_web.releases import StoreSet
from pmgs_web.view import PageRequest, View, int_param, status_of

__all__ = ["DIFF_PAGE", "MAX_FORMULA_CHARS", "check_page", "diff_page"]

MAX_FORMULA_CHARS: Final = 10_000
"""A formula typed in the page; longer ones are checked with ``pmgs check`` (a file)."""
DIFF_PAGE: Final = 50
LINKED_STATUSES: Final = frozenset({"present", "changed"})
"""A code with one of these has a page in the release: it is a link."""
_SCHEMES: Final = ("fi", "fterm", "ipc")


def _gathered_from(record: Any) -> Gathered | None:
    """The codes of a checked formula, to carry on as the gathered ones (``f``); None when
    they would not fit (the typed formula then stays only in the check page)."""
    codes: Gathered = []
    for item in record["items"]:
        pair = (item["scheme"], item["code"])
        if item["code"] and item["scheme"] in _SCHEMES and pair not in codes:
            codes.append(pair)
    return codes if len(codes) <= MAX_GATHERED else None


def check_page(req: PageRequest) -> View:
    """The formula typed (``formula``), else the gathered one, checked in the release."""
    typed = req.text("formula", MAX_FORMULA_CHARS)
    since = req.text("since", 10) or None
    text = typed if typed is not None and typed.strip() else req.links.formula
    title = label("check", req.language)
    context: dict[str, Any] = {"formula": text, "since": since or "", "hide_formula": True}
    if not text.strip():
        return View("check.html", {**context, "record": None}, None, 200, title)
    try:
        record = req.store.check_codes(text, release=req.release, since=since)
    except PMGSQueryError as error:
        context["error"] = {"code": error.code, "message": error.message, **error.details}
        answer = {"error": {"code": error.code, "message": error.message}}
        return View("check.html", {**context, "record": None}, answer, status_of(error.code), title)
    if typed is not None and typed.strip():
        carried = _gathered_from(record)
        if carried is not None:
            req.links.set_gathered(carried)
    context["record"] = record
    return View("check.html", context, record, 200, title)


def _release_choice(req: PageRequest, name: str, known: list[str], default: str) -> str:
    value = req.text(name, 40) or default
    if value not in known:
        raise PMGSQueryError(
            "RELEASE_NOT_FOUND",
            f"{name} must be an installed release",
            {"available": known},
        )
    return value


def diff_page(req: PageRequest, stores: StoreSet) -> View:
    """One page of the difference from release ``from`` to release ``to``."""
    known = stores.release_ids()
    current = stores.current_release
    older = [release for release in known if release < current]
    old_id = _release_choice(req, "from", known, older[-1] if older else current)
    new_id = _release_choice(req, "to", known, current)
    scheme = req.text("scheme", 8) or None
    under = req.text("under", 40) or None
    offset = int_param(req.query, "offset") or 0
    record = diff_releases(
        stores.select(old_id),
        stores.select(new_id),
        scheme=scheme,
        under=under,
        limit=DIFF_PAGE,
        offset=offset,
    )
    context: dict[str, Any] = {
        "record": record,
        "releases": known,
        "old_id": old_id,
        "new_id": new_id,
        "scheme": scheme or "",
        "under": under or "",
    }
    return View("diff.html", context, record, 200, label("diff", req.language))
