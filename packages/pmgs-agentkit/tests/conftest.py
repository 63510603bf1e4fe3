"""Shared fixtures: every test runs against a temporary HOME and client config homes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pmgs_testkit.pytest_plugin"]


@pytest.fixture
def agent_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A process environment whose HOME, CODEX_HOME and CLAUDE_CONFIG_DIR are temporary.

    Set in this process too (through monkeypatch) so in-process calls never touch the real
    home directory of whoever runs the tests.
    """
    home = tmp_path / "home"
    home.mkdir()
    values = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    env = dict(os.environ)
    env.update(values)
    return env


@pytest.fixture
def python_exe() -> str:
    """The interpreter running the tests: absolute, and part of the workspace's venv."""
    return sys.executable
