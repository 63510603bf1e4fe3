"""The workspace's shared pytest fixtures (ADR 0024).

Every suite loads them explicitly (``pytest_plugins = ["pmgs_testkit.pytest_plugin"]`` in its
conftest), so pmgs-core, pmgs-mcp, the reliability and integration suites get the same
reference database, store and checks without a copy in each conftest, and nothing is loaded
into a pytest run that did not ask for it (no ``pytest11`` entry point, issue 38):

* ``reference`` — a database built once per session from a generated package
  (:class:`~pmgs_testkit.kit.ReferenceDatabase`: ``db``, ``package``, ``examples``),
  at the scale and seed of ``pmgs_reference_options`` (a suite overrides that fixture in its
  conftest; one pytest run uses one set of options, and says so if asked for two).
* ``pmgs_reference_factory`` — other scales or the document groups, built once per key.
* ``store``, ``ro_conn``, ``writable_copy``, ``examples`` — the reference opened by the
  store, by a separate read-only SQL connection (the oracle side), copied for tests that
  damage it, and its named examples.

Every database the factory built must have the same SHA-256 when the session ends and no
file beside it: no test may change the reference (it is opened read only everywhere).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pmgs_testkit.kit import ReferenceDatabase, ReferenceOptions, build_reference, file_sha256

if TYPE_CHECKING:
    from pmgs_core import PMGSStore


class ReferenceFactory:
    """Builds reference databases, once per :class:`ReferenceOptions`, and remembers them."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self.built: dict[ReferenceOptions, tuple[ReferenceDatabase, str]] = {}
        """Each database built, with its SHA-256 right after the build."""

    def __call__(
        self, scale: float = 0.001, seed: int = 7, with_documents: bool = False
    ) -> ReferenceDatabase:
        options = ReferenceOptions(scale, seed, with_documents)
        if options not in self.built:
            root = self._tmp.mktemp("reference")
            made = build_reference(root, scale=scale, seed=seed, with_documents=with_documents)
            self.built[options] = (made, file_sha256(made.db))
        return self.built[options][0]


def pytest_configure(config: pytest.Config) -> None:
    """Turn off Hypothesis's per-example deadline and its too-slow health check in every suite.

    Both are timed assertions: on a busy machine an example that runs in 0.2 ms alone took
    284 ms once beside a build, and Hypothesis failed the test as flaky. Speed is measured by
    the benchmarks, never asserted by a test.
    """
    del config
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:  # a suite without Hypothesis has nothing to configure
        return
    settings.register_profile("pmgs", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("pmgs")


@pytest.fixture(scope="session")
def pmgs_reference_options() -> ReferenceOptions:
    """The options of ``reference``; override in a conftest for another scale or seed."""
    return ReferenceOptions()


@pytest.fixture(scope="session")
def pmgs_reference_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ReferenceFactory]:
    """``make(scale=, seed=, with_documents=)``: a reference database, built once per key."""
    factory = ReferenceFactory(tmp_path_factory)
    yield factory
    for made, digest in factory.built.values():
        assert file_sha256(made.db) == digest, f"a test changed the reference {made.db}"
        beside = sorted(p.name for p in made.db.parent.iterdir() if p.is_file() and p != made.db)
        assert beside == [], f"files were left beside the reference database: {beside}"


@pytest.fixture(scope="session")
def reference(
    pmgs_reference_factory: ReferenceFactory, pmgs_reference_options: ReferenceOptions
) -> ReferenceDatabase:
    """The session's reference database (see ``pmgs_reference_options``)."""
    options = pmgs_reference_options
    return pmgs_reference_factory(options.scale, options.seed, options.with_documents)


@pytest.fixture(autouse=True)
def _pmgs_reference_is_the_one_asked_for(request: pytest.FixtureRequest) -> None:
    """A run spanning suites with different options gets a clear error, not the wrong data.

    Only this plugin's ``reference`` is checked: a project that installs pmgs-build and has a
    fixture of the same name of its own is left alone.
    """
    names = request.fixturenames
    if "reference" not in names or "pmgs_reference_factory" not in names:
        return
    factory: ReferenceFactory = request.getfixturevalue("pmgs_reference_factory")
    made = request.getfixturevalue("reference")
    if not any(made is built for built, _ in factory.built.values()):
        return
    options: ReferenceOptions = request.getfixturevalue("pmgs_reference_options")
    if options not in factory.built or factory.built[options][0] is not made:
        pytest.fail(
            f"this suite asks for the reference at {options}, but the session's was built "
            "with other options: run each package's tests in its own pytest run"
        )


@pytest.fixture(scope="session")
def examples(reference: ReferenceDatabase) -> dict[str, str]:
    """Named example codes and documents of the reference package."""
    return reference.examples


@pytest.fixture(scope="session")
def store(reference: ReferenceDatabase) -> Iterator[PMGSStore]:
    """The reference opened by pmgs-core, shared by the whole session."""
    from pmgs_core import PMGSStore

    with PMGSStore.open(reference.db) as opened:
        yield opened


@pytest.fixture(scope="session")
def ro_conn(reference: ReferenceDatabase) -> Iterator[sqlite3.Connection]:
    """A separate read-only connection, for expected answers computed straight from SQL."""
    connection = sqlite3.connect(reference.db.resolve().as_uri() + "?mode=ro", uri=True)
    yield connection
    connection.close()


@pytest.fixture
def writable_copy(reference: ReferenceDatabase, tmp_path: Path) -> Path:
    """A private copy of the reference for a test that must damage or alter it."""
    target = tmp_path / "copy.sqlite"
    shutil.copyfile(reference.db, target)
    return target
