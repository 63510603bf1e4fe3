"""Synthetic PMGS packages for tests and benchmarks (and the tool that makes the demo's sample).

The real package may not be redistributed, so every test of the builder runs on packages
written here. Public API:

* :func:`generate_package` writes a package at a fraction of the real size and returns a
  :class:`GeneratedPackage` with its file and row counts, the counts a correct build must
  report (:class:`ExpectedCounts`) and named example codes.
* :func:`corrupt` damages one file of a generated package in a named way
  (:data:`CORRUPTION_KINDS`; :data:`DOCUMENT_CORRUPTION_KINDS` for the XML and PDF groups),
  so that the builder's fail-closed paths can be tested.
* ``generate_package(..., with_documents=True)`` adds the XML, HTML and PDF groups
  (:data:`DOCUMENT_GROUPS`), counted in :class:`DocumentCounts`.
* :func:`make_variant` rewrites a copy of a generated package the way another writer of the
  format could have (:data:`VARIANT_KINDS`, each a :class:`Variant` saying what a build of
  it must report), keeping every code, text and relation.
* :func:`plan_next_release` / :func:`write_next_release` write the next release of a
  package with changes planned first (:class:`ReleasePlan`), for ``check`` and ``diff``.
* :func:`make_zip` zips a package as it is downloaded (release directory at the top);
  :func:`stored_zip` writes a ZIP byte by byte under raw name bytes (CP932, backslashes).
* :mod:`pmgs_testkit.kit` and :mod:`pmgs_testkit.pytest_plugin` are the test kit
  every suite of the workspace shares (reference database, store, hashing, the console
  script, servers on a port they own); a suite loads the plugin in its conftest (ADR 0024).

This package is a workspace member that is never published: the product (pmgs-build and the
others) does not depend on it, and the demo's embedded sample lives in ``pmgs_build.sample``.

See ``docs/synthetic-packages.md``.
"""

from pmgs_testkit.archive import make_zip, stored_zip
from pmgs_testkit.corrupt import CORRUPTION_KINDS, DOCUMENT_CORRUPTION_KINDS, corrupt
from pmgs_testkit.documents import (
    CP932_ONLY_TEXT,
    DOCUMENT_GROUPS,
    IPC_KAISEI_HEADER,
    REAL_DOCUMENT_FILES,
    DocumentCounts,
)
from pmgs_testkit.generator import (
    CSV_COLUMNS,
    DATA_GROUPS,
    NOT_TRANSLATED,
    REAL_FILES,
    REAL_ROWS,
    ExpectedCounts,
    GeneratedPackage,
    generate_package,
)
from pmgs_testkit.next_release import ReleasePlan, plan_next_release, write_next_release
from pmgs_testkit.variants import VARIANT_KINDS, Variant, make_variant

__all__ = [
    "CORRUPTION_KINDS",
    "CP932_ONLY_TEXT",
    "CSV_COLUMNS",
    "DATA_GROUPS",
    "DOCUMENT_CORRUPTION_KINDS",
    "DOCUMENT_GROUPS",
    "IPC_KAISEI_HEADER",
    "NOT_TRANSLATED",
    "REAL_DOCUMENT_FILES",
    "REAL_FILES",
    "REAL_ROWS",
    "VARIANT_KINDS",
    "DocumentCounts",
    "ExpectedCounts",
    "GeneratedPackage",
    "ReleasePlan",
    "Variant",
    "corrupt",
    "generate_package",
    "make_variant",
    "make_zip",
    "plan_next_release",
    "stored_zip",
    "write_next_release",
]
