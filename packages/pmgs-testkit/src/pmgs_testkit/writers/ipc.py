"""``IPC/IPC4_TEXT`` … ``IPC/IPC8U_TEXT``: the seven IPC editions of every base-tree code.

The older editions (4, 5, 6, 7 and 7 in English) leave out a few subgroups each; IPC 8U
holds every version of a code with its validity window, IPC 8B only the current one. The
revision states (one version, two versions, none valid on the reference date) are drawn here
and handed to the document writer, which writes the matching IPC_KAISEI and PDF files.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import Plan, draw
from pmgs_testkit.tree import (
    EDITION_DROP,
    FORCED_EXAMPLES,
    FORCED_IPC_STATE,
    IPC_OLD_EDITIONS,
    Base,
    in_edition,
)
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_EN
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.concordance import Concordance
from pmgs_testkit.writers.ipc_indexing import IndexingWriter

__all__ = ["EDITIONS", "IpcWriter"]

EDITIONS: Final = (*IPC_OLD_EDITIONS, "8B", "8U")
_P_MULTI_VERSION: Final = 1_624 / 70_000
_P_NO_VALID: Final = 2_395 / 70_000
_OPEN_END: Final = "99991231"
_SUBCLASS_LEVEL: Final = 3

Revision = tuple[str, str, str]
"""(version, valid_from, valid_to) of one IPC 8 revision."""


class IpcWriter:
    """Writes every edition's rows of one base-tree code at a time."""

    def __init__(self, ctx: Context, plan: Plan, concordance: Concordance) -> None:
        self._ctx = ctx
        self._concordance = concordance
        self._indexing = IndexingWriter(ctx, plan)
        budget_total = sum(plan.section_budget.values())
        # Extra title lines per code that bring each edition to its real size.
        self._extra: dict[str, float] = {}
        for edition in IPC_OLD_EDITIONS:
            drop = EDITION_DROP[edition.removesuffix("E")]
            items = budget_total * (1 - drop * 0.8)
            self._extra[edition] = max(
                0.0, REAL_ROWS[f"IPC/IPC{edition}_TEXT"] * plan.scale / items - 1
            )
        revisions = budget_total * (1 + _P_MULTI_VERSION)
        self._extra["8U"] = max(0.0, REAL_ROWS["IPC/IPC8U_TEXT"] * plan.scale / revisions - 1)
        current = budget_total * (1 - _P_NO_VALID)
        self._extra["8B"] = max(0.0, REAL_ROWS["IPC/IPC8B_TEXT"] * plan.scale / current - 1)

    def write(
        self,
        base: Base,
        files: dict[str, CsvFile],
        rngs: dict[str, random.Random],
        *,
        min_level: dict[str, int],
        con4: CsvFile,
        recent: deque[ClassificationCode],
    ) -> None:
        """The rows of ``base`` in every edition that has it, and its older-edition mappings."""
        ctx = self._ctx
        code = base.code
        rng = rngs["ipc"]
        cell = code.fixed_width()
        level = f"{base.level:02d}"

        def tally(edition: str) -> None:
            self._tally(edition, base.level, min_level)

        if base.level <= _SUBCLASS_LEVEL:
            # A section, class or subclass row: the subclass before it has ended.
            self.end_subclass(files, min_level)
            self._indexing.start(code if code.kind == "subclass" else None)
        else:
            self._indexing.group(code)

        # Older editions: 4, 5, 6 in Japanese; 7 and 7E share codes and line structure.
        for edition in ("4", "5", "6", "7"):
            if not in_edition(edition, code):
                continue
            lines = 1 + draw(rng, self._extra[edition])
            for line in range(1, lines + 1):
                ja, en = ctx.maker.title()
                files[edition].row([cell, str(line), "1", level, "0", ja])
                ctx.texts[f"IPC/IPC{edition}_TEXT"] += 1
                self._indexing.row_written(edition)
                if edition == "7":
                    files["7E"].row([cell, str(line), "1", level, "0", en])
                    ctx.texts["IPC/IPC7E_TEXT"] += 1
                    self._indexing.row_written("7E")
            tally(edition)
            if edition == "7":
                if rng.random() < self._extra["7E"] - self._extra["7"]:
                    extra = f"{SYNTHETIC_MARK_EN}supplementary English line"
                    files["7E"].row([cell, str(lines + 1), "1", level, "0", extra])
                    ctx.texts["IPC/IPC7E_TEXT"] += 1
                    self._indexing.row_written("7E")
                tally("7E")
                self._concordance.ipc(files["con_7"], rng, "7", code, recent)
            if edition == "4":
                self._concordance.ipc(con4, rng, "4", code, recent)
        self._write_ipc8(base, files, rngs["8u"], tally)

    def end_subclass(
        self, files: dict[str, CsvFile], min_level: dict[str, int], *, last: bool = False
    ) -> None:
        """Write the indexing block of the subclass just ended (if the plan asks for them);
        the section pass calls it once more after a section's last code (``last``: the
        package's last)."""
        self._indexing.finish(
            files,
            lambda edition, level: self._tally(edition, level, min_level),
            last=last,
        )

    def _tally(self, edition: str, level: int, min_level: dict[str, int]) -> None:
        """One concept of ``edition``, with a parent when an earlier row is shallower."""
        ctx = self._ctx
        ctx.concepts[("ipc", edition)] += 1
        if level > min_level[edition]:
            ctx.parents[("ipc", edition)] += 1
        min_level[edition] = min(min_level[edition], level)

    def _revisions(self, rng: random.Random, code: ClassificationCode) -> list[Revision]:
        """The IPC 8 revisions of ``code``, oldest first, tallying the unusual states."""
        ctx = self._ctx
        last_year = ctx.plan.reference_date.year - 1
        state = FORCED_IPC_STATE.get(code.canonical)
        if state is not None:
            ctx.examples[FORCED_EXAMPLES[code.canonical]] = code.canonical
        if state is None:
            state = "single"
            if code.kind in {"main_group", "subgroup"}:
                chance = rng.random()
                if chance < _P_MULTI_VERSION:
                    state = "multi"
                elif chance < _P_MULTI_VERSION + _P_NO_VALID:
                    state = "expired" if rng.random() < 0.7 else "expired2"
        if state == "multi":
            year = rng.randint(2009, last_year)
            ctx.ipc8u_multi += 1
            ctx.example("ipc_two_versions_old_expired", code.canonical)
            return [
                ("2006.01", "20060101", f"{year - 1}1231"),
                (f"{year}.01", f"{year}0101", _OPEN_END),
            ]
        if state == "expired":
            year = rng.randint(2008, last_year)
            ctx.ipc8u_no_valid += 1
            ctx.example("ipc_no_valid_revision", code.canonical)
            return [("2006.01", "20060101", f"{year}1231")]
        if state == "expired2":
            year = rng.randint(2009, last_year)
            ctx.ipc8u_multi += 1
            ctx.ipc8u_no_valid += 1
            ctx.example("ipc_no_valid_revision_two_versions", code.canonical)
            return [("2006.01", "20060101", "20081231"), ("2009.01", "20090101", f"{year}1231")]
        version = "2006.01" if rng.random() < 0.8 else f"{rng.randint(2007, last_year)}.01"
        return [(version, version.replace(".", "") + "01", _OPEN_END)]

    def _write_ipc8(
        self,
        base: Base,
        files: dict[str, CsvFile],
        rng: random.Random,
        tally: Callable[[str], None],
    ) -> None:
        ctx = self._ctx
        code = base.code
        cell = code.fixed_width()
        level = f"{base.level:02d}"
        revisions = self._revisions(rng, code)
        if ctx.docs is not None:
            ctx.docs.ipc_code(code, revisions)
        for version, valid_from, valid_to in revisions:
            ctx.ipc8u_revisions += 1
            for line in range(1, 2 + draw(rng, self._extra["8U"])):
                ja, _ = ctx.maker.title()
                dates = [valid_from, valid_to, "0"]
                files["8U"].row([cell, f"({version})", str(line), "1", level, "0", "0", *dates, ja])
                ctx.texts["IPC/IPC8U_TEXT"] += 1
        tally("8U")
        version, _, valid_to = revisions[-1]
        if valid_to == _OPEN_END:
            for line in range(1, 2 + draw(rng, self._extra["8B"])):
                ja, _ = ctx.maker.title()
                files["8B"].row([cell, f"({version})", str(line), "1", level, "0", "0", "0", ja])
                ctx.texts["IPC/IPC8B_TEXT"] += 1
            tally("8B")
