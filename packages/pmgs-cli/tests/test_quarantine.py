"""A package with unreadable rows: setup activates it and counts them, --strict refuses it,
`pmgs quarantine` lists what the package said, and nothing quarantined answers as a code."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from pmgs_core import load_schema

Runner = Callable[..., subprocess.CompletedProcess[str]]

# A row of FI/FI that no reader can take: a subgroup with a letter in it. Written by hand
# (not by the code under test) so that the test knows exactly what must come back.
_BAD_CODE = "G06F   3/   04X8    "
_BAD_ROW = f"{_BAD_CODE},999,0,0,05"


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("damaged") / sample_dir.name
    shutil.copytree(sample_dir, root)
    fi_file = sorted((root / "FI" / "FI").glob("fi_G_*.csv"))[0]
    with fi_file.open("ab") as handle:
        handle.write((_BAD_ROW + "\r\n").encode("utf-8"))
    return root, fi_file.relative_to(root).as_posix()


def _valid(record: object, name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(record, load_schema(name))


def test_setup_activates_and_counts_quarantine_and_strict_refuses(
    pmgs: Runner, damaged: tuple[Path, str], tmp_path: Path
) -> None:
    root, fi_path = damaged
    strict_dir = tmp_path / "strict"
    refused = pmgs("setup", root, "--data-dir", strict_dir, "--strict", "--no-mcp-check", "--json")
    assert refused.returncode == 5, refused.stdout + refused.stderr
    assert "CODE_INVALID" in refused.stdout + refused.stderr
    assert not (strict_dir / "state" / "current.json").exists()

    data_dir = tmp_path / "data"
    result = pmgs("setup", root, "--data-dir", data_dir, "--no-mcp-check", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "activated"
    assert report["quarantine_count"] == 1
    assert report["build"]["quarantined"] == {"FI/FI": 1}

    # --strict does not take the same source's quarantined database either.
    again = pmgs("setup", root, "--data-dir", data_dir, "--strict", "--no-mcp-check", "--json")
    assert again.returncode == 5
    assert "QUARANTINE_REFUSED" in again.stdout + again.stderr

    listed = pmgs("quarantine", "--data-dir", data_dir, "--json")
    assert listed.returncode == 0, listed.stderr
    page = json.loads(listed.stdout)
    _valid(page, "quarantine_page")
    assert page["total_count"] == 1
    (item,) = page["items"]
    assert item["data_group"] == "FI/FI"
    assert item["reason"] == "CODE_INVALID"
    assert json.loads(item["raw"]) == _BAD_ROW.split(",")
    assert item["source"]["file"] == fi_path
    lines = [line for line in (root / fi_path).read_bytes().split(b"\r\n") if line]
    assert item["source"]["locator"] == f"row:{len(lines)}"  # the row appended last

    info = pmgs("release", "--data-dir", data_dir, "--json")
    current = json.loads(info.stdout)["current"]
    _valid(current, "release_info")
    assert current["quarantine_counts"] == [
        {"data_group": "FI/FI", "reason": "CODE_INVALID", "count": 1}
    ]
    rich = pmgs("quarantine", "--data-dir", data_dir)
    assert "CODE_INVALID" in rich.stdout
    assert "04X8" in rich.stdout

    # Evidence, not a classification: the raw text is found among documents only.
    found = pmgs("search", "04X8", "--data-dir", data_dir, "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert "04X8" in json.dumps(hits, ensure_ascii=False)
    database = (
        data_dir
        / json.loads((data_dir / "state" / "current.json").read_text(encoding="utf-8"))["database"]
    )
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
        assert conn.execute("SELECT count(*) FROM concept WHERE code LIKE '%X%'").fetchone()[0] == 0


def test_quarantine_on_a_clean_release_is_empty(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("quarantine", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)
    assert (page["total_count"], page["items"], page["has_more"]) == (0, [], False)
    bad = pmgs("quarantine", "--data-dir", data_dir, "--limit", "0")
    assert bad.returncode == 2
