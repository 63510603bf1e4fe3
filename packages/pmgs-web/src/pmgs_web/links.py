"""The viewer's addresses: one function per page kind, so every link is built the same way.

Paths mirror the ``pmgs://`` resource URIs of the MCP server (``/fi/G06F3/048`` for
``pmgs://fi/G06F3/048``, ``/document/<id>`` for ``pmgs://document/<id>``), so a client can
open in the browser what an agent cited. Every link keeps the page's ``release`` and
``lang`` so that a bookmark shows the same release in the same language.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote, urlencode

from pmgs_core import code_viewer_path, document_viewer_path
from pmgs_web.gather import MAX_GATHERED, Gathered, formula_text, gathered_value

__all__ = ["Linker", "code_path", "document_path"]


def code_path(scheme: str, code: str) -> str:
    """The viewer path of a code (relative to the viewer's root), without query."""
    return code_viewer_path(scheme, code)


def document_path(document_id: str) -> str:
    return document_viewer_path(document_id)


class Linker:
    """Builds the links of one request: the mount prefix, ``release`` and ``lang`` kept."""

    def __init__(self, root_path: str, path: str, query: Mapping[str, str], language: str) -> None:
        self.root = "/" + root_path.strip("/") if root_path.strip("/") else ""
        self.path = "/" + path.lstrip("/")  # path-only: "//fi/X" would name a host "fi"
        self.query = dict(query)
        self.language = language
        self.sticky: dict[str, str] = {}
        self.release_checked = False
        """False until the store of the asked release is open (an error page then drops it)."""
        self.gathered: Gathered = []
        """The codes gathered into the formula (``f``), once read: every link keeps them."""
        self.gathered_checked = False
        if query.get("release") not in {None, "", "current"}:
            self.sticky["release"] = query["release"]
        if language != "ja":
            self.sticky["lang"] = language

    def set_gathered(self, codes: Gathered) -> None:
        """The codes every link of this page carries (``f``; none drops the parameter)."""
        self.gathered = list(codes)
        self.gathered_checked = True
        if codes:
            self.sticky["f"] = gathered_value(codes)
        else:
            self.sticky.pop("f", None)

    @property
    def formula(self) -> str:
        """The gathered codes as a J-PlatPat formula (empty when none)."""
        return formula_text(self.gathered)

    @property
    def gather_full(self) -> bool:
        return len(self.gathered) >= MAX_GATHERED

    def gathers(self, scheme: str, code: str) -> bool:
        return (scheme, code) in self.gathered

    def gather(self, scheme: str, code: str) -> str:
        """This page with ``code`` added to the formula."""
        codes = [*self.gathered, (scheme, code)] if not self.gathers(scheme, code) else []
        return self.here(f=gathered_value(codes or self.gathered))

    def ungather(self, scheme: str, code: str) -> str:
        """This page with ``code`` taken out of the formula."""
        codes = [pair for pair in self.gathered if pair != (scheme, code)]
        return self.here(f=gathered_value(codes) if codes else None)

    def url(self, path: str, **params: object) -> str:
        """``path`` under the viewer's root with the sticky parameters and ``params``."""
        merged: dict[str, str] = dict(self.sticky)
        for key, value in params.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = str(value)
        tail = f"?{urlencode(merged)}" if merged else ""
        return f"{self.root}{path}{tail}"

    def code(self, scheme: str, code: str, edition: str | None = None, **params: object) -> str:
        return self.url(code_path(scheme, code), edition=edition, **params)

    def theme(self, theme: str) -> str:
        return self.url(f"/theme/{quote(theme, safe='')}")

    def document(self, document_id: str, **params: object) -> str:
        return self.url(document_path(document_id), **params)

    def here(self, **params: object) -> str:
        """This page with some query parameters changed (``None`` removes one)."""
        merged: dict[str, object] = {
            k: v for k, v in self.query.items() if k not in self.sticky and k != "lang"
        }
        merged.update(params)
        return self.url(self.path, **merged)

    def language_switch(self, language: str) -> str:
        """This page in another language (``lang`` is dropped for the default, Japanese)."""
        merged: dict[str, str] = {k: v for k, v in self.query.items() if k != "lang"}
        if language != "ja":
            merged["lang"] = language
        tail = f"?{urlencode(merged)}" if merged else ""
        return f"{self.root}{self.path}{tail}"

    def json(self) -> str:
        """The same page as JSON (the ``.json`` suffix)."""
        tail = f"?{urlencode(self.query)}" if self.query else ""
        path = self.path.rstrip("/") or "/index"
        return f"{self.root}{path}.json{tail}"
