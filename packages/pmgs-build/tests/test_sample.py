"""The embedded sample package is present, small, complete and shows the interesting cases."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from pmgs_build.sample import SAMPLE_RELEASE, sample_package_path
from pmgs_core import parse_code
from pmgs_testkit import CSV_COLUMNS, DATA_GROUPS


def rows_of(root: Path, group: str) -> list[list[str]]:
    out: list[list[str]] = []
    for path in sorted((root / group).iterdir()):
        out.extend(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    return out


def test_sample_exists_and_is_small() -> None:
    root = sample_package_path()
    assert root.name == SAMPLE_RELEASE
    files = [p for p in root.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 300_000
    for group in DATA_GROUPS:
        assert any((root / group).iterdir()), group
    assert all(p.stem.endswith("_20260331") for p in files if p.suffix == ".csv")


def test_sample_columns() -> None:
    root = sample_package_path()
    for group, columns in CSV_COLUMNS.items():
        rows = rows_of(root, group)
        assert rows, group
        assert all(len(r) >= columns for r in rows), group


def test_sample_holds_the_examples() -> None:
    root = sample_package_path()
    fi = {parse_code("fi", r[0]).canonical for r in rows_of(root, "FI/FI")}
    assert "B60J5/00,501@B" in fi
    versions: dict[str, list[tuple[str, str]]] = {}
    for row in rows_of(root, "IPC/IPC8U_TEXT"):
        versions.setdefault(parse_code("ipc", row[0]).canonical, []).append((row[7], row[8]))
    two = set(versions["G06F3/048"])
    assert len(two) == 2
    assert sum(f <= "20260331" <= t for f, t in two) == 1
    assert not any(f <= "20260331" <= t for f, t in versions["G06F3/042"])
    texts = [r[-1] for r in rows_of(root, "FI/FI_TEXT")]
    assert sum("電池" in t for t in texts) >= 3
    copyright_line = next((root / "COPYRGHT").iterdir()).read_text(encoding="utf-8").strip()
    assert "Synthetic" in copyright_line
