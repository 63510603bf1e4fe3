"""``--detail concise`` prints the concise form of the same record (only with --json)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.mark.parametrize(
    "args",
    [("lookup", "ipc", "G06F3/048"), ("search", "制御", "--limit", "3")],
)
def test_concise_json_cites_the_same_sources(
    pmgs: Runner, data_dir: Path, args: tuple[str, ...]
) -> None:
    full = pmgs(*args, "--data-dir", data_dir, "--json")
    concise = pmgs(*args, "--data-dir", data_dir, "--json", "--detail", "concise")
    assert full.returncode == concise.returncode == 0, concise.stderr
    f, c = json.loads(full.stdout), json.loads(concise.stdout)
    assert "files" not in f
    paths = {(entry["path"], entry["sha256"]) for entry in c["files"].values()}
    cited = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            src = value.get("source")
            if isinstance(src, dict) and "file_sha256" in src:
                cited.add((src["file"], src["file_sha256"]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(f)
    assert paths == cited
    assert len(concise.stdout) < len(full.stdout)
    human = pmgs(*args, "--data-dir", data_dir, "--detail", "concise")
    assert human.returncode == 0
