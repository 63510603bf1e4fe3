"""Shared fixtures: ``pmgs`` run in process (``pmgs_cli.main``), and as the installed script
where the process itself is under test, and one sample data dir per session.

The in-process runner returns what a subprocess would (exit code, stdout, stderr), so a test
reads the same either way; it runs ``main(argv)`` with stdout and stderr redirected, the
environment the call names, and Rich's width fixed at 160 columns (the script's ``COLUMNS``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from pmgs_build import sample_package_path
from pmgs_testkit.kit import SCRIPT_COLUMNS, run_script, script_environment

pytest_plugins = ["pmgs_testkit.pytest_plugin"]

Runner = Callable[..., subprocess.CompletedProcess[str]]

os.environ["COLUMNS"] = SCRIPT_COLUMNS  # before pmgs_cli is imported: its console reads it once


@contextlib.contextmanager
def _environment(changes: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` as a child would get it (the kit's ``script_environment``), restored
    after the call."""
    saved = dict(os.environ)
    wanted = script_environment(changes)
    os.environ.clear()
    os.environ.update(wanted)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_pmgs(
    *args: str | os.PathLike[str], env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``pmgs_cli.main(args)`` in this process, with its output captured.

    ``timeout`` is accepted for the same signature as the kit's ``run_script`` and unused: a
    call that hangs here hangs the test run, which pytest's own timeout (or CI's) reports.
    """
    from pmgs_cli import main

    argv = [os.fspath(arg) for arg in args]
    out, err = io.StringIO(), io.StringIO()
    with _environment(env or {}), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    assert isinstance(code, int), f"main returned {code!r}, not an exit code"
    return subprocess.CompletedProcess(["pmgs", *argv], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def pmgs() -> Runner:
    """``pmgs`` in process."""
    return run_pmgs


@pytest.fixture(scope="session")
def pmgs_process() -> Runner:
    """``pmgs`` as the installed console script, in a child process (the kit's runner)."""
    return run_script


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
