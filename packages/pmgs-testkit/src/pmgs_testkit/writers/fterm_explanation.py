"""``FTERM/FTERM_KAISETSU(_E)``: explanations of themes and terms, ja and en side by side.

The explanation rows of a theme are interleaved with its F-term rows (each term's lines
follow it, drawn from the same random stream), so :class:`Explanations` is driven by
:mod:`~pmgs_testkit.writers.fterm` one theme at a time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import LARGE_THEME, Plan, Theme, draw, scaled
from pmgs_testkit.vocabulary import INJECTED_INSTRUCTION, SYNTHETIC_MARK_EN
from pmgs_testkit.writers._context import Context

__all__ = ["TEXT_NOTE_EN", "TEXT_NOTE_JA", "ExplanationRates", "Explanations"]

TEXT_NOTE_JA = "\n（注）合成データの補足行。"
TEXT_NOTE_EN = "\n(Note) synthetic supplementary line."
"""Second lines of the quoted multi-line cells (explanations and the FI handbook)."""

_INJECTED_CODE = f"{LARGE_THEME}AA01"
"""The term whose first explanation is the hostile text (``injected_instruction_text``)."""


@dataclass(frozen=True)
class ExplanationRates:
    """How many explanation lines a term gets, how often English adds one, how often a
    theme explains a term the F-term table lacks (a reference-only code)."""

    mean: float
    en_extra: float
    ref_rate: float

    @classmethod
    def of(cls, plan: Plan) -> ExplanationRates:
        """Rates that make the explanation groups reach their real size at the plan's scale."""
        fterm_rows = sum(t.size for t in plan.themes)
        explained = sum(t.size for t in plan.themes if t.group in plan.kaisetsu_groups)
        ref_rate = scaled(400, plan.scale, 2) / max(1, len(plan.themes))
        explained_themes = sum(1 for t in plan.themes if t.group in plan.kaisetsu_groups)
        target = REAL_ROWS["FTERM/FTERM_KAISETSU"] * plan.scale * explained / fterm_rows
        # Viewpoint headings (about 1 row in 22) get no explanation; themes get 1.5 lines.
        mean = max(0.3, (target - 1.5 * explained_themes) / (explained * 0.955))
        en_extra = REAL_ROWS["FTERM/FTERM_KAISETSU_E"] / REAL_ROWS["FTERM/FTERM_KAISETSU"] - 1
        return cls(mean=mean, en_extra=en_extra, ref_rate=ref_rate)


class Explanations:
    """The explanation rows of one theme, numbered in one sequence; opens with 1-2 theme lines."""

    def __init__(
        self,
        ctx: Context,
        files: tuple[CsvFile, CsvFile],
        rates: ExplanationRates,
        rng: random.Random,
        theme: str,
    ) -> None:
        self._ctx = ctx
        self._ja, self._en = files
        self._rates = rates
        self._rng = rng
        self._seq = 0
        ctx.documents["fterm_explanation"] += 2
        for _ in range(rng.randint(1, 2)):
            self._line(theme, text_type="1", en_extra=0.0)

    def term(self, code: str) -> None:
        """The lines explaining one F-term (possibly none)."""
        lines = draw(self._rng, self._rates.mean)
        if code == _INJECTED_CODE:
            lines = max(lines, 1)
        for _ in range(lines):
            injected = (
                code == _INJECTED_CODE and "injected_instruction_text" not in self._ctx.examples
            )
            self._line(code, text_type="2", en_extra=self._rates.en_extra, injected=injected)

    def reference_only(self, theme: Theme, first_viewpoint: str) -> None:
        """Sometimes (always for the large theme) explain a term the F-term table lacks."""
        if self._rng.random() < self._rates.ref_rate or theme.code == LARGE_THEME:
            code = f"{theme.code}{first_viewpoint}99"
            self._line(code, text_type="2", en_extra=0.0)
            self._ctx.reference_only[("fterm", "")] += 1
            self._ctx.example("fterm_reference_only", code)

    def _line(self, code: str, *, text_type: str, en_extra: float, injected: bool = False) -> None:
        ctx, rng = self._ctx, self._rng
        self._seq += 1
        seq = str(self._seq)
        text_ja, text_en = ctx.maker.sentence()
        if rng.random() < 0.01 or self._ja.rows == 0:
            text_ja += TEXT_NOTE_JA
            text_en += TEXT_NOTE_EN
            ctx.newline_cells += 2
        if injected:
            text_ja = INJECTED_INSTRUCTION
            ctx.examples["injected_instruction_text"] = INJECTED_INSTRUCTION
            ctx.examples["injected_instruction_code"] = code
            ctx.examples["injected_instruction_document"] = f"fterm_explanation:ja:{code[:5]}"
        cell = code.ljust(10)
        self._ja.row([cell, seq, text_type, text_ja])
        self._en.row([cell, seq, text_type, text_en])
        ctx.segments["fterm_explanation"] += 2
        if en_extra and rng.random() < en_extra:
            # English sometimes has one more line than Japanese (as in the real release).
            self._en.row(
                [cell, seq + "1", text_type, f"{SYNTHETIC_MARK_EN}additional English line."]
            )
            ctx.segments["fterm_explanation"] += 1
