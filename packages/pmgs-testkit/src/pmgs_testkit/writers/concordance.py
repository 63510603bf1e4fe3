"""``CONCORDANCE``: FI, IPC 7 and IPC 4 codes mapped to IPC 8 codes.

Rows are written during the section pass (:mod:`.classification`), next to the codes they map;
every mapping points at the code itself and sometimes at a few recent siblings of its subclass,
and each section ends with rows naming codes that no table defines (reference-only codes).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import Plan, draw, scaled
from pmgs_testkit.tree import as_fi, ipc_group
from pmgs_testkit.writers._context import Context

__all__ = ["Concordance"]

_SHARE: Final = {"FI": 0.62, "IPC7": 0.28, "IPC4": 0.10}
"""Share of the real concordance rows per left-hand scheme."""
_GHOST_MAIN_GROUP: Final = 8000
"""Main groups from here on never exist in a table: the reference-only codes."""


class Concordance:
    """The concordance writer of a package: its rates and the reference-only numbering."""

    def __init__(self, ctx: Context, plan: Plan, fi_groups: float) -> None:
        concordance = REAL_ROWS["CONCORDANCE"] * plan.scale
        groups = plan.ipc_groups
        self._ctx = ctx
        self._mean = {
            "FI": max(1.0, concordance * _SHARE["FI"] / fi_groups),
            "IPC7": max(1.0, concordance * _SHARE["IPC7"] / (groups * 0.97)),
            "IPC4": max(0.5, concordance * _SHARE["IPC4"] / (groups * 0.9)),
        }
        self._ref_ipc = scaled(400, plan.scale, 2)
        self._ref_fi = scaled(200, plan.scale, 2)
        self._ref_counter = 0

    def fi(
        self,
        con: CsvFile,
        rng: random.Random,
        fi: ClassificationCode,
        ipc: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        """FI code -> its IPC group, sometimes also recent siblings."""
        self._map(con, rng, "FI", ("1", fi.fixed_width()), ipc, recent)

    def ipc(
        self,
        con: CsvFile,
        rng: random.Random,
        edition: str,
        code: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        """Older-edition code -> IPC 8 codes: itself, sometimes also siblings of its subclass."""
        if code.kind not in {"main_group", "subgroup"}:
            return
        self._map(con, rng, f"IPC{edition}", (edition, code.fixed_width()), code, recent)

    def _map(
        self,
        con: CsvFile,
        rng: random.Random,
        scheme: str,
        left: tuple[str, str],
        code: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        count = draw(rng, self._mean[scheme])
        if count == 0:
            return
        targets = [code]
        others = [c for c in recent if c is not code]
        if count > 1 and others:
            targets.extend(rng.sample(others, min(count - 1, len(others))))
        for target in targets:
            con.row([*left, "8", target.fixed_width()])
            self._ctx.relations["concordance"] += 1

    def reference_only(
        self,
        con: CsvFile,
        index: int,
        subclass: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        """Rows naming codes no table defines: IPC on the right, then FI on the left.

        ``index`` is the section's position: the counts are spread evenly over the 8 sections.
        """
        ctx = self._ctx
        n_ipc = self._ref_ipc // 8 + (1 if index < self._ref_ipc % 8 else 0)
        n_fi = self._ref_fi // 8 + (1 if index < self._ref_fi % 8 else 0)
        existing = recent[-1] if recent else ipc_group(subclass, 1, "00")
        for _ in range(n_ipc):
            ghost = self._ghost(subclass)
            con.row(["1", as_fi(existing).fixed_width(), "8", ghost.fixed_width()])
            ctx.reference_only[("ipc", "8U")] += 1
            ctx.relations["concordance"] += 1
            ctx.example("concordance_reference_only", ghost.canonical)
        for _ in range(n_fi):
            ghost_fi = as_fi(self._ghost(subclass), "901")
            con.row(["1", ghost_fi.fixed_width(), "8", existing.fixed_width()])
            ctx.reference_only[("fi", "")] += 1
            ctx.relations["concordance"] += 1
            ctx.example("concordance_reference_only_fi", ghost_fi.canonical)

    def _ghost(self, subclass: ClassificationCode) -> ClassificationCode:
        self._ref_counter += 1
        return ipc_group(subclass, _GHOST_MAIN_GROUP + self._ref_counter, "00")
