"""Shared fixtures: reference databases built by pmgs-build, the viewer on them.

``sample_db`` is the embedded synthetic sample (what ``pmgs demo`` shows); ``hostile_db``
is the same package with markup written into one FI text, so the tests can see that
package text reaches the page only as text. ``data_dir`` holds two installed releases
(an older generated one and the sample as current) for ``?release=``. ``oracle`` is a
plain read-only SQLite connection: expected texts are read with SQL, not by the viewer.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pmgs_build import build_database, sample_package_path, setup_release
from pmgs_core import PMGSStore
from pmgs_testkit import (
    ReleasePlan,
    corrupt,
    generate_package,
    plan_next_release,
    write_next_release,
)
from pmgs_web import create_app
from pmgs_web.releases import StoreSet

pytest_plugins = ["pmgs_testkit.pytest_plugin"]

sys.path.insert(0, str(Path(__file__).parent))

HOSTILE_TEXT = '<script>alert("pmgs")</script><b onclick="x()">太字</b> &amp; "引用"'
"""Written over the FI text of A40Y1/02 in the hostile database."""
HOSTILE_CODE = "A40Y1/02"
OLD_RELEASE = "JPPM2025001"


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("sample") / "reference.sqlite"
    build_database(sample_package_path(), db)
    return db


@pytest.fixture(scope="session")
def store(sample_db: Path) -> Iterator[PMGSStore]:
    with PMGSStore.open(sample_db) as opened:
        yield opened


@pytest.fixture(scope="session")
def oracle(sample_db: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(sample_db.resolve().as_uri() + "?mode=ro", uri=True)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def client(sample_db: Path) -> Iterator[TestClient]:
    stores = StoreSet.open(sample_db)
    with TestClient(create_app(stores)) as test_client:
        yield test_client
    stores.close()


@pytest.fixture(scope="session")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    package = root / "JPPM2026002"
    shutil.copytree(sample_package_path(), package)
    text_file = package / "FI" / "FI_TEXT" / "fiText_A_20260331.csv"
    original = text_file.read_text(encoding="utf-8-sig")
    target = "合成データ：溶液の回路機構"
    assert original.count(target) == 1
    text_file.write_text(original.replace(target, HOSTILE_TEXT), encoding="utf-8-sig")
    db = root / "hostile.sqlite"
    build_database(package, db)
    return db


@pytest.fixture(scope="session")
def quarantine_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with one FI code the builder cannot read, kept aside in quarantine."""
    root = tmp_path_factory.mktemp("quarantine")
    package = root / "JPPM2026002"
    shutil.copytree(sample_package_path(), package)
    corrupt(package, "bad_fi_code")
    db = root / "quarantine.sqlite"
    build_database(package, db, quarantine_budget=1.0)
    return db


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An older generated release installed first, then the sample as the current one."""
    root = tmp_path_factory.mktemp("datadir")
    old = generate_package(root / "old-package", scale=0.001, seed=3, release=OLD_RELEASE)
    setup_release(old.path, root / "data-dir")
    setup_release(sample_package_path(), root / "data-dir")
    return root / "data-dir"


@pytest.fixture(scope="session")
def two_releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReleasePlan]:
    """A data directory with a generated base release and its planned next release
    (``pmgs_testkit.next_release`` with chains) as the current one: codes abolished (with
    transfer chains and a cycle), retitled, added, a theme abolished. The plan is the oracle."""
    root = tmp_path_factory.mktemp("two-releases")
    base = generate_package(root / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base, with_chains=True)
    following = write_next_release(base, root / "next", plan)
    data = root / "data-dir"
    setup_release(base.path, data)
    setup_release(following, data)
    return data, plan


@pytest.fixture(scope="session")
def releases_client(two_releases: tuple[Path, ReleasePlan]) -> Iterator[TestClient]:
    stores = StoreSet.open(data_dir=two_releases[0])
    with TestClient(create_app(stores)) as test_client:
        yield test_client
    stores.close()
