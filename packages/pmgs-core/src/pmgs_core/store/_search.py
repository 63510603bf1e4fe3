"""Search as the store offers it: check the arguments, then call the search package once.

Planning, folding, the candidate statement, grouping and paging all live in
:mod:`pmgs_core.search`; this mixin only turns the public arguments into a checked
:class:`~pmgs_core.search.SearchRequest` and runs it under the store's lock (ADRs 0004, 0012).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

from pmgs_core import search as _engine
from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import (
    ClassificationSearchPage,
    CodeRef,
    CombinedSearchPage,
    DocumentSearchPage,
    TextSearchResult,
)
from pmgs_core.schema import DOCUMENT_KINDS, IPC_EDITIONS
from pmgs_core.store._arguments import (
    check_content_types,
    check_edition,
    check_kinds,
    check_language,
    check_limit,
    check_offset,
    check_ranking,
    check_scheme,
    check_schemes,
)
from pmgs_core.store._connection import StoreConnection

__all__ = ["SearchMixin"]


class SearchMixin(StoreConnection):
    """The search capability of :class:`pmgs_core.PMGSStore`."""

    @staticmethod
    def _candidate_sql(*args: Any, **kwargs: Any) -> Any:
        """Kept on the store so that a plan test can ``EXPLAIN`` exactly what a search runs."""
        return _engine.candidate_sql(*args, **kwargs)

    def _check_search_page(self, release: str, language: str, limit: int) -> tuple[str, int]:
        """The release, language and page size every search takes, checked in that order."""
        self._check_release(release)
        return check_language(language), check_limit(limit, "limit")

    def search(
        self,
        query: str,
        schemes: Sequence[str] | None = None,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        offset: int = 0,
        order: str = "index",
        match: str = "all",
        min_score: float = 0.0,
        ipc_editions: Sequence[str] | None = None,
    ) -> ClassificationSearchPage:
        """Classifications whose texts contain every term of ``query`` (lexical, not semantic).

        One hit per classification, ranked by its first matching line in package order.
        ``order="relevance"`` ranks by BM25 instead and ``match="any"`` accepts texts holding
        any of the terms (more terms rank higher); either adds ``score`` (best = 1.0) and
        ``matched_terms`` to each hit, and ``min_score`` drops hits below it.

        An IPC code matched in several editions is one hit listing its ``editions``;
        ``ipc_editions`` limits the IPC editions searched. With several schemes, their hits
        are interleaved (``scheme_merge``), so that none is pushed off the page.
        """
        plan = _engine.check_query(query)
        checked_schemes = check_schemes(schemes)
        page = self._check_search_page(release, language, limit)
        checked_offset = check_offset(offset, "offset")
        request = _ranked_request(
            query,
            plan,
            page,
            checked_schemes,
            None,
            (order, match, min_score),
            ipc_editions,
            held=self._held(page[0], checked_schemes, None),
        )
        reader = self._search_reader()
        return self._locked(lambda: _engine.search_classifications(reader, request, checked_offset))

    def search_documents(
        self,
        query: str,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        offset: int = 0,
        document_kinds: Sequence[str] | None = None,
        order: str = "index",
        match: str = "all",
        min_score: float = 0.0,
    ) -> DocumentSearchPage:
        """Documents whose segments contain every term; one hit per document.

        Documents without a language (PDF definitions, the judgement table) match either
        language. ``document_kinds`` restricts the kinds (the "category" of document-DB
        clients). ``order``, ``match`` and ``min_score`` are those of :meth:`search`.
        """
        plan = _engine.check_query(query)
        page = self._check_search_page(release, language, limit)
        checked_offset = check_offset(offset, "offset")
        kinds = check_kinds(document_kinds)
        request = _ranked_request(
            query,
            plan,
            page,
            [],
            kinds,
            (order, match, min_score),
            held=self._held(page[0], None, kinds),
        )
        reader = self._search_reader()
        return self._locked(lambda: _engine.search_documents(reader, request, checked_offset))

    def search_pmgs(
        self,
        query: str,
        schemes: Sequence[str] | None = None,
        content_types: Sequence[str] | None = None,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        classification_offset: int = 0,
        document_offset: int = 0,
        document_kinds: Sequence[str] | None = None,
        order: str = "index",
        match: str = "all",
        min_score: float = 0.0,
        ipc_editions: Sequence[str] | None = None,
        fallback: bool = False,
    ) -> CombinedSearchPage:
        """Classifications and documents at once, each paged on its own.

        ``limit`` applies to each type separately; continue one type with its own offset.
        ``order``, ``match`` and ``min_score`` are those of :meth:`search` (scores are
        normalised within each type's page). ``ipc_editions`` is that of :meth:`search`.

        ``fallback=True`` does not dead-end (ADR 0033): a query that is a code adds
        ``code_matches`` (the lookups that answer it); an exact phrase that finds nothing is
        answered by the any-word search of the words it is written with (``fallback`` names
        them); still nothing: ``other_language`` counts the hits in the other language.
        """
        if not isinstance(fallback, bool):
            raise PMGSQueryError("INVALID_ARGUMENT", "fallback must be true or false")
        plan = _engine.check_query(query)
        checked_schemes = check_schemes(schemes)
        types = check_content_types(content_types)
        page = self._check_search_page(release, language, limit)
        class_offset = check_offset(classification_offset, "classification_offset")
        doc_offset = check_offset(document_offset, "document_offset")
        kinds = check_kinds(document_kinds)
        held = self._held(page[0], checked_schemes, kinds)
        request = _ranked_request(
            query,
            plan,
            page,
            checked_schemes,
            kinds,
            (order, match, min_score),
            ipc_editions,
            held=held,
        )
        reader = self._search_reader()

        def run(asked: _engine.SearchRequest, first: int, second: int) -> CombinedSearchPage:
            return self._locked(
                lambda: _engine.search_combined(
                    reader, asked, types, classification_offset=first, document_offset=second
                )
            )

        answer = run(request, class_offset, doc_offset)
        if not fallback:
            return answer
        lookup = cast(Any, self).lookup  # the store's LookupMixin
        return _engine.no_dead_end(
            answer,
            request,
            (class_offset, doc_offset),
            run,
            lambda scheme, code: lookup(scheme, code, release, relation_limit=1),
            held,
        )

    def _held(
        self, language: str, schemes: Sequence[str] | None, kinds: list[str] | None
    ) -> _engine.Held:
        """Whether a text of the release (classifications of ``schemes``, documents of
        ``kinds``, in ``language``) holds a chunk as written: the exact search, one hit."""
        reader = self._search_reader()
        searched = list(schemes or ["fi", "fterm", "ipc"])

        def held(chunk: str) -> bool:
            request = _engine.SearchRequest(
                chunk, _engine.plan_query(chunk), language, 1, searched, kinds
            )
            page = self._locked(
                lambda: _engine.search_combined(
                    reader,
                    request,
                    ["classification", "document"],
                    classification_offset=0,
                    document_offset=0,
                )
            )
            return not _engine.is_empty(page)

        return held

    def code_titles(self, refs: Sequence[CodeRef], language: str = "ja") -> list[str | None]:
        """The title (first text line, latest revision) of each referenced code, in order.

        For context beside codes a record only names (relation and concordance targets,
        related classifications): one bounded read for up to 200 references, never a full
        lookup each. None where the code has no text in ``language`` or does not exist.
        """
        checked = check_language(language)
        if not isinstance(refs, (list, tuple)) or len(refs) > 200:
            raise PMGSQueryError("INVALID_ARGUMENT", "refs must be a list of at most 200 codes")
        stream = self._search_reader().stream
        return self._locked(lambda: _engine.code_titles(stream, list(refs), checked))

    def search_text(
        self,
        content: str,
        limit: int = 5,
        min_score: float = 0.3,
        group_by_document: bool = True,
        category: str | None = None,
        *,
        release: str = "current",
        language: str = "ja",
    ) -> TextSearchResult:
        """Official texts ranked by lexical relevance, in the document-database shape.

        ``content`` is any text (a phrase or a pasted sentence): texts holding any of its
        terms are ranked by BM25 (``search(order="relevance", match="any")``).
        ``group_by_document`` gives one item per classification or document; ``category``
        is a scheme (``fi``, ``fterm``, ``ipc``) or a document kind. ``similarity`` is
        relative to the best item (1.0), and ``min_score`` drops items below it. A blank
        ``content`` gives ``items: []``.
        """
        _engine.check_query(content)
        checked_language, checked_limit = self._check_search_page(release, language, limit)
        _, _, checked_min = check_ranking("relevance", "any", min_score)
        if not isinstance(group_by_document, bool):
            raise PMGSQueryError("INVALID_ARGUMENT", "group_by_document must be true or false")
        schemes, kinds, types = _category(category)
        plan, word_split = _engine.any_plan(content, self._held(checked_language, schemes, kinds))
        request = _engine.SearchRequest(
            content,
            plan,
            checked_language,
            checked_limit,
            schemes,
            kinds,
            "relevance",
            "any",
            checked_min,
            word_split=word_split,
        )
        reader = self._search_reader()
        return self._locked(
            lambda: _engine.search_text(
                reader, request, kinds=types, group_by_document=group_by_document
            )
        )


def _ranked_request(
    query: str,
    plan: _engine.QueryPlan | None,
    page: tuple[str, int],
    schemes: list[str],
    kinds: list[str] | None,
    ranking: tuple[object, object, object],
    ipc_editions: Sequence[str] | None = None,
    *,
    held: _engine.Held | None = None,
) -> _engine.SearchRequest:
    """The request of ``search``, ``search_documents`` and ``search_pmgs``: ranking and IPC
    editions are checked last, after the page and the offsets (the order bad input is told in).
    """
    order, match, min_score = check_ranking(*ranking)
    editions = check_ipc_editions(ipc_editions)
    language, limit = page
    word_split = None
    if match == "any" and plan is not None:
        plan, word_split = _engine.any_plan(query, held)
    return _engine.SearchRequest(
        query,
        plan,
        language,
        limit,
        schemes,
        kinds,
        order,
        match,
        min_score,
        editions,
        word_split=word_split,
    )


def check_ipc_editions(editions: object) -> list[str] | None:
    """IPC editions of a search filter, normalised and in preference order (None: all)."""
    if editions is None:
        return None
    if isinstance(editions, str):
        editions = [editions]
    if not isinstance(editions, (list, tuple)) or not editions:
        raise PMGSQueryError(
            "INVALID_EDITION",
            "ipc_editions must be a non-empty list of IPC editions",
            {"accepted": list(IPC_EDITIONS)},
        )
    checked = {check_edition("ipc", edition) for edition in editions}
    return [edition for edition in IPC_EDITIONS if edition in checked]


def _category(
    category: object,
) -> tuple[list[str], list[str] | None, tuple[Literal["classification", "document"], ...]]:
    """Schemes, document kinds and content types a ``search_text`` category leaves."""
    if category is None:
        return ["fi", "fterm", "ipc"], None, ("classification", "document")
    if isinstance(category, str) and category in DOCUMENT_KINDS:
        return [], [category], ("document",)
    try:
        return [check_scheme(category)], None, ("classification",)
    except PMGSQueryError:
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            "category must be a scheme (fi, fterm, ipc) or a document kind",
            {"accepted": ["fi", "fterm", "ipc", *DOCUMENT_KINDS]},
        ) from None
