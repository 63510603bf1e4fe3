"""``FI/FI_HB`` and ``FI/FI_HB_E``: the handbook notes of FI group codes, ja and en."""

from __future__ import annotations

import random

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import Plan, draw
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.fterm_explanation import TEXT_NOTE_EN, TEXT_NOTE_JA

__all__ = ["handbook_mean", "write_handbook"]


def handbook_mean(plan: Plan, fi_groups: float) -> float:
    """Lines per documented code that give the real size over about ``fi_groups`` codes."""
    return max(1.0, REAL_ROWS["FI/FI_HB"] * plan.scale / (fi_groups * 0.85))


def write_handbook(
    ctx: Context,
    hb: CsvFile,
    hb_e: CsvFile,
    rng: random.Random,
    fi: ClassificationCode,
    mean: float,
) -> None:
    """The handbook lines of one FI group code (none for about 15 % of codes)."""
    lines = 0 if rng.random() < 0.15 else draw(rng, mean)
    if lines == 0:
        return
    cell = fi.fixed_width()
    ctx.documents["fi_handbook"] += 2
    for line in range(1, lines + 1):
        ja, en = ctx.maker.sentence()
        if rng.random() < 0.01 or hb.rows == 0:
            ja += TEXT_NOTE_JA
            en += TEXT_NOTE_EN
            ctx.newline_cells += 2
            ctx.example("fi_handbook_multiline", fi.canonical)
        kind = "1" if line == 1 else "2"
        hb.row([cell, str(line), kind, "0", ja])
        hb_e.row([cell, str(line), kind, "0", en])
        ctx.segments["fi_handbook"] += 2
    if rng.random() < 0.0003:
        hb_e.row([cell, str(lines + 1), "2", "0", f"{SYNTHETIC_MARK_EN}additional English note."])
        ctx.segments["fi_handbook"] += 1
