"""How text is folded before any comparison: one rule for the index, queries, the user's
collection and concise excerpts (ADR 0004).

It sits below :mod:`pmgs_core.search` and :mod:`pmgs_core.records`, which both use it, so
neither has to import the other for it (ADR 0021: no import circle between subpackages).
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold_for_search"]


def fold_for_search(text: str) -> str:
    """The normalisation applied to indexed text and to queries alike (NFKC, then casefold).

    Full-width letters and digits pasted from PDFs then meet their half-width forms.
    """
    if not unicodedata.is_normalized("NFKC", text):  # the quick check is far cheaper
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()
