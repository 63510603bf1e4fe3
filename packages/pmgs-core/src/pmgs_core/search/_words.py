"""The words a phrase is written with, for the any-word search (ADR 0033).

A Japanese phrase has no spaces between its words (``燃料噴射を制御する装置``), so splitting on
whitespace leaves one long term that no title holds. A morphological analyser (SudachiPy with
SudachiDict core, split mode B) cuts each chunk that holds Japanese script into morphemes, and
the content words are kept exactly as they are written in the query (the surface form: no
dictionary form, no normalised spelling, no synonym):

* kept: nouns, verbs, adjectives and adjectival nouns (名詞, 動詞, 形容詞, 形状詞);
* nouns written next to each other stay one word, as written: a compound is not cut
  (``燃料噴射``, ``リチウムイオン二次電池``, ``弁体``), so that a query of compounds finds
  what it found before; a verb or an adjective is a word of its own (``扱う`` ``システム``);
* a prefix (接頭辞) is joined to the word after it and a suffix (接尾辞) to a number before it
  (``二次``, ``２つ``); any other suffix is left out and ends the word (``電気的`` → ``電気``,
  ``組成物`` → ``組成``: the stem is written in the phrase, and a text holding the whole word
  holds it);
* left out: particles, auxiliaries, symbols, pronouns, conjunctions and the like; words the
  dictionary marks as possibly non-independent (非自立可能: ``する``, ``ある``); verbs written in
  hiragana only (``よる``, ``おける``, ``つい``); and the formal nouns ``もの``, ``こと``,
  ``ところ``, ``よう`` and the hiragana adverbial nouns (``ため``, ``とき``).

A chunk without Japanese script (``control``, ``G06F``) is kept whole, as whitespace splitting
always did. Without the analyser (pmgs-core installed without its ``phrases`` extra) the query
is split on whitespace only and the answer says so (``word_split: "whitespace"``).

The analyser and its dictionary are imported on the first phrase only: a lookup or a search
that needs no split never loads them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from pmgs_core.search._plan import MAX_TERMS, QueryPlan, plan_words

__all__ = [
    "Held",
    "WordSplit",
    "WordSplitMethod",
    "analyser_available",
    "any_plan",
    "split_words",
]

WordSplitMethod = Literal["sudachi", "whitespace"]

_JAPANESE: Final = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]"
)
_HIRAGANA_ONLY: Final = re.compile(r"[\u3040-\u309f]+")
_CONTENT_POS: Final = frozenset({"名詞", "動詞", "形容詞", "形状詞"})
_FORMAL_NOUNS: Final = frozenset({"もの", "こと", "ところ", "よう", "ほう", "の"})


@dataclass(frozen=True, slots=True)
class WordSplit:
    """The words of a query, in the order written, each once, and how they were found:
    ``sudachi`` when the analyser cut a chunk into other words, ``whitespace`` when the words
    are the whitespace-separated chunks (no Japanese script, no chunk cut, or no analyser)."""

    words: tuple[str, ...]
    method: WordSplitMethod


_lock = threading.Lock()
_tokenizer: list[Any] = []
"""The one analyser of the process (empty until the first phrase; built under ``_lock``)."""
_missing: list[bool] = []


def _analyser() -> Any | None:
    """The SudachiPy tokenizer (split mode B), or None when the extra is not installed."""
    if _tokenizer:
        return _tokenizer[0]
    if _missing:
        return None
    try:
        from sudachipy import Dictionary  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        _missing.append(True)
        return None
    try:
        tokenizer = Dictionary(dict="core").tokenizer(mode="B")
    except Exception:
        _missing.append(True)
        return None
    _tokenizer.append(tokenizer)
    return tokenizer


def analyser_available() -> bool:
    """True when phrases are split by the morphological analyser (it is loaded to tell)."""
    with _lock:
        return _analyser() is not None


def _kept(pos: tuple[str, ...], surface: str) -> bool:
    """Whether a morpheme is a content word (module doc)."""
    if pos[0] not in _CONTENT_POS or pos[1] == "代名詞" or "非自立可能" in pos[:3]:
        return False
    hiragana = _HIRAGANA_ONLY.fullmatch(surface) is not None
    if pos[0] == "動詞" and hiragana:
        return False
    return not (pos[0] == "名詞" and hiragana and (surface in _FORMAL_NOUNS or "副詞可能" in pos))


def _chunk_words(tokenizer: Any, chunk: str) -> list[str]:
    """The content words of one whitespace-free chunk of Japanese script: each run of kept
    morphemes written together is one word, as written (module doc)."""
    words: list[str] = []
    current = prefix = ""
    noun = number = False  # the word so far ends in a noun / in a number
    for morpheme in tokenizer.tokenize(chunk):
        pos = tuple(morpheme.part_of_speech())
        surface = str(morpheme.surface())
        if pos[0] == "接頭辞":
            prefix += surface
        elif pos[0] == "接尾辞" and number:
            current += surface  # 二 + 次, ２ + つ
            number = False
        elif pos[0] != "接尾辞" and _kept(pos, surface):
            if not (noun and pos[0] == "名詞" and not prefix):
                if current:
                    words.append(current)
                current = ""
            current += prefix + surface  # nouns written together stay one word
            prefix = ""
            noun, number = pos[0] == "名詞", pos[1] == "数詞"
        else:  # a particle, an auxiliary, a suffix, する …: the word written so far ends
            if current:
                words.append(current)
            current = prefix = ""
            noun = number = False
    if current:
        words.append(current)
    return words


Held = Callable[[str], bool]
"""Whether some text of the release holds a chunk as written (the store's exact search)."""


def split_words(query: str, held: Held | None = None) -> WordSplit:
    """The words of ``query``: each whitespace chunk, and each Japanese chunk cut into its
    content words by the analyser (module doc). A chunk whose morphemes are all left out
    (only particles, say) is kept whole, so that no typed chunk vanishes silently; so is a
    chunk that ``held`` says a text holds as written (``制御するもの``): a phrase is cut
    only where it is written in no text."""
    chunks = query.split()
    with _lock:
        tokenizer = _analyser() if any(_JAPANESE.search(chunk) for chunk in chunks) else None
        found = [
            _chunk_words(tokenizer, chunk) if tokenizer and _JAPANESE.search(chunk) else []
            for chunk in chunks
        ]
    words: list[str] = []
    for chunk, parts in zip(chunks, found, strict=True):
        whole = not parts or (parts != [chunk] and held is not None and held(chunk))
        words.extend([chunk] if whole else parts)
    split = tuple(dict.fromkeys(words))
    method: WordSplitMethod = "whitespace" if split == tuple(dict.fromkeys(chunks)) else "sudachi"
    return WordSplit(split, method)


def any_plan(query: str, held: Held | None = None) -> tuple[QueryPlan | None, WordSplitMethod]:
    """The plan of the any-word search of ``query``: its words (:func:`split_words`), at most
    :data:`~pmgs_core.search._plan.MAX_TERMS` (the first ones), and how they were found."""
    split = split_words(query, held)
    return plan_words(split.words[:MAX_TERMS]), split.method
