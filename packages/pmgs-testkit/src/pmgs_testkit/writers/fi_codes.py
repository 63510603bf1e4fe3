"""``FI/FI``: the FI code table (with its titles), and the ninth file of broad facets."""

from __future__ import annotations

import random

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.tree import FORCED_EXAMPLES
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.fi_text import write_fi_text

__all__ = ["write_facets", "write_fi_row"]


def write_fi_row(
    ctx: Context,
    files: dict[str, CsvFile],
    rng: random.Random,
    fi: ClassificationCode,
    *,
    level: int,
    fi_seq: int,
    min_level: list[int],
) -> None:
    """One ``FI/FI`` row and its title lines (``files``: ``fi``, ``text``, ``text_e``).

    ``min_level`` is the lowest level seen so far in the file: a row below it has a parent.
    """
    cell = fi.fixed_width()
    marker = "1" if fi.development_code or fi.file_symbol else "0"
    files["fi"].row([cell, str(fi_seq), marker, "0", f"{level:02d}"])
    ctx.concepts[("fi", "")] += 1
    if level > min_level[0]:
        ctx.parents[("fi", "")] += 1
    min_level[0] = min(min_level[0], level)
    if fi.canonical in FORCED_EXAMPLES:
        ctx.examples[FORCED_EXAMPLES[fi.canonical]] = fi.canonical
    if fi.development_code and fi.file_symbol:
        ctx.example("fi_with_development_code_and_file_symbol", fi.canonical)
    elif fi.development_code:
        ctx.example("fi_with_development_code", fi.canonical)
    elif fi.file_symbol:
        ctx.example("fi_with_file_symbol", fi.canonical)
    write_fi_text(ctx, files["text"], files["text_e"], rng, cell)


def write_facets(ctx: Context) -> None:
    """The ninth FI file: broad facets (``ZAA``…), roots of their own (level 01)."""
    plan = ctx.plan
    rng = plan.rng("facets")
    t = plan.date_token
    names = sorted(rng.sample(range(26 * 26), plan.facets))
    with (
        ctx.out.open("FI/FI", f"fi_Z_{t}.csv") as fi,
        ctx.out.open("FI/FI_TEXT", f"fiText_Z_{t}.csv") as text,
        ctx.out.open("FI/FI_TEXT_E", f"fiTextE_Z_{t}.csv") as text_e,
    ):
        files = {"fi": fi, "text": text, "text_e": text_e}
        min_level = [99]
        for seq, index in enumerate(names, start=1):
            facet = f"Z{chr(65 + index // 26)}{chr(65 + index % 26)}"
            code = ClassificationCode(scheme="fi", kind="facet", facet=facet)
            ctx.example("fi_facet", code.canonical)
            write_fi_row(ctx, files, rng, code, level=1, fi_seq=seq, min_level=min_level)
