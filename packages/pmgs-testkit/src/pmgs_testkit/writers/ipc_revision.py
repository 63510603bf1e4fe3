"""``IPC_KAISEI``: IPC revision tables (Shift_JIS HTML) whose endpoints are IPC 8U revisions.

The edges are collected while the IPC 8U codes are written (one code at a time, in tree
order) and the tables are written at the end, sorted by change date.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from pmgs_core import ClassificationCode
from pmgs_testkit._output import Output
from pmgs_testkit.catalog import REAL_DOCUMENT_FILES
from pmgs_testkit.plan import Plan
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_JA
from pmgs_testkit.writers.html_table import html_page, needs_recovery

__all__ = ["IPC_KAISEI_HEADER", "IpcRevisions"]

IPC_KAISEI_HEADER: Final = ("旧IPC", "分類の発効日", "新IPC", "分類の発効日")
_GROUP_KINDS: Final = frozenset({"main_group", "subgroup"})


class _Edge(NamedTuple):
    key: tuple[str, int]
    old: ClassificationCode
    old_version: str
    new: ClassificationCode
    new_version: str


def _ipc_cell(code: ClassificationCode) -> str:
    """IPC codes as revision tables print them: ``G06F 3/048`` (a space after the subclass)."""
    return f"{code.canonical[:4]} {code.main_group}/{code.subgroup}"


class IpcRevisions:
    """The revision edges of a package, then its IPC_KAISEI files."""

    def __init__(self, examples: dict[str, str]) -> None:
        self.edges: list[_Edge] = []
        self.files = 0
        self.rows = 0
        self._examples = examples
        self._order = 0
        self._last_valid: tuple[ClassificationCode, str] | None = None
        self._pending: list[tuple[ClassificationCode, str, str]] = []

    def code(self, code: ClassificationCode, revisions: Sequence[tuple[str, str, str]]) -> None:
        """Take one IPC 8U code with its ``(version, valid_from, valid_to)`` revisions.

        Revision edges: a code with an expired and a current revision gets
        ``(code, old) -> (code, new)``; a code with no current revision gets
        ``(code, last expired) -> (nearest current code of its subclass, its version)``.
        """
        self._order += 1
        if code.kind == "subclass":
            self._last_valid = None
            self._pending.clear()
        current = revisions[-1] if revisions[-1][2] == "99991231" else None
        if current is not None and len(revisions) > 1:
            self._edge(code, revisions[0][0], code, current[0], current[0])
        elif current is None and code.kind in _GROUP_KINDS:
            version, _, valid_to = revisions[-1]
            change = f"{int(valid_to[:4]) + 1}.01"
            if self._last_valid is not None:
                self._edge(code, version, *self._last_valid, change)
            else:
                self._pending.append((code, version, change))
        if current is not None and code.kind in _GROUP_KINDS:
            self._last_valid = (code, current[0])
            for old, version, change in self._pending:
                self._edge(old, version, code, current[0], change)
            self._pending.clear()

    def _edge(
        self,
        old: ClassificationCode,
        old_version: str,
        new: ClassificationCode,
        new_version: str,
        change: str,
    ) -> None:
        self.edges.append(_Edge((change, self._order), old, old_version, new, new_version))
        if old.canonical == "G06F3/048":
            self._examples["ipc_revision_edge"] = (
                f"{old.canonical} ({old_version}) -> {new.canonical} ({new_version})"
            )

    def write(self, out: Output, plan: Plan, recovery_files: list[str]) -> None:
        """The tables: the edges sorted by change date, split over the scaled file count."""
        edges = sorted(self.edges, key=lambda edge: edge.key)
        wanted = (
            1 if plan.compact else max(2, round(REAL_DOCUMENT_FILES["IPC_KAISEI"] * plan.scale))
        )
        files = max(1, min(wanted, len(edges)))
        meta = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
        for index in range(files):
            chunk = edges[len(edges) * index // files : len(edges) * (index + 1) // files]
            rows = [
                (_ipc_cell(e.old), e.old_version, _ipc_cell(e.new), e.new_version) for e in chunk
            ]
            name = f"ipc_kaisei_{index + 1:02d}.html"
            recovery = needs_recovery(plan.with_quirks, "IPC_KAISEI", index, files)
            page = html_page(
                charset_meta=meta,
                title="IPC改正対照表（合成データ）",
                header=IPC_KAISEI_HEADER,
                rows=rows,
                footer=f"{SYNTHETIC_MARK_JA}発効日は各版の最初の日です。",
                needs_recovery=recovery,
            )
            out.write_bytes("IPC_KAISEI", name, page.encode("shift_jis"), rows=len(rows))
            if recovery:
                recovery_files.append(f"IPC_KAISEI/{name}")
            self.files += 1
            self.rows += len(rows)
            if index == 0:
                self._examples["ipc_revision_document"] = f"ipc_revision:{name[:-5]}"
