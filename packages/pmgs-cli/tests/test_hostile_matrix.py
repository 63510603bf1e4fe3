"""Every ``pmgs`` command in every hostile environment (issue 41), as real processes: stdin
closed or at its end, stdout a full device or a pipe nobody reads, HOME unset, the data
directory read-only, a locale that is not UTF-8. Each cell ends with the exit code of the
hand-written table below (the one in docs/reliability.md), the error code it names on stderr,
and never a traceback; nothing is left half-written (the data directory's files and the
collection are unchanged by the read-only cells).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pmgs_testkit.kit import script_environment

FULL = Path("/dev/full")

# command → argv ({d}: the data directory, {c}: a collection file, {f}: a formula file)
COMMANDS: dict[str, tuple[str, ...]] = {
    "lookup": ("lookup", "{scheme}", "{code}", "--data-dir", "{d}"),
    "search": ("search", "合成", "--data-dir", "{d}"),
    "hierarchy": ("hierarchy", "parents", "{scheme}", "{code}", "--data-dir", "{d}"),
    "release": ("release", "--data-dir", "{d}"),
    "quarantine": ("quarantine", "--data-dir", "{d}"),
    "validate": ("validate", "--data-dir", "{d}"),
    "doctor": ("doctor", "--no-mcp", "--data-dir", "{d}"),
    "check FILE": ("check", "{f}", "--data-dir", "{d}"),
    "check -": ("check", "-", "--data-dir", "{d}"),
    "notes add -": ("notes", "add", "-", "--path", "p", "--collection", "{c}"),
    "notes list": ("notes", "list", "--collection", "{c}"),
    "lookup (default data dir)": ("lookup", "{scheme}", "{code}"),
}
ENVIRONMENTS = (
    "stdin closed",
    "stdin EOF",
    "stdout /dev/full",
    "stdout closed pipe",
    "HOME unset",
    "data dir read-only",
    "locale not UTF-8",
)

OK = (0, None)
FULL_OUT = (74, "STDOUT_WRITE_FAILED")
NO_DB = (3, "DATABASE_NOT_FOUND")
STDIN_CLOSED = (2, "INVALID_ARGUMENT")

# The table, written by hand: each command's answer in the plain environment, then the
# cells that differ from it.
PLAIN: dict[str, tuple[int, str | None]] = {
    "lookup": OK,
    "search": OK,
    "hierarchy": OK,
    "release": OK,
    "quarantine": OK,
    "validate": OK,
    "doctor": OK,
    "check FILE": OK,
    "check -": (2, "INVALID_QUERY"),  # stdin at its end: no code
    "notes add -": (2, "INVALID_CONTENT"),  # stdin at its end: empty text
    "notes list": OK,
    "lookup (default data dir)": NO_DB,  # HOME is an empty folder: nothing set up
}
DIFFERS: dict[tuple[str, str], tuple[int, str | None]] = {
    ("check -", "stdin closed"): STDIN_CLOSED,
    ("notes add -", "stdin closed"): STDIN_CLOSED,
    **{
        (name, "stdout /dev/full"): FULL_OUT
        for name in PLAIN
        if name not in {"check -", "notes add -", "lookup (default data dir)"}
    },
    ("notes list", "data dir read-only"): (3, "COLLECTION_ERROR"),
}


def expected(command: str, environment: str) -> tuple[int, str | None]:
    return DIFFERS.get((command, environment), PLAIN[command])


@dataclass(frozen=True)
class World:
    data_dir: Path
    home: Path
    formula: Path
    scheme: str
    code: str


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, sample_code: tuple[str, str]
) -> World:
    root = tmp_path_factory.mktemp("matrix")
    home = root / "home"
    home.mkdir()
    formula = root / "formula.txt"
    tag = {"fi": "FI", "fterm": "FT", "ipc": "IP"}[sample_code[0]]
    formula.write_text(f"{sample_code[1]}/{tag}\n", encoding="utf-8")
    return World(data_dir, home, formula, *sample_code)


def _tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def read_only_copy(world: World, tmp_path: Path) -> Iterator[Callable[[], Path]]:
    """A copy of the data directory, read-only (files and folders)."""
    made: list[Path] = []

    def make() -> Path:
        copy = tmp_path / "ro-data"
        shutil.copytree(world.data_dir, copy, symlinks=True)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        made.append(copy)
        return copy

    yield make
    for copy in made:
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)


def _run(
    world: World, command: str, environment: str, tmp_path: Path, data_dir: Path
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    collection = (
        data_dir / "collection" / "c.sqlite"
        if environment == "data dir read-only"
        else (tmp_path / "c.sqlite")
    )
    argv = [
        part.format(d=data_dir, c=collection, f=world.formula, scheme=world.scheme, code=world.code)
        for part in COMMANDS[command]
    ]
    env = script_environment({"HOME": str(world.home), "XDG_DATA_HOME": str(world.home / "x")})
    env.pop("PMGS_COLLECTION", None)
    if environment == "HOME unset":
        env.pop("HOME")
        env.pop("XDG_DATA_HOME")
    if environment == "locale not UTF-8":
        env.update(LC_ALL="C", LANG="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0")
        env.pop("PYTHONIOENCODING", None)
    command_line = [sys.executable, "-m", "pmgs_cli", *argv]
    stdin: int | None = subprocess.DEVNULL
    preexec = None
    if environment == "stdin closed":
        stdin, preexec = None, (lambda: os.close(0))
    stdout: object = subprocess.PIPE
    opened: list[int] = []
    if environment == "stdout /dev/full":
        opened.append(os.open(FULL, os.O_WRONLY))
    elif environment == "stdout closed pipe":
        read_end, write_end = os.pipe()
        os.close(read_end)
        opened.append(write_end)
    if opened:
        stdout = opened[0]
    try:
        result = subprocess.run(
            command_line,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=env,
            check=False,
            timeout=120,
            preexec_fn=preexec,
        )
    finally:
        for fd in opened:
            os.close(fd)
    return result, collection


@pytest.mark.parametrize("environment", ENVIRONMENTS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_cell(
    world: World,
    command: str,
    environment: str,
    tmp_path: Path,
    read_only_copy: Callable[[], Path],
) -> None:
    if environment == "stdout /dev/full" and not FULL.exists():
        pytest.skip("no /dev/full on this system")
    data_dir = world.data_dir
    if environment == "data dir read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes through read-only permissions")
        data_dir = read_only_copy()
    before = _tree_digest(data_dir)
    result, _ = _run(world, command, environment, tmp_path, data_dir)
    err = result.stderr.decode("utf-8", "replace")
    code, error = expected(command, environment)
    assert result.returncode == code, f"{command} / {environment}: {err[-2000:]}"
    assert "Traceback" not in err
    assert "Exception ignored" not in err
    if error is not None:
        assert f"error {error}: " in err, err[-2000:]
    else:
        assert "error " not in err, err[-2000:]
    assert _tree_digest(data_dir) == before  # nothing half-written in the data directory
