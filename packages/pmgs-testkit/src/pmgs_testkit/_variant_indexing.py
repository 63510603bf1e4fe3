"""The IPC indexing-code variant: ``:`` codes appended to the IPC 4-7 files.

Up to the 7th edition the IPC has indexing codes written with ``:`` in place of ``/``
(``C11D 1:04``, ``A61K 103:00``), a few percent of an edition's rows, in a block after a
subclass's groups. This edit appends such a block to one section file of every old edition,
written from ``docs/pmgs-source-format.md`` (fixed-width cell, level column, one text line)
and not from the builder: an indexing main group at the level of the file's main groups, its
indexing subgroups one deeper, reusing the subclass's own main group numbers so that
``X 1:00`` stands beside ``X 1/00``. Nothing already in the package changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pmgs_testkit._variant_csv import csv_files, read_csv, require, write_csv

__all__ = ["INDEXING_SHARE", "indexing_codes"]

INDEXING_SHARE: Final = 0.045
"""Share of each old edition's records the block adds: past ADR 0009's 1 % budget."""
_EDITIONS: Final = ("4", "5", "6", "7", "7E")
_SUBGROUPS_PER_MAIN: Final = 3


def _section(path: Path) -> str:
    """``ipc7_G_20260331.csv`` -> ``G``."""
    return path.name.split("_")[1]


def _block(rows: list[list[str]], count: int) -> list[tuple[int, str]]:
    """(level, fixed-width cell) of ``count`` indexing codes under the file's last subclass."""
    start = max(i for i, row in enumerate(rows) if len(row[0].strip()) == 4)
    subclass = rows[start][0].strip()
    groups = [row for row in rows[start + 1 :] if row[0][8:9] == "/"]
    mains = list(dict.fromkeys(row[0][4:8].strip() for row in groups if row[0][9:].strip() == "00"))
    main_level = min(int(row[3]) for row in groups)
    mains += [str(int(mains[-1]) + 100 + n) for n in range(count)]  # never needed twice
    block: list[tuple[int, str]] = []
    for main in mains:
        block.append((main_level, f"{subclass}{main:>4}:{'00':>6}"))
        for number in range(1, _SUBGROUPS_PER_MAIN + 1):
            if len(block) >= count:
                break
            block.append((main_level + 1, f"{subclass}{main:>4}:{f'{2 * number:02d}':>6}"))
        if len(block) >= count:
            return block
    return block


def indexing_codes(root: Path) -> list[Path]:
    """Append one indexing block to the same section file of IPC 4, 5, 6, 7 and 7E."""
    seven = csv_files(root, "IPC/IPC7_TEXT")
    require(seven, "IPC/IPC7_TEXT files")
    tables = {path: read_csv(path) for path in seven}
    records = sum(len(table.rows) for table in tables.values())
    largest = max(seven, key=lambda path: len(tables[path].rows))
    count = max(3, round(records * INDEXING_SHARE / (1 - INDEXING_SHARE)))
    block = _block(tables[largest].rows, count)
    changed: list[Path] = []
    for edition in _EDITIONS:
        for path in csv_files(root, f"IPC/IPC{edition}_TEXT"):
            if _section(path) != _section(largest):
                continue
            table = read_csv(path)
            for level, cell in block:
                text = (
                    f"Indexing code {cell.replace(' ', '')} (synthetic)"
                    if edition == "7E"
                    else f"インデキシングコード {cell.replace(' ', '')}（合成）"
                )
                table.rows.append([cell, "1", "1", f"{level:02d}", "0", text])
            changed.append(write_csv(path, table))
    return require(changed, "IPC 4-7 section files")
