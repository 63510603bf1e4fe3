"""IPC indexing codes (``A61K 103:00``) at the end of each subclass of editions 4 to 7.

Up to the 7th edition the IPC also has indexing codes, written with ``:`` in place of ``/``.
They reuse the numbers of the subclass's own main groups (``C11D 1:04`` beside
``C11D 1/04``), which is exactly what a reader must not confuse, so the generator writes them
that way: one block per subclass after its last group, an indexing main group at the main
group level (its parent is the subclass) and indexing subgroups one level deeper (their
parent is the indexing main group). Off unless the plan asks for a share of the rows.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.plan import Plan
from pmgs_testkit.tree import ipc_group
from pmgs_testkit.writers._context import Context

__all__ = ["INDEXING_EDITIONS", "IndexingWriter"]

INDEXING_EDITIONS: Final = ("4", "5", "6", "7", "7E")
_MAIN_LEVEL: Final = 4
_MAX_SUBGROUPS: Final = 3
_MIN_BLOCK: Final = 2


def indexing_code(subclass: ClassificationCode, main: str, sub: str) -> ClassificationCode:
    """The indexing code ``{subclass}{main}:{sub}``."""
    return ipc_group(subclass, main, sub, indexing=True)


class IndexingWriter:
    """Counts a subclass's old-edition rows and, when it ends, writes its indexing block.

    The blocks' sizes make indexing rows about ``plan.ipc_indexing_share`` of each edition's
    records (one text line per code and edition); a subclass too small for a block of two
    passes its share on to the next.
    """

    def __init__(self, ctx: Context, plan: Plan) -> None:
        self._ctx = ctx
        self._share = plan.ipc_indexing_share
        self._plan = plan
        self._rngs: dict[str, random.Random] = {}
        self._subclass: ClassificationCode | None = None
        self._mains: list[str] = []
        self._rows: Counter[str] = Counter()
        self._owed = 0.0

    @property
    def active(self) -> bool:
        return self._share > 0

    def row_written(self, edition: str) -> None:
        """One more row of ``edition`` in the current subclass."""
        self._rows[edition] += 1

    def group(self, code: ClassificationCode) -> None:
        """Remember the subclass's main group numbers: indexing codes reuse them."""
        if code.kind == "main_group" and code.main_group is not None:
            self._mains.append(code.main_group)

    def start(self, subclass: ClassificationCode | None) -> None:
        """A new subclass (or None: the section's end); the previous one gets its block."""
        self._subclass = subclass
        self._mains = []
        self._rows.clear()

    def finish(
        self,
        files: dict[str, CsvFile],
        tally: Callable[[str, int], None],
        *,
        last: bool = False,
    ) -> None:
        """Write the block of the current subclass into every old edition, then forget it.

        After the package's last subclass what is still owed is written, rounded."""
        subclass = self._subclass
        if not self.active or subclass is None or not self._mains:
            return
        rng = self._rngs.setdefault(
            subclass.canonical[0], self._plan.rng(f"ipc-indexing:{subclass.canonical[0]}")
        )
        per_edition = sum(self._rows[e] for e in INDEXING_EDITIONS) / len(INDEXING_EDITIONS)
        # Owed rows carry over, so that blocks have a main group and subgroups at any scale.
        self._owed += per_edition * self._share / (1 - self._share)
        if last:
            count = round(self._owed)
        else:
            count = math.floor(self._owed) if self._owed >= _MIN_BLOCK else 0
        codes: list[tuple[int, ClassificationCode]] = []
        for main in self._mains:
            if len(codes) >= count:
                break
            codes.append((_MAIN_LEVEL, indexing_code(subclass, main, "00")))
            for number in range(1, min(count - len(codes), rng.randint(1, _MAX_SUBGROUPS)) + 1):
                codes.append((_MAIN_LEVEL + 1, indexing_code(subclass, main, f"{2 * number:02d}")))
        self._owed -= len(codes)
        ctx = self._ctx
        for level, code in codes:
            ctx.example("ipc_indexing_code", code.canonical)
            if code.kind == "subgroup":
                ctx.example("ipc_indexing_subgroup", code.canonical)
            cell = code.fixed_width()
            ja, en = ctx.maker.title()
            for edition in INDEXING_EDITIONS:
                body = en if edition == "7E" else ja
                files[edition].row([cell, "1", "1", f"{level:02d}", "0", body])
                ctx.texts[f"IPC/IPC{edition}_TEXT"] += 1
                tally(edition, level)
        self._mains = []
