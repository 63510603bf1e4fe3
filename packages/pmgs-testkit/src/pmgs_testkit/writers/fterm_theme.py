"""``FTERM/THEME`` and ``FTERM/THEME_E``: the theme list, ja and en written side by side."""

from __future__ import annotations

from pmgs_testkit.catalog import NOT_TRANSLATED
from pmgs_testkit.plan import SECTIONS
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN, SYNTHETIC_MARK_JA
from pmgs_testkit.writers._context import Context

__all__ = ["write_themes"]


def write_themes(ctx: Context) -> None:
    """Every planned theme under a bare group header row (which the builder skips)."""
    plan = ctx.plan
    rng = plan.rng("themes")
    name = plan.date_token
    with (
        ctx.out.open("FTERM/THEME", f"theme_{name}.csv") as ja,
        ctx.out.open("FTERM/THEME_E", f"themeE_{name}.csv") as en,
    ):
        sequence = 0
        group = ""
        for theme in plan.themes:
            if theme.group != group:
                group = theme.group
                sequence += 1
                # A bare group header: not a theme, the builder skips and counts it.
                head = [group, str(sequence), group, "0", f"{sequence:05d}", ""]
                ja.row([*head, f"{SYNTHETIC_MARK_JA}テーマグループ{group}", ""])
                en.row([*head, f"{SYNTHETIC_MARK_EN}theme group {group}", ""])
                ctx.skipped_theme_rows["FTERM/THEME"] += 1
                ctx.skipped_theme_rows["FTERM/THEME_E"] += 1
                ctx.example("theme_group_header", group)
            sequence += 1
            title_ja, title_en = ctx.maker.title()
            remarks = rng.random() < 0.2
            remark_ja = f"{SYNTHETIC_MARK_JA}備考：{title_ja[6:]}と併用" if remarks else ""
            remark_en = f"{SYNTHETIC_MARK_EN}remark: used with {title_en[11:]}" if remarks else ""
            coverage = f"{rng.choice(SECTIONS)}{rng.randint(1, 99):02d}{rng.choice('BCDFGHJK')}"
            coverage += f"{rng.randint(1, 40)}/00-{rng.randint(41, 99)}/99"
            cells = [theme.code, str(sequence), theme.group, "0", f"{sequence:05d}", coverage]
            ja.row([*cells, title_ja, remark_ja])
            ctx.texts["FTERM/THEME"] += 1 + (1 if remarks else 0)
            en_cells = list(cells)
            if theme.position in plan.theme_seq_mismatch:
                en_cells[1] = str(sequence + 1)
                ctx.warnings["THEME_TRANSLATION_SEQUENCE_MISMATCH"] += 1
                ctx.example("fterm_theme_sequence_mismatch", theme.code)
            if rng.random() < 0.01 or ctx.not_translated["FTERM/THEME_E"] < 1:
                en.row([*en_cells, NOT_TRANSLATED, ""])
                ctx.not_translated["FTERM/THEME_E"] += 1
                ctx.example("fterm_theme_not_translated", theme.code)
            else:
                en.row([*en_cells, title_en, remark_en])
                ctx.texts["FTERM/THEME_E"] += 1 + (1 if remarks else 0)
            ctx.concepts[("fterm", "")] += 1
