"""Shared fixtures: the installed ``pmgs`` as a subprocess and one sample data dir per session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pmgs_build import sample_package_path

Runner = Callable[..., subprocess.CompletedProcess[str]]


def run_pmgs(
    *args: str | os.PathLike[str], env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script (not an in-process call)."""
    exe = shutil.which("pmgs", path=str(Path(sys.executable).parent))
    assert exe is not None, "the pmgs console script is not installed"
    merged = dict(os.environ, COLUMNS="160")
    merged.pop("PMGS_REFERENCE_DB", None)
    if env:
        merged.update(env)
    return subprocess.run(
        [exe, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=merged,
        check=False,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def pmgs() -> Runner:
    """The runner."""
    return run_pmgs


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    """The embedded synthetic package (read only)."""
    return sample_package_path()


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Path:
    """A data directory set up once with the sample through `pmgs setup` (do not modify)."""
    root = tmp_path_factory.mktemp("data")
    result = run_pmgs("setup", sample_dir, "--data-dir", root, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "activated"
    return root


@pytest.fixture(scope="session")
def database(data_dir: Path) -> Path:
    """The database file the sample data dir points at."""
    pointer = json.loads((data_dir / "state" / "current.json").read_text(encoding="utf-8"))
    return data_dir / pointer["database"]


@pytest.fixture(scope="session")
def sample_code(pmgs: Runner, data_dir: Path) -> tuple[str, str]:
    """A classification that exists (from the demo's deterministic choice)."""
    result = pmgs("demo", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    lookup = json.loads(result.stdout)["lookup"]
    return lookup["scheme"], lookup["code"]
