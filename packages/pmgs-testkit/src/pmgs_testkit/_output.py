"""Streaming CSV output and the per-group tallies of a generated package.

Rows are written as they are produced (never collected), so generating a full-scale package
takes constant memory; the tallies are plain counters filled while writing, which is what
makes :class:`~pmgs_testkit.GeneratedPackage` exact rather than estimated.
"""

from __future__ import annotations

import csv
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

__all__ = ["CsvFile", "Output"]

LINE_END = "\r\n"
"""Record terminator of every CSV: the real package comes from a Windows toolchain."""


class CsvFile:
    """One CSV data file being written.

    ``row`` quotes only where needed (cells with commas, quotes or newlines), like the real
    files; ``raw`` joins cells with bare commas so that a label containing a comma splits into
    extra columns — the irregularity that the real ``FTERM_E`` and ``FI_KAISEI_LINK`` files
    have and that the builder must repair.
    """

    def __init__(self, output: Output, group: str, path: Path, *, bom: bool) -> None:
        self.group = group
        self.path = path
        self.rows = 0
        self._output = output
        self._handle: TextIO = path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="")
        self._writer = csv.writer(self._handle, lineterminator=LINE_END)

    def row(self, cells: Sequence[str]) -> None:
        self._writer.writerow(cells)
        self.rows += 1

    def raw(self, cells: Sequence[str]) -> None:
        for cell in cells:
            if any(char in cell for char in '"\r\n'):
                raise ValueError(f"raw CSV cell needs quoting: {cell!r}")
        self._handle.write(",".join(cells) + LINE_END)
        self.rows += 1

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()
            self._output.closed(self)

    def __enter__(self) -> CsvFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Output:
    """The release directory being written, with file and row counts per data group."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.seed = seed
        self.files: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()
        self.bom_files: list[str] = []

    def open(self, group: str, name: str) -> CsvFile:
        directory = self.root / group
        directory.mkdir(parents=True, exist_ok=True)
        relative = f"{group}/{name}"
        # Roughly half of the files get a BOM, chosen by a hash of the seed and name so that
        # the choice is deterministic and differs between seeds, but never depends on order.
        bom = zlib.crc32(f"{self.seed}:{relative}".encode()) % 2 == 0
        if bom:
            self.bom_files.append(relative)
        return CsvFile(self, group, directory / name, bom=bom)

    def closed(self, file: CsvFile) -> None:
        self.files[file.group] += 1
        self.rows[file.group] += file.rows

    def write_text(self, group: str, name: str, text: str) -> None:
        directory = self.root / group
        directory.mkdir(parents=True, exist_ok=True)
        with (directory / name).open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        self.files[group] += 1
        self.rows[group] += text.count(LINE_END)

    def write_bytes(self, group: str, name: str, data: bytes, rows: int) -> None:
        """Write one document file (XML, HTML, PDF) whose encoding the caller has chosen.

        ``rows`` is the group's logical record count for this file (``infor`` elements,
        table data rows, PDF pages), kept with the CSV counts in ``GeneratedPackage.rows``.
        """
        directory = self.root / group
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
        self.files[group] += 1
        self.rows[group] += rows
