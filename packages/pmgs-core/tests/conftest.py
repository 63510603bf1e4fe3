"""The store tests' reference: the shared kit's (``pmgs_testkit.pytest_plugin``), larger.

The database is built by pmgs-build from a synthetic package (never hand-written rows), so
the store is tested against exactly what users get; ``reference``, ``store``, ``ro_conn``,
``writable_copy`` and ``examples`` come from the kit, which also checks that no query of the
whole suite changed the file. pmgs-build is a test dependency of pmgs-core (its ``dev``
group), so the kit is loaded under nox's per-package session too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pmgs_testkit import GeneratedPackage
from pmgs_testkit.kit import ReferenceDatabase, ReferenceOptions

pytest_plugins = ["pmgs_testkit.pytest_plugin"]


@pytest.fixture(scope="session")
def pmgs_reference_options() -> ReferenceOptions:
    # Large enough for a document of more than 200 segments (test_store_documents).
    return ReferenceOptions(scale=0.005, seed=7)


@pytest.fixture(scope="session")
def generated(reference: ReferenceDatabase) -> GeneratedPackage:
    return reference.package


@pytest.fixture(scope="session")
def database_path(reference: ReferenceDatabase) -> Path:
    return reference.db
