"""``pmgs`` as a real process whose stdin or stdout is hostile (issue 41): stdout on a full
device ends with exit 74 and ``error STDOUT_WRITE_FAILED`` on stderr (never a traceback, never
1, which means a negative answer); ``notes add -`` with stdin closed is exit 2 with a message
(not 70); 50 MB of Japanese on stdin is ``ITEM_TOO_LARGE`` (not "not UTF-8"). Oracles: the
exit code table of docs/cli.md and the collection file (unchanged: no note written).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from pmgs_testkit.kit import script_environment

FULL = Path("/dev/full")
EXIT_USAGE = 2
EXIT_OUTPUT = 74


def _run(
    args: Sequence[str | os.PathLike[str]],
    *,
    stdin: object = subprocess.DEVNULL,
    stdout: object = subprocess.PIPE,
    data: bytes | None = None,
    close_stdin: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "pmgs_cli", *map(os.fspath, args)]
    if data is None:
        return subprocess.run(
            command,
            stdin=None if close_stdin else stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=script_environment(),
            check=False,
            timeout=120,
            preexec_fn=(lambda: os.close(0)) if close_stdin else None,
        )
    return subprocess.run(
        command,
        input=data,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=script_environment(),
        check=False,
        timeout=120,
    )


needs_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")


@needs_full
@pytest.mark.parametrize(
    "args",
    [
        ("lookup", "{scheme}", "{code}", "--json"),
        ("lookup", "{scheme}", "{code}"),
        ("search", "a", "--json"),
        ("release",),
        ("--help",),
    ],
    ids=["lookup-json", "lookup-table", "search-json", "release", "help"],
)
def test_stdout_on_a_full_device(
    args: tuple[str, ...], data_dir: Path, sample_code: tuple[str, str]
) -> None:
    scheme, code = sample_code
    argv = [a.format(scheme=scheme, code=code) for a in args]
    if argv[0] != "--help":
        argv += ["--data-dir", str(data_dir)]
    with FULL.open("wb") as full:
        result = _run(argv, stdout=full)
    err = result.stderr.decode()
    assert result.returncode == EXIT_OUTPUT, err
    assert err.startswith("error STDOUT_WRITE_FAILED: "), err
    assert "Traceback" not in err
    assert "Exception ignored" not in err


def test_notes_add_with_stdin_closed(tmp_path: Path) -> None:
    coll = tmp_path / "c.sqlite"
    result = _run(["notes", "add", "-", "--path", "p", "--collection", coll], close_stdin=True)
    err = result.stderr.decode()
    assert result.returncode == EXIT_USAGE, err
    assert err.startswith("error INVALID_ARGUMENT: stdin is closed"), err
    assert "Traceback" not in err
    assert not coll.exists()


def test_notes_add_with_stdin_at_its_end(tmp_path: Path) -> None:
    coll = tmp_path / "c.sqlite"
    result = _run(["notes", "add", "-", "--path", "p", "--collection", coll])
    err = result.stderr.decode()
    assert result.returncode == EXIT_USAGE, err
    assert err.startswith("error INVALID_CONTENT: "), err


@pytest.mark.parametrize("size", [4_000_001, 50_000_000])
def test_notes_add_of_too_much_japanese_on_stdin(tmp_path: Path, size: int) -> None:
    """Read at most 4 MB: the cut falls inside a character, which must not make the text
    "not UTF-8"; more than 4 MB of UTF-8 is more than 1,000,000 characters."""
    coll = tmp_path / "c.sqlite"
    text = ("特許分類のメモ" * (size // 21 + 1)).encode()[:size]
    result = _run(["notes", "add", "-", "--path", "p", "--collection", coll], data=text)
    err = result.stderr.decode()
    assert result.returncode == EXIT_USAGE, err
    assert err.startswith("error ITEM_TOO_LARGE: "), err


def test_notes_add_of_just_under_the_limit_on_stdin(tmp_path: Path) -> None:
    """1,000,000 characters of Japanese (3,000,000 bytes) are one note."""
    coll = tmp_path / "c.sqlite"
    text = ("特許分類のメモ。" * 125_000).encode()
    result = _run(["notes", "add", "-", "--path", "p", "--collection", coll, "--json"], data=text)
    assert result.returncode == 0, result.stderr.decode()
