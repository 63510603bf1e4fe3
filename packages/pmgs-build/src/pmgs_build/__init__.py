"""pmgs-build: turns a JPO PMGS package into a versioned, read-only pmgs reference database.

Everything other packages may use is re-exported here and listed in ``__all__``.

* :func:`build_database` — package directory or ZIP → database file, returning a
  :class:`BuildReport`; raises :class:`BuildError` (with :class:`BuildIssue`\\ s and a stable
  ``code``) and leaves nothing behind when the package cannot be trusted as a whole; records
  it cannot read with certainty are quarantined (:data:`QUARANTINE_CODES`) unless ``strict``.
* :func:`take_inventory` — the files, release id, reference date and manifest hash of a
  package, without building (setup re-takes it to prove the source did not change).
* :func:`logical_digest` — the content hash a finished database stores in its metadata.
"""

from pmgs_build.build import BuildReport, GroupCount, build_database
from pmgs_build.build_issues import (
    ALL_ISSUE_CODES,
    DEFAULT_ERROR_BUDGET,
    QUARANTINE_CODES,
    BuildError,
    BuildIssue,
    IssueCode,
    Quarantined,
)
from pmgs_build.database.digest import logical_digest
from pmgs_build.sample import SAMPLE_RELEASE, sample_package_path
from pmgs_build.setup import (
    FREE_SPACE_FACTOR,
    FREE_SPACE_RESERVE,
    SETUP_STAGES,
    SampleQueries,
    SetupError,
    SetupReport,
    choose_samples,
    file_sha256,
    required_free_bytes,
    run_self_check,
    setup_release,
)
from pmgs_build.source.files import ProgressEvent, SourceFile
from pmgs_build.source.inventory import Inventory, take_inventory
from pmgs_build.validate import ValidationCheck, ValidationReport, validate_database
from pmgs_core import distribution_version

__version__ = distribution_version("pmgs-build")

__all__ = [
    "ALL_ISSUE_CODES",
    "DEFAULT_ERROR_BUDGET",
    "FREE_SPACE_FACTOR",
    "FREE_SPACE_RESERVE",
    "QUARANTINE_CODES",
    "SAMPLE_RELEASE",
    "SETUP_STAGES",
    "BuildError",
    "BuildIssue",
    "BuildReport",
    "GroupCount",
    "Inventory",
    "IssueCode",
    "ProgressEvent",
    "Quarantined",
    "SampleQueries",
    "SetupError",
    "SetupReport",
    "SourceFile",
    "ValidationCheck",
    "ValidationReport",
    "__version__",
    "build_database",
    "choose_samples",
    "file_sha256",
    "logical_digest",
    "required_free_bytes",
    "run_self_check",
    "sample_package_path",
    "setup_release",
    "take_inventory",
    "validate_database",
]
