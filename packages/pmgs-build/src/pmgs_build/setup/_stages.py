"""The stages of the setup transaction, one small function each, and what they share.

:func:`pmgs_build.setup.setup_release` runs them in order (why a crash at any point leaves
the previous database current: docs/cli.md, ADR 0014). Each stage raises
:class:`~pmgs_build.setup.SetupError` with its own ``stage`` and a stable code; none of
them touches ``state/current.json`` except :func:`switch_pointer`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from pmgs_build.build import BuildReport, build_database
from pmgs_build.build_issues import BuildError, IssueCode
from pmgs_build.database.digest import file_sha256
from pmgs_build.setup._report import ErrorStage, SetupError, SetupReport, SetupStage
from pmgs_build.source.files import ProgressEvent
from pmgs_build.source.inventory import Inventory, take_inventory
from pmgs_build.source.parsers.ipc_definition import DEFAULT_PDF_TIMEOUT
from pmgs_core import SCHEMA_VERSION, CurrentPointer, PMGSQueryError, read_current_pointer
from pmgs_core.building import content_addressed_path, write_current_pointer

__all__ = [
    "FREE_SPACE_FACTOR",
    "FREE_SPACE_RESERVE",
    "STAGING_DIR",
    "BuildOptions",
    "Run",
    "already_ready",
    "build_staged",
    "check_free_space",
    "check_unchanged",
    "clean_staging",
    "current_pointer",
    "dry_run",
    "file_sha256",
    "inventory_of",
    "pause",
    "promote",
    "promoted_files",
    "refuse_quarantine",
    "report_base",
    "required_free_bytes",
    "setup_lock",
    "switch_pointer",
]

FREE_SPACE_FACTOR: Final = 3
FREE_SPACE_RESERVE: Final = 1 << 30
"""Setup needs ``3 × source bytes + 1 GiB`` free, for a directory and a ZIP alike: a ZIP is
read in place (ADR 0006), never extracted, so it needs no room for a copy of the package.

The database of a real package is about half its source size and the build needs roughly
the database twice (the file and SQLite's temporary index sort space); three times the source
leaves a margin, and the GiB keeps the disk usable afterwards.
"""

STAGING_DIR: Final = "staging"
_LOCK_FILE: Final = "state/setup.lock"
_RUNS_DIR: Final = "state/runs"
_PAUSE_ENV: Final = "PMGS_TEST_PAUSE_AT"
_PAUSE_MARKER_ENV: Final = "PMGS_TEST_PAUSE_MARKER"


# ---------------------------------------------------------------------------- helpers


def required_free_bytes(source_bytes: int) -> int:
    """The free space setup insists on (see :data:`FREE_SPACE_FACTOR`); ``source_bytes`` is
    the uncompressed size of the package's files."""
    return FREE_SPACE_FACTOR * source_bytes + FREE_SPACE_RESERVE


def pause(stage: str) -> None:
    """Test hook: write the marker and sleep when ``PMGS_TEST_PAUSE_AT`` names ``stage``."""
    if os.environ.get(_PAUSE_ENV) != stage:
        return
    marker = os.environ.get(_PAUSE_MARKER_ENV)
    if marker:
        # Whole or absent: a test polls for the file and reads it as soon as it exists.
        Path(f"{marker}.tmp").write_text(f"{os.getpid()} {stage}\n", encoding="utf-8")
        os.replace(f"{marker}.tmp", marker)
    time.sleep(300)


def _pointer_json(pointer: CurrentPointer | None) -> dict[str, Any] | None:
    return None if pointer is None else pointer.to_json()


class Run:
    """One setup run: its timings and the run report it leaves behind."""

    def __init__(self, root: Path, on_stage: Callable[[str], None] | None) -> None:
        self.root = root
        self.on_stage = on_stage
        self.stage: SetupStage = "lock"
        self.stage_seconds: dict[str, float] = {}
        self._started = time.perf_counter()

    def enter(self, stage: SetupStage) -> None:
        """Close the current stage's timing and start ``stage``."""
        now = time.perf_counter()
        self.stage_seconds[self.stage] = self.stage_seconds.get(self.stage, 0.0) + (
            now - self._started
        )
        self.stage = stage
        self._started = now
        if self.on_stage is not None:
            self.on_stage(stage)

    def finish(self) -> None:
        """Enter the last stage, so that every earlier one has its time."""
        self.enter("report")

    def write_report(self, data: dict[str, Any]) -> str:
        """Write ``state/runs/<utc>-<pid>.json`` and return its path relative to the root."""
        runs = self.root / _RUNS_DIR
        runs.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = runs / f"{stamp}-{os.getpid()}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return path.relative_to(self.root).as_posix()


# ---------------------------------------------------------------------------- lock


@contextmanager
def setup_lock(root: Path) -> Iterator[None]:
    """Hold the OS lock on ``state/setup.lock``; fail at once if another setup holds it."""
    path = root / _LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    handle: IO[str] = path.open("a+", encoding="utf-8")
    try:
        try:
            _lock_file(handle)
        except OSError:
            raise SetupError(
                "SETUP_LOCKED",
                "another pmgs setup is running on this data directory",
                stage="lock",
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            _unlock_file(handle)
    finally:
        handle.close()


def _lock_file(handle: IO[str]) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock_file(handle: IO[str]) -> None:
    with suppress(OSError):
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def clean_staging(root: Path) -> None:
    """Remove staging directories of earlier runs that died (only called under the lock)."""
    staging = root / STAGING_DIR
    if staging.is_dir():
        for entry in staging.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


# ---------------------------------------------------------------------------- inventory


def inventory_of(source: Path, release: str | None, stage: SetupStage) -> Inventory:
    """The inventory stage (and re-inventory): the package's files, or ``SOURCE_INVALID``."""
    try:
        return take_inventory(source, release=release)
    except BuildError as exc:
        raise SetupError(
            "SOURCE_INVALID",
            f"the source is not a readable PMGS package: {exc.issues[0].code}: "
            f"{exc.issues[0].message}",
            stage=stage,
            details={"issues": sorted({issue.code for issue in exc.issues})},
        ) from None


def current_pointer(root: Path) -> CurrentPointer | None:
    """The pointer setup may replace; a broken one names nothing usable, so it counts as none."""
    try:
        return read_current_pointer(root)
    except PMGSQueryError:
        return None


def report_base(
    inventory: Inventory, zipped: bool, current: CurrentPointer | None
) -> dict[str, Any]:
    """The :class:`SetupReport` fields every outcome shares, known once the source is read."""
    return {
        "release": inventory.release_id,
        "reference_date": inventory.reference_date,
        "source_kind": "zip" if zipped else "directory",
        "source_sha256": inventory.manifest_sha256,
        "source_files": len(inventory.files),
        "source_bytes": inventory.total_bytes,
        "required_free_bytes": required_free_bytes(inventory.total_bytes),
        "release_path": inventory.release_path,
        "ignored": inventory.ignored,
        "member_names": inventory.member_names,
        "previous": _pointer_json(current),
    }


def dry_run(root: Path, source_path: Path, zipped: bool, release: str | None) -> SetupReport:
    """Inventory only; nothing is written (not even the data directory)."""
    inventory = inventory_of(source_path, release, "inventory")
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    previous = None
    with suppress(PMGSQueryError):
        previous = _pointer_json(read_current_pointer(root)) if root.exists() else None
    base = report_base(inventory, zipped, None)
    return SetupReport(status="dry_run", free_bytes=free, **(base | {"previous": previous}))


# ---------------------------------------------------------------------------- reuse


def already_ready(
    run: Run,
    root: Path,
    inventory: Inventory,
    current: CurrentPointer | None,
    base: dict[str, Any],
    strict: bool,
) -> SetupReport | None:
    """The report of a setup with nothing to do (the pointer already names a verified
    database of this very source), or None when there is work."""
    if (
        current is None
        or current.source_sha256 != inventory.manifest_sha256
        or current.release != inventory.release_id
    ):
        return None
    existing = root / current.database
    if not existing.is_file() or file_sha256(existing) != current.database_sha256:
        return None
    if strict:
        refuse_quarantine(existing, "already_ready")
    run.finish()
    return SetupReport(
        status="already_ready",
        free_bytes=shutil.disk_usage(root).free,
        database=current.database,
        database_sha256=current.database_sha256,
        database_bytes=existing.stat().st_size,
        stage_seconds=run.stage_seconds,
        **base,
    )


def promoted_files(root: Path, inventory: Inventory) -> list[Path]:
    """The databases already promoted for this source (candidates for reuse)."""
    release, source_sha256 = inventory.release_id, inventory.manifest_sha256
    directory = root / Path(content_addressed_path(release, source_sha256, "x")).parent
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.sqlite") if p.is_file())


def refuse_quarantine(database: Path, stage: ErrorStage) -> None:
    """``strict``: a database of this source built earlier without it may hold quarantined
    records, and reusing it would let them through; the user then sets up afresh."""
    with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        count = int(conn.execute("SELECT count(*) FROM quarantine").fetchone()[0])
    if count:
        raise SetupError(
            "QUARANTINE_REFUSED",
            f"the database already built from this source holds {count} quarantined "
            "record(s), which --strict refuses",
            stage=stage,
            details={"quarantine_count": count},
        )


# ---------------------------------------------------------------------------- build


def check_free_space(root: Path, required: int) -> None:
    """The free-space stage: refuse before building rather than fill the disk halfway."""
    free = shutil.disk_usage(root).free
    if free < required:
        raise SetupError(
            "INSUFFICIENT_SPACE",
            "not enough free space in the data directory",
            stage="free_space",
            details={"free_bytes": free, "required_free_bytes": required},
        )


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """What setup passes through to :func:`build_database` (see its parameters)."""

    strict: bool = False
    quarantine_budget: float | None = None
    pdf_timeout: float | None = DEFAULT_PDF_TIMEOUT


def build_staged(
    package: Path,
    built: Path,
    inventory: Inventory,
    progress: Callable[[ProgressEvent], None] | None,
    options: BuildOptions,
) -> BuildReport:
    """The build stage: build into the staging directory, relaying progress (and pausing
    once, after the first parsed file, for the crash tests)."""
    paused = False

    def relay(event: ProgressEvent) -> None:
        nonlocal paused
        if progress is not None:
            progress(event)
        if event.phase == "parse" and not paused:
            paused = True
            pause("build")

    try:
        return build_database(
            package,
            built,
            release=inventory.release_id,
            progress=relay,
            strict=options.strict,
            quarantine_budget=options.quarantine_budget,
            pdf_timeout=options.pdf_timeout,
        )
    except BuildError as exc:
        codes = sorted({issue.code for issue in exc.issues})
        if IssueCode.OUTPUT_WRITE_FAILED in codes:
            # Not the package's fault: the data directory's file system refused a write.
            raise SetupError(
                "OUTPUT_WRITE_FAILED",
                "the database could not be written in the data directory (disk full, a size "
                "limit, or an I/O error)",
                stage="build",
                details={"issues": codes},
            ) from None
        raise SetupError(
            "BUILD_FAILED",
            f"the package could not be built: {exc.issues[0].code}: {exc.issues[0].message}",
            stage="build",
            details={"issues": codes},
        ) from None


def check_unchanged(package: Path, inventory: Inventory, build_report: BuildReport) -> None:
    """The re-inventory stage: the source is byte for byte what was inventoried and built.

    The manifest covers every member's bytes, so it proves a ZIP unchanged as well as a
    directory; the archive's own bytes (timestamps, order) do not matter.
    """
    again = inventory_of(package, inventory.release_id, "reinventory")
    if (
        again.manifest_sha256 != inventory.manifest_sha256
        or build_report.source_manifest_sha256 != inventory.manifest_sha256
    ):
        raise SetupError(
            "SOURCE_CHANGED", "the source package changed during setup", stage="reinventory"
        )


# ---------------------------------------------------------------------------- promote, switch


def promote(root: Path, built: Path, inventory: Inventory) -> tuple[str, str]:
    """The promote stage: move the staged file to its content address under a new name no
    reader can be looking at; return (path relative to the root, database SHA-256)."""
    database_sha = file_sha256(built)
    relative = content_addressed_path(inventory.release_id, inventory.manifest_sha256, database_sha)
    final_path = root / relative
    try:
        final_path.parent.mkdir(parents=True, exist_ok=True)
        if final_path.exists() and file_sha256(final_path) == database_sha:
            pass  # the same bytes are already promoted: keep the existing file
        else:
            built.chmod(0o444)
            os.replace(built, final_path)
    except OSError:
        raise SetupError(
            "PROMOTE_FAILED", "the database could not be moved into place", stage="promote"
        ) from None
    return relative, database_sha


def switch_pointer(root: Path, relative: str, inventory: Inventory, database_sha: str) -> None:
    """The switch stage: the one write that makes the new database current (atomic)."""
    pointer = CurrentPointer(
        database=relative,
        release=inventory.release_id,
        source_sha256=inventory.manifest_sha256,
        database_sha256=database_sha,
        schema_version=SCHEMA_VERSION,
    )
    pause("before_switch")
    try:
        write_current_pointer(root, pointer)
    except (OSError, PMGSQueryError):
        raise SetupError(
            "POINTER_FAILED", "state/current.json could not be replaced", stage="switch"
        ) from None
