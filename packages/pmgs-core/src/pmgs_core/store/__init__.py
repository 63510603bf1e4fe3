"""``PMGSStore``: the read-only query API of a pmgs reference database (ADR 0004).

One class answers every interface (Python, CLI, MCP) so that they cannot disagree. It is a
facade over one private module a capability (ADR 0011); record shapes are in
:mod:`pmgs_core.records`, the search in :mod:`pmgs_core.search`.
"""

from __future__ import annotations

from pmgs_core.store._arguments import MAX_LIMIT
from pmgs_core.store._catalog import CatalogMixin
from pmgs_core.store._check import CheckMixin
from pmgs_core.store._documents import DocumentsMixin
from pmgs_core.store._hierarchy import HierarchyMixin
from pmgs_core.store._lookup import LookupMixin
from pmgs_core.store._marks import CodeMarkers, MarkersMixin
from pmgs_core.store._search import SearchMixin
from pmgs_core.store._warm import WarmUpMixin

__all__ = ["MAX_LIMIT", "CodeMarkers", "PMGSStore"]


class PMGSStore(
    LookupMixin,
    HierarchyMixin,
    DocumentsMixin,
    SearchMixin,
    CatalogMixin,
    CheckMixin,
    MarkersMixin,
    WarmUpMixin,
):
    """Read-only access to one pmgs reference database; open it with :meth:`open`.

    Safe to share between threads: queries are serialised on one connection (each is a few
    milliseconds), which keeps a single read-only file handle per store.
    """
