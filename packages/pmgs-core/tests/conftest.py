"""Shared fixtures of the store tests: one generated package, built once per session.

The database is built by pmgs-build from a synthetic package (never hand-written rows), so
the store is tested against exactly what users get. Its SHA-256 is taken after the build and
checked again when the session ends: no query of the whole suite may change the file.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import build_database
from pmgs_core import PMGSStore

try:
    from pmgs_build.testing import generate_package
except ImportError:  # the testing package may not re-export it yet
    from pmgs_build.testing.generator import generate_package

SCALE = 0.005
SEED = 7


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return generate_package(tmp_path_factory.mktemp("package"), scale=SCALE, seed=SEED)


@pytest.fixture(scope="session")
def examples(generated: Any) -> dict[str, str]:
    return dict(generated.examples)


@pytest.fixture(scope="session")
def database_path(generated: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The built database; its hash must be the same after every test has queried it."""
    path = tmp_path_factory.mktemp("db") / "reference.sqlite"
    build_database(generated.path, path)
    before = file_sha256(path)
    yield path
    assert file_sha256(path) == before, "a query changed the database file"
    leftovers = [p.name for p in path.parent.iterdir() if p.name != path.name]
    assert leftovers == [], f"queries left files beside the database: {leftovers}"


@pytest.fixture(scope="session")
def store(database_path: Path) -> Iterator[PMGSStore]:
    with PMGSStore.open(database_path) as opened:
        yield opened


@pytest.fixture
def writable_copy(database_path: Path, tmp_path: Path) -> Path:
    """A private copy of the database for tests that must damage or alter it."""
    target = tmp_path / "copy.sqlite"
    shutil.copyfile(database_path, target)
    return target


@pytest.fixture(scope="session")
def ro_conn(database_path: Path) -> Iterator[sqlite3.Connection]:
    """A separate read-only connection for computing expected answers straight from SQL."""
    connection = sqlite3.connect(database_path.resolve().as_uri() + "?mode=ro", uri=True)
    yield connection
    connection.close()
