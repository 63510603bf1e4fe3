"""The small inconsistencies of issue 29, each as it was met: a closed pipe, a progress bar
left at 0/1, exit codes that differ between ``pmgs``, ``pmgs mcp`` and the agent kit, errors
without a hint, a kit pointing at a data directory with no database, help that omits a tool,
``validate`` without ``--data-dir``, demo commands that only work inside ``uv run``, and a
setup refusal that hides its reason."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from pmgs_cli.progress import ProgressUI

Runner = Callable[..., subprocess.CompletedProcess[str]]
DOCS = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


def _pmgs_exe() -> str:
    exe = shutil.which("pmgs", path=str(Path(sys.executable).parent))
    assert exe is not None
    return exe


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_closed_pipe_exits_0_quietly(data_dir: Path, json_flag: list[str]) -> None:
    """``pmgs search … | head -1``: the reader leaves after one line (Rich exited 1)."""
    args = [_pmgs_exe(), "search", "合成", "--limit", "200", "--data-dir", str(data_dir)]
    child = subprocess.Popen(
        [*args, *json_flag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, COLUMNS="120"),
    )
    assert child.stdout is not None
    assert child.stderr is not None
    child.stdout.readline()
    child.stdout.close()  # as head does after its line
    stderr = child.stderr.read()
    assert child.wait(timeout=120) == 0
    assert stderr == b""


def test_progress_bars_end_full() -> None:
    """The build reports ``finalize 0/1`` and then the next phase: the bar must not stay 0/1."""
    ui = ProgressUI(live=True)
    events = [
        ("parse", "FI/FI", 3, 3, "files"),
        ("finalize", None, 0, 1, "steps"),
        ("index", None, 0, 4, "steps"),
    ]
    with ui:
        for phase, group, done, total, unit in events:
            event = SimpleNamespace(
                phase=phase, data_group=group, done=done, total=total, unit=unit
            )
            ui.event(event)
        progress = ui._progress
        assert progress is not None
        by_name = {task.description: task for task in progress.tasks}
        assert by_name["finalize"].completed == 1  # the index phase began: finalize ended
        assert by_name["index"].completed == 0
    assert all(task.completed == task.total for task in progress.tasks)


def test_validate_takes_a_data_dir(pmgs: Runner, data_dir: Path, tmp_path: Path) -> None:
    result = pmgs("validate", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] is True
    empty = pmgs("validate", "--data-dir", tmp_path)
    assert empty.returncode == 3
    assert "hint: " in empty.stderr


def test_demo_next_commands_run_outside_uv_run(pmgs: Runner, data_dir: Path) -> None:
    """Without ``uv run`` and without the venv on PATH the commands name this Python."""
    env = {"UV": "", "PATH": "/nonexistent"}
    result = pmgs("demo", "--data-dir", data_dir, "--json", env=env)
    assert result.returncode == 0, result.stderr
    commands = json.loads(result.stdout)["next_commands"]
    assert all(c.startswith(f'"{sys.executable}" -m pmgs_cli ') for c in commands), commands
    first = subprocess.run(
        shlex.split(commands[0]), capture_output=True, text=True, check=False, timeout=120
    )
    assert first.returncode == 0, first.stderr
    inside = pmgs("demo", "--data-dir", data_dir, "--json", env={"UV": "/usr/bin/uv"})
    assert json.loads(inside.stdout)["next_commands"][0].startswith("uv run pmgs ")


def _plain_folder(root: Path) -> Path:
    root.mkdir()
    (root / "notes.txt").write_text("not a package", encoding="utf-8")
    return root


def _broken_zip(root: Path) -> Path:
    path = root.with_suffix(".zip")
    path.write_bytes(b"not a zip")
    return path


@pytest.mark.parametrize(
    ("make", "reason"),
    [(_plain_folder, "no PMGS release was found"), (_broken_zip, "not a readable ZIP")],
)
def test_setup_of_a_wrong_source_says_why(
    pmgs: Runner, tmp_path: Path, make: Callable[[Path], Path], reason: str
) -> None:
    source = make(tmp_path / "some-folder")
    result = pmgs("setup", source, "--data-dir", tmp_path / "data")
    assert result.returncode == 5
    assert "error SOURCE_INVALID" in result.stderr
    assert reason in result.stderr.split("hint:")[1]


def test_removing_a_removed_note_points_to_the_notes(pmgs: Runner, tmp_path: Path) -> None:
    collection = tmp_path / "notes.sqlite"
    note = tmp_path / "note.txt"
    note.write_text("合成メモ", encoding="utf-8")
    added = pmgs(
        "notes",
        "add",
        note,
        "--path",
        "a/b",
        "--category",
        "c",
        "--collection",
        collection,
        "--json",
    )
    note_id = json.loads(added.stdout)["document"]["id"]
    assert pmgs("notes", "rm", str(note_id), "--collection", collection).returncode == 0
    again = pmgs("notes", "rm", str(note_id), "--collection", collection)
    assert again.returncode == 4
    hint = again.stderr.split("hint:")[1]
    assert "pmgs notes list" in hint
    assert "--content-type document" not in hint  # the release's documents are not notes
    listed = pmgs("notes", "list", "--collection", collection)
    assert listed.returncode == 0
