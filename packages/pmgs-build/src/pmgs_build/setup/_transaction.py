"""The setup transaction in order: lock, inventory, free space, build in staging,
re-inventory, validate, self-check, promote, switch pointer, report.

Everything before the pointer switch happens beside the live data, so whatever stops a setup
leaves the previous database current (docs/cli.md, ADR 0014). ``PMGS_TEST_PAUSE_AT=<stage>``
(with ``PMGS_TEST_PAUSE_MARKER=<file>``) is for the crash tests only: setup writes the marker
and sleeps at ``build``, ``validated``, ``promoted`` or ``before_switch``.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from pmgs_build.build import BuildReport, quarantine_budget_of
from pmgs_build.setup import _stages
from pmgs_build.setup._probes import (
    run_doctor,
    self_check,
)
from pmgs_build.setup._report import SetupError, SetupReport, SetupStatus
from pmgs_build.setup._stages import (
    file_sha256,
)
from pmgs_build.setup._stages import pause as _pause
from pmgs_build.setup._stages import setup_lock as _setup_lock
from pmgs_build.source.files import ProgressEvent
from pmgs_build.source.inventory import Inventory
from pmgs_build.source.parsers.ipc_definition import DEFAULT_PDF_TIMEOUT
from pmgs_build.validate import validate_database

__all__ = ["setup_release"]


def setup_release(
    source: str | os.PathLike[str],
    data_dir: str | os.PathLike[str],
    *,
    release: str | None = None,
    dry_run: bool = False,
    progress: Callable[[ProgressEvent], None] | None = None,
    on_stage: Callable[[str], None] | None = None,
    doctor: Callable[[Path], dict[str, Any]] | None = None,
    strict: bool = False,
    quarantine_budget: float | None = None,
    pdf_timeout: float | None = DEFAULT_PDF_TIMEOUT,
) -> SetupReport:
    """Install the package at ``source`` (a directory or a ZIP) as the current reference.

    Returns a :class:`SetupReport` whose ``status`` is ``activated`` (new database built and
    switched to), ``reused`` (a promoted database of the same source was switched to),
    ``already_ready`` (the pointer already names a verified database of this source; nothing
    was written) or ``dry_run``. Raises :class:`SetupError`; then ``state/current.json`` and
    every database are exactly as before and the staging directory is gone.

    ``strict`` makes every record the build would quarantine an error (``BUILD_FAILED``), and
    refuses to reuse a database of this source that holds quarantined records;
    ``quarantine_budget`` (which conflicts with it: ``ValueError``) and ``pdf_timeout`` are
    passed to :func:`~pmgs_build.build_database`.

    ``doctor``, when given, is called with the staged database after the self-check and
    before promotion, and must return a report whose ``status`` is ``"ok"`` (or ``"skipped"``,
    when it had nothing to check with); anything else stops the setup (``DOCTOR_FAILED``).
    ``pmgs setup`` passes one that talks MCP over stdio to a real server on the staged file:
    pmgs-build itself knows nothing of MCP.
    """
    quarantine_budget_of(strict, quarantine_budget)  # a conflict is refused before any work
    options = _stages.BuildOptions(strict, quarantine_budget, pdf_timeout)
    root = Path(os.path.abspath(data_dir))
    source_path = Path(os.path.abspath(source))
    if not source_path.exists():
        raise SetupError("SOURCE_NOT_FOUND", "the source does not exist", stage="inventory")
    zipped = source_path.is_file()
    if dry_run and not root.exists():
        return _stages.dry_run(root, source_path, zipped, release)
    root.mkdir(parents=True, exist_ok=True)
    run = _stages.Run(root, on_stage)
    with _setup_lock(root):
        if dry_run:
            return _stages.dry_run(root, source_path, zipped, release)
        _stages.clean_staging(root)
        staging = root / _stages.STAGING_DIR / secrets.token_hex(8)
        staging.mkdir(parents=True)
        try:
            return _transaction(
                run=run,
                root=root,
                source_path=source_path,
                zipped=zipped,
                release=release,
                staging=staging,
                progress=progress,
                doctor=doctor,
                options=options,
            )
        except SetupError as exc:
            run.stage_seconds[run.stage] = run.stage_seconds.get(run.stage, 0.0)
            with suppress(OSError):
                run.write_report({"record_type": "setup_run", "status": "failed", **exc.to_dict()})
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            with suppress(OSError):
                (root / _stages.STAGING_DIR).rmdir()


def _transaction(
    run: _stages.Run,
    root: Path,
    source_path: Path,
    zipped: bool,
    release: str | None,
    staging: Path,
    progress: Callable[[ProgressEvent], None] | None,
    doctor: Callable[[Path], dict[str, Any]] | None,
    options: _stages.BuildOptions,
) -> SetupReport:
    """The stages after the lock, in order; see the module docstring."""
    run.enter("inventory")
    # A ZIP is read in place by the inventory and the build alike (ADR 0006): nothing is
    # extracted, so its hostile members are refused by the checks, never written anywhere.
    package = source_path
    inventory = _stages.inventory_of(package, release, "inventory")
    current = _stages.current_pointer(root)
    base = _stages.report_base(inventory, zipped, current)
    strict = options.strict
    ready = _stages.already_ready(run, root, inventory, current, base, strict)
    if ready is not None:
        return ready

    run.enter("free_space")
    _stages.check_free_space(root, base["required_free_bytes"])

    reuse = _reusable(root, inventory)
    build_info: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None
    self_check_report: dict[str, Any] | None = None
    doctor_report: dict[str, Any] | None = None
    if reuse is not None:
        status: SetupStatus = "reused"
        final_path, database_sha = reuse
        if strict:
            _stages.refuse_quarantine(final_path, "reuse")
        relative = final_path.relative_to(root).as_posix()
    else:
        status = "activated"
        run.enter("build")
        built = staging / "build.sqlite"
        build_report = _stages.build_staged(package, built, inventory, progress, options)
        build_info = build_report.to_dict()
        build_info.pop("output", None)
        build_info.pop("validation", None)  # reported once, under "validation"

        run.enter("reinventory")
        _stages.check_unchanged(package, inventory, build_report)

        run.enter("validate")
        validation = _validation(build_report, built)
        _pause("validated")

        run.enter("self_check")
        self_check_report = self_check(built, inventory)

        if doctor is not None:
            run.enter("doctor")
            doctor_report = run_doctor(doctor, built)

        run.enter("promote")
        relative, database_sha = _stages.promote(root, built, inventory)
        final_path = root / relative
        _pause("promoted")

    run.enter("switch")
    _stages.switch_pointer(root, relative, inventory, database_sha)

    run.finish()
    report = SetupReport(
        status=status,
        free_bytes=shutil.disk_usage(root).free,
        database=relative,
        database_sha256=database_sha,
        database_bytes=final_path.stat().st_size,
        stage_seconds=run.stage_seconds,
        build=build_info,
        validation=validation,
        self_check=self_check_report,
        doctor=doctor_report,
        **base,
    )
    with suppress(OSError):
        report.run_report = run.write_report({"record_type": "setup_run", **report.to_dict()})
    return report


# The two stages that call validate_database stay here, so that it is looked up under this
# module's name (which is what tests observe when they count validations).


def _reusable(root: Path, inventory: Inventory) -> tuple[Path, str] | None:
    """An already promoted database of this source whose bytes match its name, if any."""
    for candidate in _stages.promoted_files(root, inventory):
        digest = file_sha256(candidate)
        if digest == candidate.stem and validate_database(candidate).ok:
            return candidate, digest
    return None


def _validation(build_report: BuildReport, built: Path) -> dict[str, Any]:
    """The validate stage: the build's own report of the staged bytes, else a fresh one.

    build_database validated these very bytes before publishing them into staging (it never
    publishes a file that fails), so its report stands; validating again would cost as much
    as the build's own validation.
    """
    validation = build_report.validation
    if validation is None or not validation.get("ok"):
        checked = validate_database(built, writable=True)
        validation = checked.to_dict()
        if not checked.ok:
            raise SetupError(
                "VALIDATION_FAILED",
                "the new database failed validation",
                stage="validate",
                details={"failed": checked.failed},
            )
    return validation
