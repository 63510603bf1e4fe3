"""``pmgs search --json`` reports only the contract's ``search_mode`` values (issue 27).

Each route (3+ character terms, a 2-character term, a 1-character term, a blank query,
ranked, one content type or both) is run through the installed console script against the
sample; the route it must report is written here by hand from the contract's length rule,
and every value is checked against ``pmgs_core.SEARCH_MODES``, the one table.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pmgs_core import SEARCH_MODES

Runner = Callable[..., subprocess.CompletedProcess[str]]

TRIGRAM = "sqlite_fts5_trigram_lexical"
LITERAL = "sqlite_literal_substring_lexical"


def _pairs(value: Any) -> list[tuple[str, str]]:
    if not isinstance(value, dict):
        return []
    own = [(value["search_mode"], value["index"])] if "search_mode" in value else []
    return own + [pair for item in value.values() for pair in _pairs(item)]


@pytest.mark.parametrize(
    ("args", "mode", "index"),
    [
        (("制御するもの",), TRIGRAM, "fts5_trigram"),
        (("電池",), LITERAL, "fts5_bigram"),
        (("池",), LITERAL, "substring_scan"),
        (("電池 制御するもの",), LITERAL, "mixed"),
        (("制御するもの", "--content-type", "document"), TRIGRAM, "fts5_trigram"),
        (("制御するもの", "--rank", "relevance"), TRIGRAM, "fts5_bm25"),
        (("電池 負極", "--rank", "relevance", "--any"), LITERAL, "fts5_bm25"),
    ],
)
def test_search_json_reports_the_contracts_route(
    pmgs: Runner, data_dir: Path, args: tuple[str, ...], mode: str, index: str
) -> None:
    result = pmgs("search", *args, "--data-dir", data_dir, "--json", "--limit", "2")
    assert result.returncode == 0, result.stderr
    pairs = _pairs(json.loads(result.stdout))
    assert len(pairs) >= 2  # the combined page and each of its parts
    assert {mode for mode, _ in pairs} <= set(SEARCH_MODES)
    assert set(pairs) == {(mode, index)}
