"""Validity windows at the day before, the day of and the day after the reference date (issue 22).

docs/store.md: a revision is valid at the release's reference date when ``valid_from <= date``
and ``date <= valid_to``, both ends inclusive, a missing end unbounded. A revision that ends
on the reference date is still valid that day; the audit's planted ``date < valid_to`` made
it "not valid" and the whole suite passed.

Two oracles, neither computed by the store: a hand-written table for the rule itself, and a
real copy of the built database whose one revision of one IPC code is given dates around the
release's reference date with SQL, then looked up through :class:`PMGSStore`.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest

from pmgs_core import PMGSStore
from pmgs_core.store._arguments import valid_at

D = "2026-03-31"
BEFORE = "2026-03-30"
AFTER = "2026-04-01"

RULE: list[tuple[str | None, str | None, bool]] = [
    (None, None, True),
    (BEFORE, None, True),
    (D, None, True),
    (AFTER, None, False),
    (None, BEFORE, False),
    (None, D, True),
    (None, AFTER, True),
    (BEFORE, AFTER, True),
    (D, D, True),
    (AFTER, AFTER, False),
    (BEFORE, BEFORE, False),
    (AFTER, BEFORE, False),
    ("2026-02-28", "2026-03-31", True),
    ("2026-04-01", "9999-12-31", False),
]
"""(valid_from, valid_to, valid at D): written by hand from the rule."""


@pytest.mark.parametrize(("valid_from", "valid_to", "expected"), RULE)
def test_validity_rule(valid_from: str | None, valid_to: str | None, expected: bool) -> None:
    assert valid_at(valid_from, valid_to, D) is expected


def _shift(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


@pytest.fixture(scope="module")
def single_revision(database_path: Path) -> tuple[str, str]:
    """An IPC 8U code with exactly one (versioned) revision, and the reference date."""
    with sqlite3.connect(database_path.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        (reference,) = conn.execute("SELECT reference_date FROM release").fetchone()
        row = conn.execute(
            "SELECT c.code FROM concept c JOIN revision r ON r.concept_id = c.id "
            "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.status = 'canonical' "
            "AND r.version IS NOT NULL AND r.version <> '' "
            "GROUP BY c.id HAVING COUNT(*) = 1 ORDER BY c.code LIMIT 1"
        ).fetchone()
    assert row is not None
    date.fromisoformat(reference)  # an ISO date, so that the shifts below are days
    return str(row[0]), str(reference)


WINDOWS = [
    # (days from the reference date to valid_from, to valid_to; None: open) -> valid?
    (None, -1, False),
    (None, 0, True),
    (None, 1, True),
    (-1, None, True),
    (0, None, True),
    (1, None, False),
    (0, 0, True),
    (-10, -1, False),
    (1, 10, False),
]


@pytest.mark.parametrize(("from_days", "to_days", "valid"), WINDOWS)
def test_lookup_around_the_reference_date(
    database_path: Path,
    tmp_path: Path,
    single_revision: tuple[str, str],
    from_days: int | None,
    to_days: int | None,
    valid: bool,
) -> None:
    code, reference = single_revision
    valid_from = None if from_days is None else _shift(reference, from_days)
    valid_to = None if to_days is None else _shift(reference, to_days)
    copy = tmp_path / "dates.sqlite"
    shutil.copyfile(database_path, copy)
    with sqlite3.connect(copy) as conn:
        changed = conn.execute(
            "UPDATE revision SET valid_from = ?, valid_to = ? WHERE concept_id = "
            "(SELECT id FROM concept WHERE scheme = 'ipc' AND edition = '8U' AND code = ?)",
            (valid_from, valid_to, code),
        ).rowcount
    assert changed == 1
    with PMGSStore.open(copy) as store:
        record = store.lookup("ipc", code, edition="8U")
    assert record["match_status"] == ("exact" if valid else "not_valid_at_release")
    (version,) = record["available_versions"]
    assert (version["valid_from"], version["valid_to"]) == (valid_from, valid_to)
    assert version["valid_at_release"] is valid
    if valid:
        assert record["revision"] is not None
        assert record["revision"]["valid_at_release"] is True
        assert (record["revision"]["valid_from"], record["revision"]["valid_to"]) == (
            valid_from,
            valid_to,
        )
    else:
        assert record.get("revision") is None
