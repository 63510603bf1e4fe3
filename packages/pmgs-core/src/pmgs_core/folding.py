"""How text is folded and cut into bigram tokens: one definition for the index, queries, the
user's collection and concise excerpts (ADR 0004, 0008).

The builder fills the bigram tables with :func:`bigram_tokens` (through :func:`index_bigrams`)
and the query side plans 2-character terms with the same function, so an indexed row and a
typed term can never be tokenised two ways. A leaf module: schema, search and records all use
it without importing each other (ADR 0021).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

__all__ = ["bigram_tokens", "fold_for_search", "index_bigrams", "is_indexed_bigram"]


def fold_for_search(text: str) -> str:
    """The normalisation applied to indexed text and to queries alike (NFKC, then casefold).

    Full-width letters and digits pasted from PDFs then meet their half-width forms.
    """
    if not unicodedata.is_normalized("NFKC", text):  # the quick check is far cheaper
        text = _nfkc(text)
    return text.casefold()


_ASCII_FORM_BLOCKS: Final = (
    (0x2000, 0x206F),  # general punctuation (‥, ′, the thin spaces)
    (0x2100, 0x218F),  # letterlike forms and number forms (№, Ⅰ)
    (0x2460, 0x24FF),  # enclosed alphanumerics (①, ⑴)
    (0x3000, 0x3000),  # the ideographic space
    (0x3300, 0x33FF),  # CJK compatibility (㎜, ㎏)
    (0xFF01, 0xFF5E),  # full-width ASCII (：, Ａ, １)
)
"""Where the characters of Japanese texts that NFKC rewrites to plain ASCII live."""


@functools.cache
def _ascii_forms() -> tuple[re.Pattern[str], dict[str, str]]:
    """The characters of :data:`_ASCII_FORM_BLOCKS` whose compatibility decomposition (NFKD)
    is ASCII, each with that decomposition; built at the first use (about 1 ms)."""
    forms: dict[str, str] = {}
    for first, last in _ASCII_FORM_BLOCKS:
        for point in range(first, last + 1):
            character = chr(point)
            decomposed = unicodedata.normalize("NFKD", character)
            if decomposed != character and decomposed.isascii():
                forms[character] = decomposed
    pattern = re.compile("[" + "".join(re.escape(character) for character in forms) + "]")
    return pattern, forms


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, without its slow path for most texts.

    A Japanese text is usually not NFKC only for a few full-width colons, parentheses or
    letters, yet ``normalize`` then costs ~75 ns a character (6.5 µs a segment of the
    document search's check) and evicts the caches the SQLite scan it interleaves with was
    using. Exact: NFKC is the composition of the full compatibility decomposition, and a
    character replaced by its full decomposition (:func:`_ascii_forms`) leaves that
    decomposition unchanged, so the replaced text has the same NFKC; when the replaced
    text is NFKC already (the quick check), it is that NFKC. Otherwise (a mark composes
    with a replaced letter, other compatibility characters), ``normalize`` answers.
    """
    pattern, forms = _ascii_forms()
    replaced = pattern.sub(lambda match: forms[match.group()], text)
    if replaced is not text and unicodedata.is_normalized("NFKC", replaced):
        return replaced
    return unicodedata.normalize("NFKC", text)


_ASCII_SEPARATOR = "\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f"
_INDEXED_PAIR = re.compile(f"(?=([^{_ASCII_SEPARATOR}]{{2}}))")
"""Overlapping pairs of characters that FTS5's ``ascii`` tokenizer keeps inside one token.

That tokenizer splits only at ASCII characters other than letters and digits; every other
character (kana, kanji, full-width punctuation such as 、) is a token character.
"""


def is_indexed_bigram(pair: str) -> bool:
    """True when a folded two-character term has a token in the bigram index.

    A pair with ASCII punctuation or a space (``a,``, ``1/``) has none; the store answers such
    terms with the bounded literal scan instead of reporting a wrong "no results".
    """
    return len(pair) == 2 and _INDEXED_PAIR.match(pair) is not None


def bigram_tokens(text: str | None) -> str:
    """The distinct character bigrams of a folded text, space separated, first-seen order.

    Each bigram is its own token for the ``ascii`` tokenizer of the bigram tables, so a
    2-character query term is exactly one token lookup. The regex does the pairing in C:
    this runs once per text row at build time (millions of rows).
    """
    if not text:
        return ""
    return " ".join(dict.fromkeys(_INDEXED_PAIR.findall(fold_for_search(text))))


_PAIRS_FROM_EVEN: Final = re.compile(f"[^{_ASCII_SEPARATOR}]{{2}}")
_PAIRS_FROM_ODD: Final = re.compile(f"(?<=[^{_ASCII_SEPARATOR}])[^{_ASCII_SEPARATOR}]{{2}}")
"""Within a run of token characters, the pairs at even and at odd offsets: two plain
``findall`` scans give every pair of :func:`bigram_tokens` without a capturing lookahead."""
_ROW_BREAK: Final = "\x00"  # an ASCII separator: no pair spans it, folding keeps it


def index_bigrams(texts: list[str]) -> list[str]:
    """The bigrams of each text for the index: those of :func:`bigram_tokens`, but neither
    distinct nor in first-seen order (a ``detail=none`` index keeps one entry per token and
    row whatever the repeats), and folded a chunk at a time. About a third faster, on
    millions of rows."""
    parts = fold_for_search(_ROW_BREAK.join(texts)).split(_ROW_BREAK)
    if len(parts) != len(texts):  # a text holds the break character itself
        parts = [fold_for_search(text) for text in texts]
    even, odd = _PAIRS_FROM_EVEN.findall, _PAIRS_FROM_ODD.findall
    return [
        " ".join(even(part) + odd(part)) if len(part) <= _LONG_TEXT else _distinct_pairs(part)
        for part in parts
    ]


_LONG_TEXT: Final = 1 << 20
"""Characters from which a text's pairs are collected distinct rather than all listed.

A list of every pair costs about 50 bytes per character (a 2-character str each): fine for
ordinary rows, but a 12.5 MiB quarantined CSV cell made the build peak at ≈1.2 GiB
(issue 17). The index is the same either way, since it keeps one entry per token and row."""


def _distinct_pairs(part: str) -> str:
    """The distinct pairs of a long folded text, in memory that grows with the distinct
    pairs, not with the text."""
    distinct: dict[str, None] = {}
    for pattern in (_PAIRS_FROM_EVEN, _PAIRS_FROM_ODD):
        for match in pattern.finditer(part):
            distinct[match.group()] = None
    return " ".join(distinct)
