"""The installed ``pmgs`` command, run as a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _pmgs(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("pmgs", path=str(Path(sys.executable).parent))
    assert exe is not None, "the pmgs console script is not installed"
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, encoding="utf-8", env=env, check=False
    )


def test_demo_json_shows_parsed_notations() -> None:
    result = _pmgs("demo", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["notation_examples"]
    by_input = {row["input"]: row for row in rows}
    assert by_input["B60J   5/    00501B"]["canonical"] == "B60J5/00,501@B"
    assert by_input["G06F0003048000"]["canonical"] == "G06F3/048"
    assert by_input["G06F 3/048 (2006.01)"]["version"] == "2006.01"
    assert by_input["G06F3/"]["error"]["code"] == "INVALID_CODE"


def test_demo_renders_a_table_for_people() -> None:
    result = _pmgs("demo", env=dict(os.environ, COLUMNS="160"))
    assert result.returncode == 0, result.stderr
    assert "B60J5/00,501@B" in result.stdout
    assert "INVALID_CODE" in result.stdout


def test_unknown_subcommand_is_a_usage_error() -> None:
    result = _pmgs("no-such-command")
    assert result.returncode == 2
    assert "no-such-command" in result.stderr


@pytest.fixture
def provider_on_path(tmp_path: Path) -> dict[str, str]:
    """A distribution that publishes a ``pmgs.commands`` entry point, visible via PYTHONPATH."""
    (tmp_path / "fake_provider.py").write_text(
        "import sys\n"
        "def main(argv=None):\n"
        "    '''Echo the arguments (test provider).'''\n"
        "    sys.stdout.write('|'.join(argv or []))\n"
        "    return 7\n",
        encoding="utf-8",
    )
    info = tmp_path / "fake_provider-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fake-provider\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[pmgs.commands]\nfake-sub = fake_provider:main\n", encoding="utf-8"
    )
    return dict(os.environ, PYTHONPATH=str(tmp_path))


def test_published_subcommands_are_listed_and_run(provider_on_path: dict[str, str]) -> None:
    listing = _pmgs("--help", env=provider_on_path)
    assert listing.returncode == 0
    assert "fake-sub" in listing.stdout
    assert "fake-sub" not in _pmgs("--help").stdout

    ran = _pmgs("fake-sub", "--json", "x y", env=provider_on_path)
    assert ran.returncode == 7
    assert ran.stdout == "--json|x y"
