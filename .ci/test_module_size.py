"""The module-size check fails on a 601-line module and passes at 600 (run by nox ``lint``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("module_size.py")


def _tree(root: Path, lines: int) -> Path:
    module = root / "packages" / "pmgs-x" / "src" / "pmgs_x" / "sub" / "grown.py"
    module.parent.mkdir(parents=True)
    module.write_text("x = 1\n" * lines, encoding="utf-8")
    return module


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), str(root)]
    return subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603


def test_a_601_line_module_fails_the_check(tmp_path: Path) -> None:
    _tree(tmp_path, 601)
    result = _run(tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        "packages/pmgs-x/src/pmgs_x/sub/grown.py: 601 lines (at most 600; split it by capability)\n"
    )


@pytest.mark.parametrize("lines", [0, 600])
def test_a_module_of_600_lines_or_fewer_passes(tmp_path: Path, lines: int) -> None:
    _tree(tmp_path, lines)
    result = _run(tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


def test_tests_and_other_folders_do_not_count(tmp_path: Path) -> None:
    for folder in ("packages/pmgs-x/tests", "benchmarks"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "long.py").write_text("x = 1\n" * 700, encoding="utf-8")
    assert _run(tmp_path).returncode == 0
