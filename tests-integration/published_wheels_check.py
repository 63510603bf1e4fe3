"""What the published wheels hold, and what installing one does to someone else's pytest.

Run by the ``isolated`` nox session (``pytest tests-integration/published_wheels_check.py``
with ``PMGS_WHEEL_DIR`` naming the wheels it just built); the file name keeps it out of the
integration session, which has no wheels to look at. Issue 38: the test kit used to ship in
pmgs-build and register a ``pytest11`` plugin in every environment that installed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

WHEELS = Path(os.environ.get("PMGS_WHEEL_DIR", "/nonexistent"))
PUBLISHED = ("pmgs_core", "pmgs_build", "pmgs_cli", "pmgs_mcp", "pmgs_agentkit", "pmgs_web")


def _wheels() -> list[Path]:
    found = sorted(WHEELS.glob("*.whl"))
    assert found, f"no wheels in {WHEELS}: set PMGS_WHEEL_DIR (nox -s isolated does)"
    return found


def test_every_published_package_has_a_wheel_and_the_kit_has_none() -> None:
    names = {w.name.split("-", 1)[0] for w in _wheels()}
    assert names == set(PUBLISHED)


@pytest.mark.parametrize("module", PUBLISHED)
def test_no_wheel_holds_the_test_kit_or_registers_a_pytest_plugin(module: str) -> None:
    wheel = next(w for w in _wheels() if w.name.startswith(f"{module}-"))
    with zipfile.ZipFile(wheel) as zf:
        members = zf.namelist()
        entry_points = next((m for m in members if m.endswith(".dist-info/entry_points.txt")), None)
        declared = zf.read(entry_points).decode() if entry_points else ""
    assert not [m for m in members if "/testing/" in m or m.startswith("pmgs_testkit")]
    assert "[pytest11]" not in declared
    assert all(m.startswith((f"{module}/", f"{module}-")) for m in members), members[:5]


def _uv() -> str:
    exe = shutil.which("uv")
    assert exe, "uv is on PATH in every nox session (the venv backend)"
    return exe


def test_an_unrelated_suite_beside_pmgs_build_loads_no_pmgs_plugin(tmp_path: Path) -> None:
    # A user's environment: pmgs-build (and pmgs-core, which it needs) from the wheels, pytest
    # from the registry, and a suite of the user's own. No pmgs plugin, fixture or Hypothesis
    # profile may appear in it.
    venv = tmp_path / "venv"
    subprocess.run([_uv(), "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    wheels = [str(w) for w in _wheels() if w.name.startswith(("pmgs_core-", "pmgs_build-"))]
    subprocess.run(
        [_uv(), "pip", "install", "-q", "--python", str(python), *wheels, "pytest"], check=True
    )
    suite = tmp_path / "theirs"
    suite.mkdir()
    (suite / "test_theirs.py").write_text(
        "import pmgs_build\n\n"
        "def test_theirs(request):\n"
        "    names = [n for n, _ in request.config.pluginmanager.list_name_plugin() if n]\n"
        "    assert not [n for n in names if 'pmgs' in n], names\n"
        "    assert pmgs_build.build_database\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--fixtures", str(suite)],
        capture_output=True,
        text=True,
        check=False,
        cwd=suite,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "pmgs_reference_factory" not in run.stdout
    assert "writable_copy" not in run.stdout
    passed = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
        capture_output=True,
        text=True,
        check=False,
        cwd=suite,
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "1 passed" in passed.stdout
