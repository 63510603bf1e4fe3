"""Synthetic PMGS packages for tests, benchmarks and the demo.

The real package may not be redistributed, so every test of the builder runs on packages
written here. Public API:

* :func:`generate_package` writes a package at a fraction of the real size and returns a
  :class:`GeneratedPackage` with its file and row counts, the counts a correct build must
  report (:class:`ExpectedCounts`) and named example codes.
* :func:`corrupt` damages one file of a generated package in a named way
  (:data:`CORRUPTION_KINDS`), so that the builder's fail-closed paths can be tested.

See ``docs/synthetic-packages.md``.
"""

from pmgs_build.testing.corrupt import CORRUPTION_KINDS, corrupt
from pmgs_build.testing.generator import (
    CSV_COLUMNS,
    DATA_GROUPS,
    NOT_TRANSLATED,
    REAL_FILES,
    REAL_ROWS,
    ExpectedCounts,
    GeneratedPackage,
    generate_package,
)

__all__ = [
    "CORRUPTION_KINDS",
    "CSV_COLUMNS",
    "DATA_GROUPS",
    "NOT_TRANSLATED",
    "REAL_FILES",
    "REAL_ROWS",
    "ExpectedCounts",
    "GeneratedPackage",
    "corrupt",
    "generate_package",
]
