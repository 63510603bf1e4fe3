"""``setup_release``: installs a package as the current reference, as one transaction.

A front over private modules: ``_transaction`` (the stages in order), ``_stages`` (one
function per stage), ``_probes`` (self-check and doctor) and ``_report`` (what a setup
reports). The stages and why a crash at any point leaves the previous database current:
docs/cli.md (``pmgs setup``) and ADR 0014.
"""

from pmgs_build.setup._probes import SampleQueries, choose_samples, run_self_check
from pmgs_build.setup._report import SETUP_STAGES, SetupError, SetupReport
from pmgs_build.setup._stages import (
    FREE_SPACE_FACTOR,
    FREE_SPACE_RESERVE,
    file_sha256,
    required_free_bytes,
)
from pmgs_build.setup._transaction import setup_release

__all__ = [
    "FREE_SPACE_FACTOR",
    "FREE_SPACE_RESERVE",
    "SETUP_STAGES",
    "SampleQueries",
    "SetupError",
    "SetupReport",
    "choose_samples",
    "file_sha256",
    "required_free_bytes",
    "run_self_check",
    "setup_release",
]
