"""``FI/FI_KAISEI_LINK``: FI codes pointing at their subclass's revision XML."""

from __future__ import annotations

import random

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import Plan
from pmgs_testkit.writers._context import Context

__all__ = ["link_rate", "write_link"]


def link_rate(plan: Plan, fi_groups: float) -> float:
    """Chance of a link row per FI group code (about ``fi_groups`` of them)."""
    return REAL_ROWS["FI/FI_KAISEI_LINK"] * plan.scale / fi_groups


def write_link(ctx: Context, link: CsvFile, rng: random.Random, fi: ClassificationCode) -> None:
    """One link row; the first few (with quirks) have an unquoted comma to be repaired."""
    subclass = fi.canonical[:4]
    year = rng.randint(2010, ctx.plan.reference_date.year - 1)
    description = f"{subclass}.xml {year}年{rng.randint(1, 12)}月改正（合成データ）"
    if ctx.repaired["FI/FI_KAISEI_LINK"] < ctx.plan.link_comma_rows:
        link.raw([fi.fixed_width(), description, " 訂正を含む"])
        ctx.repaired["FI/FI_KAISEI_LINK"] += 1
        ctx.example("fi_kaisei_link_comma_row", fi.canonical)
    else:
        link.row([fi.fixed_width(), description])
