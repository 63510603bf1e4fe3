"""``FI/FI_THEME``: which F-term theme an FI group code belongs to."""

from __future__ import annotations

import random
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import Theme
from pmgs_testkit.writers._context import Context

__all__ = ["FiThemes"]

_RATE: Final = REAL_ROWS["FI/FI_THEME"] / REAL_ROWS["FI/FI"]
"""Share of FI group codes with a theme row."""


class FiThemes:
    """The theme rows of one section: mostly the theme of the current subclass."""

    def __init__(self, ctx: Context, file: CsvFile, rng: random.Random) -> None:
        self._ctx = ctx
        self._file = file
        self._rng = rng
        self._seq = 0
        self._subclass_theme = ctx.plan.themes[0]

    def new_subclass(self) -> None:
        """Pick the theme most codes of the subclass that starts now will get."""
        self._subclass_theme = self._any_theme()

    def write(self, fi: ClassificationCode) -> None:
        """Perhaps a theme row for ``fi`` (one in ten gets another theme than its subclass)."""
        if self._rng.random() < _RATE:
            self._seq += 1
            theme = self._subclass_theme
            if self._rng.random() < 0.1:
                theme = self._any_theme()
            self._file.row([fi.fixed_width(), str(self._seq), theme.group, theme.number, "0"])
            self._ctx.relations["theme"] += 1

    def _any_theme(self) -> Theme:
        themes = self._ctx.plan.themes
        return themes[self._rng.randrange(len(themes))]
