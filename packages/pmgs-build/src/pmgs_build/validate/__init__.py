"""``validate_database``: the checks a reference database must pass before anyone may use it.

A front over private modules: ``_run`` (which checks run, on which connection, in which
order), ``_checks`` (what each check asks the database) and ``_report`` (what a validation
reports). The checks are listed in docs/database.md; why the build publishes nothing that
fails them: ADR 0003.
"""

from pmgs_build.validate._report import ValidationCheck, ValidationReport
from pmgs_build.validate._run import CHECK_NAMES, validate_database

__all__ = [
    "CHECK_NAMES",
    "ValidationCheck",
    "ValidationReport",
    "validate_database",
]
