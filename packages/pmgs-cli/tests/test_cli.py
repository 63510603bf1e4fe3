"""The ``pmgs`` command group: help, usage errors, published subcommands, exit codes."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

BUILTIN = (
    "setup",
    "build",
    "validate",
    "doctor",
    "lookup",
    "search",
    "document",
    "hierarchy",
    "release",
    "demo",
)

Runner = Callable[..., subprocess.CompletedProcess[str]]


def test_help_lists_every_builtin(pmgs: Runner) -> None:
    result = pmgs("--help")
    assert result.returncode == 0
    for name in BUILTIN:
        assert name in result.stdout


@pytest.mark.parametrize("name", BUILTIN)
def test_every_subcommand_has_help(pmgs: Runner, name: str) -> None:
    result = pmgs(name, "--help")
    assert result.returncode == 0, result.stderr
    assert "--json" in result.stdout or (name == "demo" and "--json" in result.stdout)


def test_unknown_subcommand_is_a_usage_error(pmgs: Runner) -> None:
    result = pmgs("no-such-command")
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
        "[pmgs.commands]\nfake-sub = fake_provider:main\nbroken-sub = no_such_module:main\n",
        encoding="utf-8",
    )
    return dict(os.environ, PYTHONPATH=str(tmp_path))


def test_published_subcommands_are_listed_and_run(
    pmgs_process: Runner, provider_on_path: dict[str, str]
) -> None:
    # Child processes: the provider is found through PYTHONPATH, read at start-up.
    pmgs = pmgs_process
    listing = pmgs("--help", env=provider_on_path)
    assert listing.returncode == 0
    assert "fake-sub" in listing.stdout
    # The listing describes a plugin by its own docstring, and survives one that cannot load.
    line = next(row for row in listing.stdout.splitlines() if "fake-sub" in row)
    assert "Echo the arguments" in line
    broken = next(row for row in listing.stdout.splitlines() if "broken-sub" in row)
    assert "cannot be loaded" in broken
    assert "fake-sub" not in pmgs("--help").stdout

    ran = pmgs("fake-sub", "--json", "x y", env=provider_on_path)
    assert ran.returncode == 7
    assert ran.stdout == "--json|x y"


@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [
        (["release"], 0),
        (["lookup", "fi", "A01B1/00"], 1),  # not_found: the query commands end in sys.exit
        (["lookup", "fi", "G06F3/"], 2),
        (["document", "no-such-document"], 4),
        (["quarantine", "--limit", "0"], 2),
        (["validate", "/nonexistent/none.sqlite"], 3),
        (["lookup", "fi", "A01B", "--relation-limit", "abc"], 2),  # click usage error
        (["--help"], 0),
    ],
)
def test_main_returns_the_exit_code_instead_of_exiting(
    data_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], exit_code: int
) -> None:
    from pmgs_cli import main

    data = [] if argv[0] in {"validate", "--help"} else ["--data-dir", str(data_dir)]
    returned = main([*argv, *data, "--json"] if argv != ["--help"] else argv)
    assert returned == exit_code  # the table of docs/cli.md "Exit codes"
    capsys.readouterr()


def test_the_console_script_exits_with_the_code_and_prints_what_main_prints(
    pmgs: Runner, pmgs_process: Runner, data_dir: Path
) -> None:
    # The one smoke test of the installed script for the query path: same bytes, same code.
    args = ("lookup", "fi", "A01B1/00", "--data-dir", data_dir, "--json")
    child, here = pmgs_process(*args), pmgs(*args)
    assert child.returncode == here.returncode == 1, child.stderr
    assert child.stdout == here.stdout
    assert child.stderr == here.stderr == ""
