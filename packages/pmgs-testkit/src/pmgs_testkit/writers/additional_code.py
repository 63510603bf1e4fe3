"""``FTERM/ADD_CODE(_E)``: additional codes of some themes, HTML tables in UTF-8, ja and en."""

from __future__ import annotations

from typing import Final

from pmgs_testkit._output import Output
from pmgs_testkit.plan import Plan
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN, SYNTHETIC_MARK_JA, TextMaker
from pmgs_testkit.writers.html_table import html_page, needs_recovery

__all__ = ["ADD_CODE_HEADER", "ADD_CODE_HEADER_E", "write_additional_codes"]

ADD_CODE_HEADER: Final = ("テーマコード", "付加コード", "説明")
ADD_CODE_HEADER_E: Final = ("Theme code", "Additional code", "Description")
_LANGUAGES: Final = (
    ("FTERM/ADD_CODE", "addCode", ADD_CODE_HEADER, "ja"),
    ("FTERM/ADD_CODE_E", "addCodeE", ADD_CODE_HEADER_E, "en"),
)


def write_additional_codes(
    out: Output, plan: Plan, examples: dict[str, str], recovery_files: list[str]
) -> dict[str, int]:
    """Write the ADD_CODE file pairs (themes split between them); return data rows per group."""
    rng = plan.rng("add_code")
    themes = [theme.code for theme in plan.themes]
    compact = plan.compact
    files = 1 if compact else 2
    written = dict.fromkeys((group for group, *_ in _LANGUAGES), 0)
    for index in range(files):
        part = themes[len(themes) * index // files : len(themes) * (index + 1) // files]
        rows: list[tuple[str, str, str, str]] = []
        maker = TextMaker(rng)
        for position, theme in enumerate(part):
            if position and rng.random() >= 0.12:
                continue
            for number in range(1, rng.randint(1, 2 if compact else 5) + 1):
                ja, en = maker.title()
                rows.append((theme, f"Z{chr(65 + position % 26)}{number:02d}", ja, en))
        for group, stem, header, language in _LANGUAGES:
            name = f"{stem}_{index + 1}.html"
            recovery = needs_recovery(plan.with_quirks, group, index, files)
            cells = [(r[0], r[1], r[2] if language == "ja" else r[3]) for r in rows]
            page = html_page(
                charset_meta='<meta charset="UTF-8">',
                title="付加コード（合成データ）" if language == "ja" else "Additional codes",
                header=header,
                rows=cells,
                footer=(
                    f"{SYNTHETIC_MARK_JA}付加コードの一覧です。"
                    if language == "ja"
                    else f"{SYNTHETIC_MARK_EN}list of additional codes."
                ),
                needs_recovery=recovery,
            )
            out.write_bytes(group, name, page.encode("utf-8"), rows=len(cells))
            if recovery:
                recovery_files.append(f"{group}/{name}")
            written[group] += len(cells)
            examples.setdefault(
                "fterm_additional_code_document", f"fterm_additional_code:{language}:{name[:-5]}"
            )
            if rows:
                examples.setdefault("fterm_additional_code_theme", rows[0][0])
    return written
