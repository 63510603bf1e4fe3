"""`pmgs build` / `pmgs setup` options of issue 27: the quarantine budget and the PDF limit.

Each runs the real console script on a generated package damaged here, so the figures the
assertions expect come from the damage, not from the builder.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pmgs_testkit import generate_package

Runner = Callable[..., subprocess.CompletedProcess[str]]
HANG = "pmgs-cli-hang-5e1d"


def _json(result: Any) -> Any:
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def over_budget(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, float]:
    """A package whose FI_THEME group loses its last cell on every tenth row: (package,
    rows damaged, their share of the group)."""
    root = generate_package(tmp_path_factory.mktemp("budget"), scale=0.001, seed=3).path
    damaged = 0
    records = 0
    for number, path in enumerate(sorted((root / "FI" / "FI_THEME").glob("*.csv"))):
        lines = path.read_bytes().split(b"\r\n")
        records += sum(1 for line in lines if line)
        if number == 0:
            cut = [ln.rsplit(b",", 1)[0] if i % 10 == 0 else ln for i, ln in enumerate(lines)]
            damaged = sum(1 for i, line in enumerate(lines) if i % 10 == 0 and line)
            path.write_bytes(b"\r\n".join(cut))
    return root, damaged, damaged / records


def test_strict_and_a_budget_conflict(pmgs: Runner, sample_dir: Path, tmp_path: Path) -> None:
    built = pmgs("build", sample_dir, tmp_path / "o.sqlite", "--strict", "--quarantine-budget", "1")
    setup = pmgs(
        "setup", sample_dir, "--data-dir", tmp_path / "d", "--strict",
        "--quarantine-budget", "0.5", "--json",
    )  # fmt: skip
    for result in (built, setup):
        assert result.returncode == 2, result.stderr
        assert "OPTIONS_CONFLICT" in result.stderr
        assert "--strict" in result.stderr
        assert "--quarantine-budget" in result.stderr
    assert _json(setup)["error"]["code"] == "OPTIONS_CONFLICT"
    assert not (tmp_path / "o.sqlite").exists()
    assert not (tmp_path / "d").exists()
    for bad in ("1.5", "-0.1", "some"):
        refused = pmgs("build", sample_dir, tmp_path / "o.sqlite", "--quarantine-budget", bad)
        assert refused.returncode == 2, bad


def test_over_the_budget_the_error_names_the_way_out(
    pmgs: Runner, over_budget: tuple[Path, int, float], tmp_path: Path
) -> None:
    package, damaged, share = over_budget
    refused = pmgs("build", package, tmp_path / "o.sqlite")
    assert refused.returncode == 5
    line = refused.stderr.splitlines()[0]
    assert "FORMAT_NOT_RECOGNISED" in line
    assert "data group FI/FI_THEME" in line
    assert f"({share:.1%})" in line
    assert "FI_THEME_COLUMN_COUNT" in line
    way_out = f"{math.ceil(share * 100) / 100:g}"
    assert f"--quarantine-budget {way_out}" in line
    built = pmgs("build", package, tmp_path / "o.sqlite", "--quarantine-budget", way_out, "--json")
    assert built.returncode == 0, built.stderr
    assert _json(built)["quarantined"] == {"FI/FI_THEME": damaged}
    data = tmp_path / "data"
    setup = pmgs(
        "setup", package, "--data-dir", data, "--quarantine-budget", "1", "--no-mcp-check", "--json"
    )
    assert setup.returncode == 0, setup.stderr
    assert _json(setup)["quarantine_count"] == damaged
    listed = pmgs("quarantine", "--data-dir", data, "--json")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count('"FI_THEME_COLUMN_COUNT"') == damaged


def test_setup_passes_the_pdf_limit_to_the_build(pmgs: Runner, tmp_path: Path) -> None:
    """A worker that hangs on one PDF is killed after --pdf-timeout seconds; the default
    (60 s) would outlast this test's timeout."""
    package = generate_package(tmp_path / "p", scale=0.001, seed=5, with_documents=True).path
    pdfs = sorted((package / "REFERENCE" / "IPC_TEIGI").glob("*.pdf"))
    assert len(pdfs) >= 8  # the worker pool reads 8 files or more
    with pdfs[0].open("ab") as handle:
        handle.write(f"%{HANG}\n".encode())
    result = pmgs(
        "setup", package, "--data-dir", tmp_path / "d", "--pdf-timeout", "2",
        "--no-mcp-check", "--json",
        env={"PMGS_TEST_PDF_HANG": HANG}, timeout=50,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = _json(result)
    assert report["status"] == "activated"
    assert report["build"]["quarantined"] == {"REFERENCE/IPC_TEIGI": 1}
    assert (
        pmgs("setup", package, "--data-dir", tmp_path / "e", "--pdf-timeout", "0").returncode == 2
    )


def test_a_nested_release_is_found_and_what_is_beside_it_reported(
    pmgs: Runner, sample_dir: Path, tmp_path: Path
) -> None:
    """Windows' "Extract All" of a re-packed ZIP: ``X/JPPM…`` with a note and Finder's file
    beside the release; the build reads the release and lists the rest."""
    outer = tmp_path / "JPPM2026002"
    shutil.copytree(sample_dir, outer / sample_dir.name)
    (outer / "README.txt").write_text("downloaded from the JPO", encoding="utf-8")
    (outer / ".DS_Store").write_bytes(b"\0")
    result = pmgs("build", outer, tmp_path / "o.sqlite", "--json")
    assert result.returncode == 0, result.stderr
    report = _json(result)
    assert report["release"] == sample_dir.name
    assert report["release_path"] == sample_dir.name
    assert report["ignored"] == [".DS_Store", "README.txt"]
    human = pmgs("build", outer, tmp_path / "h.sqlite")
    assert human.returncode == 0, human.stderr
    assert "ignored: 2 beside the release" in human.stdout
    setup = pmgs("setup", outer, "--data-dir", tmp_path / "d", "--dry-run", "--json")
    assert setup.returncode == 0, setup.stderr
    assert _json(setup)["ignored"] == [".DS_Store", "README.txt"]
