"""The section pass: FI, its texts, handbook, themes and links, IPC and the concordance.

All of these follow the IPC base tree (:mod:`pmgs_testkit.tree`), so each section's
files are written in one walk over its tree, every group drawing from its own random stream;
nothing is kept in memory but a few recent codes (for the concordance's sibling targets) and,
with documents, the codes of the current subclass (for its revision XML).
"""

from __future__ import annotations

from collections import deque

from pmgs_core import ClassificationCode
from pmgs_testkit._output import CsvFile
from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import SECTIONS, scaled
from pmgs_testkit.tree import as_fi, fi_extensions, ipc, iter_tree
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.concordance import Concordance
from pmgs_testkit.writers.fi_codes import write_fi_row
from pmgs_testkit.writers.fi_handbook import handbook_mean, write_handbook
from pmgs_testkit.writers.fi_revision_link import link_rate, write_link
from pmgs_testkit.writers.fi_theme import FiThemes
from pmgs_testkit.writers.ipc import EDITIONS, IpcWriter

__all__ = ["write_classification"]

_STREAMS = ("fiext", "fi", "hb", "theme", "link", "con", "ipc", "8u")
"""The random streams of a section, one per purpose."""


def write_classification(ctx: Context) -> None:
    """Every section's FI, IPC and concordance files, plus the one IPC 4 concordance file."""
    _SectionPass(ctx).write()


class _SectionPass:
    def __init__(self, ctx: Context) -> None:
        plan = ctx.plan
        self.ctx = ctx
        budget_total = sum(plan.section_budget.values())
        # FI rows that are groups (the ones with handbook, theme, link and concordance rows);
        # never below what the tree itself will produce, which matters at tiny scales.
        fi_groups = max(
            plan.ipc_groups * (1 + plan.fi_extension_mean),
            scaled(REAL_ROWS["FI/FI"], plan.scale, 1)
            - plan.facets
            - (budget_total - plan.ipc_groups),
        )
        self.concordance = Concordance(ctx, plan, fi_groups)
        self.hb_mean = handbook_mean(plan, fi_groups)
        self.link_rate = link_rate(plan, fi_groups)
        self.ipc = IpcWriter(ctx, plan, self.concordance)

    def write(self) -> None:
        token = self.ctx.plan.date_token
        with self.ctx.out.open("CONCORDANCE", f"con_IPC4toIPC8U_ALL_{token}.csv") as con4:
            for index, section in enumerate(SECTIONS):
                self._write_section(section, index, con4)

    def _open(self, section: str) -> dict[str, CsvFile]:
        t = self.ctx.plan.date_token
        o = self.ctx.out
        files = {
            "fi": o.open("FI/FI", f"fi_{section}_{t}.csv"),
            "text": o.open("FI/FI_TEXT", f"fiText_{section}_{t}.csv"),
            "text_e": o.open("FI/FI_TEXT_E", f"fiTextE_{section}_{t}.csv"),
            "hb": o.open("FI/FI_HB", f"fiHB_{section}_{t}.csv"),
            "hb_e": o.open("FI/FI_HB_E", f"fiHBE_{section}_{t}.csv"),
            "theme": o.open("FI/FI_THEME", f"fiTheme_{section}_{t}.csv"),
            "link": o.open("FI/FI_KAISEI_LINK", f"fiLink_{section}_{t}.csv"),
            "con_fi": o.open("CONCORDANCE", f"con_FItoIPC8U_{section}_{t}.csv"),
            "con_7": o.open("CONCORDANCE", f"con_IPC7toIPC8U_{section}_{t}.csv"),
        }
        for edition in EDITIONS:
            files[edition] = o.open(f"IPC/IPC{edition}_TEXT", f"ipc{edition}_{section}_{t}.csv")
        return files

    def _write_section(self, section: str, index: int, con4: CsvFile) -> None:
        ctx = self.ctx
        plan = ctx.plan
        files = self._open(section)
        rngs = {name: plan.rng(f"{name}:{section}") for name in _STREAMS}
        fi_min_level = [99]
        ipc_min_level = dict.fromkeys(EDITIONS, 99)
        themes = FiThemes(ctx, files["theme"], rngs["theme"])
        recent: deque[ClassificationCode] = deque(maxlen=8)
        last_subclass = ipc(section)
        fi_seq = 0
        first_link = True
        # What the revision XML of the current subclass needs (documents only): its FI group
        # codes and the codes FI_KAISEI_LINK points at; written when the subclass ends.
        subclass_fi: list[ClassificationCode] = []
        subclass_links: list[ClassificationCode] = []
        docs = ctx.docs
        try:
            for base in iter_tree(plan, section):
                code = base.code
                if code.kind == "subclass":
                    themes.new_subclass()
                    recent.clear()
                    if docs is not None and last_subclass.kind == "subclass":
                        docs.fi_subclass(last_subclass, subclass_fi, subclass_links)
                    subclass_fi, subclass_links = [], []
                    last_subclass = code
                self.ipc.write(base, files, rngs, min_level=ipc_min_level, con4=con4, recent=recent)
                is_group = code.kind in {"main_group", "subgroup"}
                nodes = [(base.level, as_fi(code))]
                if is_group:
                    for dev, sym in fi_extensions(rngs["fiext"], code, plan.fi_extension_mean):
                        level = base.level + (2 if dev is not None and sym is not None else 1)
                        nodes.append((level, as_fi(code, dev, sym)))
                for level, fi in nodes:
                    fi_seq += 1
                    write_fi_row(
                        ctx,
                        files,
                        rngs["fi"],
                        fi,
                        level=level,
                        fi_seq=fi_seq,
                        min_level=fi_min_level,
                    )
                    if not is_group:
                        continue
                    subclass_fi.append(fi)
                    write_handbook(ctx, files["hb"], files["hb_e"], rngs["hb"], fi, self.hb_mean)
                    themes.write(fi)
                    if rngs["link"].random() < self.link_rate or (
                        first_link and code.kind == "main_group"
                    ):
                        first_link = False
                        write_link(ctx, files["link"], rngs["link"], fi)
                        subclass_links.append(fi)
                    self.concordance.fi(files["con_fi"], rngs["con"], fi, code, recent)
                if is_group:
                    recent.append(code)
            self.ipc.end_subclass(files, ipc_min_level, last=index == len(SECTIONS) - 1)
            self.concordance.reference_only(files["con_fi"], index, last_subclass, recent)
            if docs is not None and last_subclass.kind == "subclass":
                docs.fi_subclass(last_subclass, subclass_fi, subclass_links)
        finally:
            for file in files.values():
                file.close()
