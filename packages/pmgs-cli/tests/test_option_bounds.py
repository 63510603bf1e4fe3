"""Every integer option of every query command at minimum-1, minimum, maximum, maximum+1 (issue 22).

The bounds are written by hand from docs/cli.md and docs/store.md. A value outside must exit
2 with ``--json`` giving the stable code and naming the option (``details.argument``, the
option's name with underscores, or the start of the message); a value at a bound must not be
refused for that option. Each call is ``pmgs_cli.main`` in process (conftest's runner).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[str]]

BIG = 9223372036854775807
"""2**63 - 1: the largest offset, document page and section."""

COMMANDS: dict[str, tuple[str, ...]] = {
    "lookup": ("lookup", "fi", "A01B"),
    "search": ("search", "合成"),
    "document": ("document", "judge"),
    "hierarchy": ("hierarchy", "children", "fi", "A01B"),
    "quarantine": ("quarantine",),
}

LIMIT = (1, 200, "INVALID_LIMIT")
OFFSET = (0, BIG, "INVALID_OFFSET")
SELECTOR = (1, BIG, "INVALID_DOCUMENT_SELECTOR")

OPTIONS: list[tuple[str, str, tuple[int, int, str]]] = [
    ("lookup", "--relation-limit", LIMIT),
    ("lookup", "--relation-offset", OFFSET),
    ("search", "--limit", LIMIT),
    ("search", "--classification-offset", OFFSET),
    ("search", "--document-offset", OFFSET),
    ("document", "--page", SELECTOR),
    ("document", "--section", SELECTOR),
    ("document", "--segment-limit", LIMIT),
    ("document", "--segment-offset", OFFSET),
    ("document", "--related-classification-limit", LIMIT),
    ("document", "--related-classification-offset", OFFSET),
    ("hierarchy", "--limit", LIMIT),
    ("hierarchy", "--offset", OFFSET),
    ("quarantine", "--limit", LIMIT),
    ("quarantine", "--offset", OFFSET),
]

CASES = [
    pytest.param(command, option, value, expected, id=f"{command}{option}={value}")
    for command, option, (low, high, code) in OPTIONS
    for value, expected in ((low - 1, code), (low, None), (high, None), (high + 1, code))
]
ARGUMENT_CODES = {"INVALID_LIMIT", "INVALID_OFFSET", "INVALID_DOCUMENT_SELECTOR"}


def _names(error: dict[str, object], option: str) -> bool:
    name = option.removeprefix("--").replace("-", "_")
    details = error.get("details") or {}
    assert isinstance(details, dict)
    return details.get("argument") == name or str(error["message"]).startswith(f"{name} ")


@pytest.mark.parametrize(("command", "option", "value", "code"), CASES)
def test_integer_option_bounds(
    pmgs: Runner, data_dir: Path, command: str, option: str, value: int, code: str | None
) -> None:
    result = pmgs(*COMMANDS[command], option, str(value), "--data-dir", data_dir, "--json")
    assert "Traceback" not in result.stderr
    answer = json.loads(result.stdout)
    if code is None:
        if answer.get("record_type") == "error":  # e.g. page 2**63-1 of a document
            error = answer["error"]
            assert not (error["code"] in ARGUMENT_CODES and _names(error, option)), error
        else:  # an answer (exit 1 when the code is not in the sample is still an answer)
            assert result.returncode in {0, 1}, result.stderr
        return
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert answer["record_type"] == "error"
    assert answer["error"]["code"] == code
    assert _names(answer["error"], option), answer["error"]


def test_every_integer_option_is_in_the_table(pmgs: Runner) -> None:
    """A new integer option of these commands must get its boundary rows here."""
    listed = {(command, option) for command, option, _ in OPTIONS}
    found = set()
    for command, argv in COMMANDS.items():
        text = pmgs(argv[0], "--help").stdout
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0].startswith("--") and words[1] == "INTEGER":
                found.add((command, words[0]))
    assert found == listed
