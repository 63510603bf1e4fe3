"""The viewer's own words in Japanese (the default) and English.

Package texts are never translated here: only the labels around them. A missing English
label falls back to the Japanese one, so a page is never blank for lack of a translation.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Final

LANGUAGES: Final = ("ja", "en")

_LABELS: Final[dict[str, tuple[str, str]]] = {
    key: (ja, en)
    for key, (ja, en) in json.loads(
        resources.files("pmgs_web").joinpath("labels.json").read_text(encoding="utf-8")
    ).items()
}
"""key: (Japanese, English), kept as data in ``labels.json`` beside this module."""


def label(key: str, language: str) -> str:
    """The label in ``language``; an unknown key is shown as itself (visible in tests)."""
    pair = _LABELS.get(key)
    if pair is None:
        return key
    return pair[1] if language == "en" and pair[1] else pair[0]


def value_label(prefix: str, value: object, language: str) -> str:
    """A package or engine value (a kind, a status, a relation kind) in the page's language:
    the label ``prefix.value`` when there is one, else the value as it is."""
    text = "" if value is None else str(value)
    key = f"{prefix}.{text}"
    return label(key, language) if key in _LABELS else text
