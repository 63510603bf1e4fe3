"""``FTERM/FTERM(_E)``: one file per theme group, viewpoints and terms, ja and en side by side.

The explanation files of the same theme group (:mod:`.fterm_explanation`) are written in the
same pass, since each term's explanation lines follow it in the group's random stream.
"""

from __future__ import annotations

import random
from contextlib import ExitStack

from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import NOT_TRANSLATED
from pmgs_testkit.plan import LARGE_THEME, Theme
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.fterm_explanation import ExplanationRates, Explanations

__all__ = ["write_fterms"]


def write_fterms(ctx: Context) -> None:
    """Every theme group's F-term file pair, and its explanation pair where it has one."""
    plan = ctx.plan
    rates = ExplanationRates.of(plan)
    token = plan.date_token
    for group in plan.theme_groups:
        rng = plan.rng(f"fterm:{group}")
        with ExitStack() as stack:
            ja = stack.enter_context(ctx.out.open("FTERM/FTERM", f"fterm_{group}_{token}.csv"))
            en = stack.enter_context(ctx.out.open("FTERM/FTERM_E", f"ftermE_{group}_{token}.csv"))
            kaisetsu: tuple[CsvFile, CsvFile] | None = None
            if group in plan.kaisetsu_groups:
                kaisetsu = (
                    stack.enter_context(
                        ctx.out.open("FTERM/FTERM_KAISETSU", f"ftermKAISETSU_{group}_{token}.csv")
                    ),
                    stack.enter_context(
                        ctx.out.open(
                            "FTERM/FTERM_KAISETSU_E", f"ftermKAISETSUE_{group}_{token}.csv"
                        )
                    ),
                )
            for theme in (t for t in plan.themes if t.group == group):
                explanations = (
                    None
                    if kaisetsu is None
                    else Explanations(ctx, kaisetsu, rates, rng, theme.code)
                )
                _write_theme_terms(ctx, rng, theme, ja=ja, en=en, explanations=explanations)


def _write_theme_terms(
    ctx: Context,
    rng: random.Random,
    theme: Theme,
    *,
    ja: CsvFile,
    en: CsvFile,
    explanations: Explanations | None,
) -> None:
    """The viewpoints (``AA00``…) and terms of one theme, with their explanations."""
    plan = ctx.plan
    if theme.code == LARGE_THEME:
        ctx.example("fterm_large_theme", theme.code)
    seq = 0
    remaining = theme.size
    viewpoint_index = 0
    term_index = 0
    first_viewpoint = ""
    while remaining > 0:
        viewpoint = chr(65 + viewpoint_index // 26) + chr(65 + viewpoint_index % 26)
        first_viewpoint = first_viewpoint or viewpoint
        n_terms = max(0, min(remaining - 1, rng.randint(3, 40)))
        seq += 1
        code = f"{theme.code}{viewpoint}00"
        head_ja, head_en = ctx.maker.viewpoint(viewpoint_index)
        cells = [code.ljust(10), str(seq), "0"]
        ja.row([*cells, head_ja, ""])
        en.row([*cells, head_en, ""])
        ctx.texts["FTERM/FTERM"] += 1
        ctx.texts["FTERM/FTERM_E"] += 1
        ctx.concepts[("fterm", "")] += 1
        ctx.parents[("fterm", "")] += 1
        ctx.example("fterm_viewpoint", code[:7])
        depth = 1
        for number in range(1, n_terms + 1):
            seq += 1
            term_index += 1
            code = f"{theme.code}{viewpoint}{number:02d}"
            label_ja, label_en = ctx.maker.title()
            coverage = ""
            if rng.random() < 0.1:
                coverage = f"{theme.group[0]}{rng.randint(1, 99):02d}B{rng.randint(1, 99)}/00"
                coverage = coverage.replace("0B", "1B")
            ja.row([code.ljust(10), str(seq), str(depth), label_ja, coverage])
            ctx.texts["FTERM/FTERM"] += 1
            ctx.concepts[("fterm", "")] += 1
            ctx.parents[("fterm", "")] += 1
            ctx.example("fterm_term", code)
            en_depth = depth
            if theme.position in plan.depth_mismatch and term_index == 1:
                en_depth = depth + 1
                ctx.warnings["FTERM_TRANSLATION_DEPTH_MISMATCH"] += 1
                ctx.example("fterm_depth_mismatch", code)
            en_cells = [code.ljust(10), str(seq), str(en_depth)]
            if theme.position in plan.comma_rows and term_index == 2:
                # The label has an unquoted comma: the record gets 6 columns.
                word = label_en.removeprefix(SYNTHETIC_MARK_EN)
                en.raw([*en_cells, f"{SYNTHETIC_MARK_EN}holder", f" {word}", coverage])
                ctx.repaired["FTERM/FTERM_E"] += 1
                ctx.texts["FTERM/FTERM_E"] += 1
                ctx.example("fterm_comma_row", code)
            elif rng.random() < 0.005 or (ctx.not_translated["FTERM/FTERM_E"] < 2 and number == 3):
                en.row([*en_cells, NOT_TRANSLATED, coverage])
                ctx.not_translated["FTERM/FTERM_E"] += 1
                ctx.example("fterm_not_translated", code)
            else:
                en.row([*en_cells, label_en, coverage])
                ctx.texts["FTERM/FTERM_E"] += 1
            if explanations is not None:
                explanations.term(code)
            depth = rng.randint(1, min(depth + 1, 4))
        remaining -= 1 + n_terms
        viewpoint_index += 1
    if explanations is not None:
        explanations.reference_only(theme, first_viewpoint)
