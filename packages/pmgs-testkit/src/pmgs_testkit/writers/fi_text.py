"""``FI/FI_TEXT`` and ``FI/FI_TEXT_E``: the titles of every FI code, ja and en side by side."""

from __future__ import annotations

import random
from typing import Final

from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import NOT_TRANSLATED, REAL_ROWS
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN
from pmgs_testkit.writers._context import Context

__all__ = ["write_fi_text"]

_EXTRA_JA: Final = REAL_ROWS["FI/FI_TEXT"] / REAL_ROWS["FI/FI"] - 1
_EXTRA_EN: Final = REAL_ROWS["FI/FI_TEXT_E"] / REAL_ROWS["FI/FI"] - 1
"""Share of codes with a second title line (English has a few more than Japanese)."""


def write_fi_text(
    ctx: Context, text: CsvFile, text_e: CsvFile, rng: random.Random, cell: str
) -> None:
    """The title lines of one FI code (``cell`` is its fixed-width form)."""
    title_ja, title_en = ctx.maker.title()
    lines = [(title_ja, title_en)]
    if rng.random() < _EXTRA_JA:
        lines.append(ctx.maker.title())
    for line, (ja, en) in enumerate(lines, start=1):
        text.row([cell, str(line), "1", "0", "0", "0", ja])
        ctx.texts["FI/FI_TEXT"] += 1
        if rng.random() < 0.005 or ctx.not_translated["FI/FI_TEXT_E"] < 1:
            text_e.row([cell, str(line), "1", "0", "0", "0", NOT_TRANSLATED])
            ctx.not_translated["FI/FI_TEXT_E"] += 1
            ctx.example("fi_text_not_translated", cell.strip())
        else:
            text_e.row([cell, str(line), "1", "0", "0", "0", en])
            ctx.texts["FI/FI_TEXT_E"] += 1
    if rng.random() < _EXTRA_EN - _EXTRA_JA:
        extra = f"{SYNTHETIC_MARK_EN}supplementary English title line"
        text_e.row([cell, str(len(lines) + 1), "1", "0", "0", "0", extra])
        ctx.texts["FI/FI_TEXT_E"] += 1
