"""``PMGSStore``: the read-only query API of a pmgs reference database.

One class answers every interface (Python, CLI, MCP) so that they cannot disagree. Rules it
keeps everywhere:

* The database is opened read-only (SQLite URI ``mode=ro`` and ``PRAGMA query_only``); no
  method writes, so the file's SHA-256 is the same before and after any number of queries.
* Arguments are checked before any SQL runs; a bad one is a :class:`PMGSQueryError` with a
  stable code and a message without paths, SQL or exception text.
* Nothing is guessed: an unknown code is a ``not_found`` record, an IPC code without a valid
  revision at the reference date is ``not_valid_at_release`` (never an older text), two valid
  revisions at once are ``MULTIPLE_ACTIVE_REVISIONS``.
* Every list is bounded (limit ≤ 200) and every response is at most 4 MiB of UTF-8 JSON.

The class is a facade: each capability is a private module of this package (``_connection``
opens and serialises, ``_arguments`` checks, ``_concepts`` resolves codes, then ``_lookup``,
``_hierarchy``, ``_documents``, ``_search`` and ``_catalog``). The record shapes are in
:mod:`pmgs_core.records`, the search itself in :mod:`pmgs_core.search`, database location
rules in :mod:`pmgs_core.datadir`.
"""

from __future__ import annotations

from pmgs_core.check import CheckMixin
from pmgs_core.store._arguments import MAX_LIMIT
from pmgs_core.store._catalog import CatalogMixin
from pmgs_core.store._documents import DocumentsMixin
from pmgs_core.store._hierarchy import HierarchyMixin
from pmgs_core.store._lookup import LookupMixin
from pmgs_core.store._search import SearchMixin

__all__ = ["MAX_LIMIT", "PMGSStore"]


class PMGSStore(LookupMixin, HierarchyMixin, DocumentsMixin, SearchMixin, CatalogMixin, CheckMixin):
    """Read-only access to one pmgs reference database; open it with :meth:`open`.

    Safe to share between threads: queries are serialised on one connection (each is a few
    milliseconds), which keeps a single read-only file handle per store.
    """
