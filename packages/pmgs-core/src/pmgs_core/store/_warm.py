"""Doing at start what a process's first search would do (issue 42, ADR 0038).

The first search of a process paid about a second that later ones do not: each scheme's
text row-id range (``search._codes.text_range``, read once per database and process by a
scan of every text of the scheme: 0.8-0.9 s a language at full scale, unless the build
recorded them, ADR 0041) and, for a phrase, the
morphological analyser's dictionary (~0.1 s). A server knows it will search, so it starts
:meth:`WarmUpMixin.warm_up` in a thread as soon as its store is open: the work overlaps the
server's own imports (SQLite releases the interpreter lock while it reads) and the server
waits for it (:meth:`WarmUpMixin.wait_warm`) before it takes its first request. The
warm-up reads with a connection of its own, so a lookup is never queued behind it. A
one-shot command (``pmgs search``) warms nothing: its one search does the work once anyway
(none, in a database whose build recorded the ranges).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Final

from pmgs_core.schema import SCHEMES

__all__ = ["WARM_LANGUAGES", "WarmUpMixin"]

logger = logging.getLogger("pmgs_core")

WARM_LANGUAGES: Final = ("ja", "en")
"""Every language a search may ask for; Japanese first (the default), so a server that has
to stop waiting early has at least the common case ready."""


class WarmUpMixin:
    """:meth:`warm_up` and :meth:`wait_warm` of :class:`pmgs_core.PMGSStore`."""

    _warming: threading.Thread | None = None
    _warmed: threading.Event | None = None

    def warm_up(self, *, counts: bool = False, background: bool = True) -> None:
        """Fill the caches a first search fills: the phrase analyser (when installed) and the
        schemes' text ranges, Japanese then English; with ``counts``, also the release's
        counts (:meth:`release_info`, which the viewer shows on every page). In a daemon
        thread unless ``background`` is false; a second call while one runs does nothing.
        Failures are logged only: a search computes whatever is missing itself."""
        if self._warming is not None and self._warming.is_alive():
            return
        self._warmed = threading.Event()
        if not background:
            self._warm(counts)
            return
        thread = threading.Thread(
            target=self._warm, args=(counts,), name="pmgs-warm-up", daemon=True
        )
        self._warming = thread
        thread.start()

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait until a running :meth:`warm_up` has done all but the other language's ranges
        (the default language's first search then finds everything it needs); whether it
        has (True when none ran)."""
        warmed = self._warmed
        return True if warmed is None else warmed.wait(timeout)

    def _warm(self, counts: bool) -> None:
        warmed = self._warmed
        try:
            from pmgs_core.search._codes import text_ranges
            from pmgs_core.search._words import analyser_available

            analyser_available()  # loads the analyser and its dictionary once
            if counts:
                getattr(self, "release_info")()  # noqa: B009 - the store's catalog method
            path: Any = getattr(self, "database_path")  # noqa: B009 - the store's property
            uri = path.resolve().as_uri() + "?mode=ro"
            connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
            try:

                def stream(sql: str, params: Sequence[object]) -> Iterator[tuple[Any, ...]]:
                    return iter(connection.execute(sql, params).fetchall())

                for language in WARM_LANGUAGES:
                    text_ranges(stream, list(SCHEMES), language)
                    if warmed is not None:
                        warmed.set()
            finally:
                connection.close()
        except Exception:
            logger.warning("warm-up failed; the first search does the work", exc_info=True)
        finally:
            if warmed is not None:
                warmed.set()
