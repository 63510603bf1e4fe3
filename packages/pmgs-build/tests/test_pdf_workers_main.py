"""PDF text workers start whatever the caller's main module is (issue 27).

A spawned worker used to run the caller's ``__main__`` again: for a script read from standard
input that is a path that does not exist, so every worker died with a traceback on stderr and
the build fell back to extracting in its own process. The build is run here as users run
scripts, in a real interpreter, and must succeed quietly with every PDF read.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pmgs_testkit import generate_package

SCRIPT = """
import sys
from pmgs_build import build_database
report = build_database(sys.argv[1], sys.argv[2])
print(report.quarantine_count)
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pdf-main")
    path = generate_package(root, scale=0.001, seed=5, with_documents=True).path
    # The pool is used from 8 files on; fewer are read in this process and prove nothing.
    assert len(list((path / "REFERENCE" / "IPC_TEIGI").glob("*.pdf"))) >= 8
    return path


@pytest.mark.parametrize("how", ["stdin", "-c"])
def test_workers_start_quietly(package: Path, tmp_path: Path, how: str) -> None:
    output = tmp_path / "out.sqlite"
    if how == "stdin":
        command = [sys.executable, "-", str(package), str(output)]
        result = subprocess.run(
            command, input=SCRIPT, capture_output=True, text=True, timeout=600, check=False
        )
    else:
        command = [sys.executable, "-c", SCRIPT, str(package), str(output)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0"
    assert "Traceback" not in result.stderr
    assert "cannot start" not in result.stderr
    pdfs = sorted(p.name for p in (package / "REFERENCE" / "IPC_TEIGI").glob("*.pdf"))
    with sqlite3.connect(output) as conn:
        read = conn.execute(
            "SELECT COUNT(*) FROM source_file "
            "WHERE data_group = 'REFERENCE/IPC_TEIGI' AND status = 'parsed'"
        ).fetchone()[0]
    assert read == len(pdfs)
