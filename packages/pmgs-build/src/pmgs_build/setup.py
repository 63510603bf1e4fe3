"""``setup_release``: the transaction that installs a package as the current reference.

Stages (docs/design.md, docs/cli.md)::

    lock → inventory → free-space check → build in staging → re-inventory → validate
         → self-check → promote → switch pointer → run report

Everything before *switch pointer* happens beside the live data: the database is built in
``<data_dir>/staging/<random>/``, promoted by an atomic rename to its content address
``data/releases/<release>/<source-sha256>/<database-sha256>.sqlite`` (a new file name, so no
reader can be looking at it) and only then named by ``state/current.json``, which
:func:`pmgs_core.write_current_pointer` replaces atomically. So whatever kills a setup — an
error, Ctrl-C, SIGKILL, a power cut — the pointer still names the previous database, which
was never touched. A later setup removes leftover staging directories under the lock.

The lock is an OS file lock (``fcntl.flock`` / ``msvcrt.locking``) on ``state/setup.lock``:
the OS releases it when the holder dies, so there is no stale-lock guessing.

``PMGS_TEST_PAUSE_AT=<stage>`` (with ``PMGS_TEST_PAUSE_MARKER=<file>``) exists for the
crash tests only: setup writes the marker file and sleeps at that stage, so a test can kill
it at a known point. Stages: ``build`` (inside the build, after its first file),
``validated``, ``promoted``, ``before_switch``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Literal

from pmgs_build.build import build_database
from pmgs_build.inventory import Inventory, take_inventory
from pmgs_build.issues import BuildError
from pmgs_build.model import ProgressEvent
from pmgs_build.validate import validate_database
from pmgs_core import (
    SCHEMA_VERSION,
    CurrentPointer,
    PMGSQueryError,
    PMGSStore,
    content_addressed_path,
    read_current_pointer,
    write_current_pointer,
)

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

SETUP_STAGES: Final = (
    "lock",
    "inventory",
    "free_space",
    "build",
    "reinventory",
    "validate",
    "self_check",
    "doctor",
    "promote",
    "switch",
    "report",
)
"""The stages of a setup, in order (the ``stage`` of a :class:`SetupError`)."""

FREE_SPACE_FACTOR: Final = 3
FREE_SPACE_RESERVE: Final = 1 << 30
"""Setup needs ``3 × source bytes + 1 GiB`` free, for a directory and a ZIP alike: a ZIP is
read in place (ADR 0006), never extracted, so it needs no room for a copy of the package.

The database of a real package is about half its source size and the build needs roughly
the database twice (the file and SQLite's temporary index sort space); three times the source
leaves a margin, and the GiB keeps the disk usable afterwards.
"""

_LOCK_FILE: Final = "state/setup.lock"
_STAGING_DIR: Final = "staging"
_RUNS_DIR: Final = "state/runs"
_PAUSE_ENV: Final = "PMGS_TEST_PAUSE_AT"
_PAUSE_MARKER_ENV: Final = "PMGS_TEST_PAUSE_MARKER"

SetupStatus = Literal["activated", "reused", "already_ready", "dry_run"]


class SetupError(Exception):
    """Setup stopped; the pointer and every existing database are as they were.

    ``code`` is stable (``SETUP_LOCKED``, ``SOURCE_NOT_FOUND``, ``SOURCE_INVALID``,
    ``INSUFFICIENT_SPACE``, ``BUILD_FAILED``, ``SOURCE_CHANGED``, ``VALIDATION_FAILED``,
    ``SELF_CHECK_FAILED``, ``PROMOTE_FAILED``, ``POINTER_FAILED``), ``stage`` names where it
    stopped, ``details`` holds counts and codes only (no paths, no source text).
    """

    def __init__(
        self, code: str, message: str, *, stage: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.stage = stage
        self.details: dict[str, Any] = dict(details or {})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, the same ``{code, message, details}`` shape as the store's errors."""
        out: dict[str, Any] = {"code": self.code, "message": self.message, "stage": self.stage}
        if self.details:
            out["details"] = self.details
        return out


@dataclass
class SetupReport:
    """What a setup did (or, for ``dry_run``, would do). Paths are relative to the data dir."""

    status: SetupStatus
    release: str
    reference_date: str
    source_kind: Literal["directory", "zip"]
    source_sha256: str
    source_files: int
    source_bytes: int
    free_bytes: int
    required_free_bytes: int
    database: str | None = None
    database_sha256: str | None = None
    database_bytes: int | None = None
    previous: dict[str, Any] | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    build: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None
    self_check: dict[str, Any] | None = None
    doctor: dict[str, Any] | None = None
    """What the caller's ``doctor`` check (an MCP session against the staged database, from
    ``pmgs setup``) reported, or None when no check was given."""
    run_report: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``pmgs setup --json``)."""
        return {
            "record_type": "setup_report",
            "status": self.status,
            "release": self.release,
            "reference_date": self.reference_date,
            "source_kind": self.source_kind,
            "source_sha256": self.source_sha256,
            "source_files": self.source_files,
            "source_bytes": self.source_bytes,
            "free_bytes": self.free_bytes,
            "required_free_bytes": self.required_free_bytes,
            "database": self.database,
            "database_sha256": self.database_sha256,
            "database_bytes": self.database_bytes,
            "schema_version": SCHEMA_VERSION,
            "previous": self.previous,
            "stage_seconds": {k: round(v, 3) for k, v in self.stage_seconds.items()},
            "build": self.build,
            "validation": self.validation,
            "self_check": self.self_check,
            "doctor": self.doctor,
            "quarantine_count": None if self.build is None else self.build["quarantine_count"],
            "run_report": self.run_report,
        }


# ---------------------------------------------------------------------------- helpers


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def required_free_bytes(source_bytes: int) -> int:
    """The free space setup insists on (see :data:`FREE_SPACE_FACTOR`); ``source_bytes`` is
    the uncompressed size of the package's files."""
    return FREE_SPACE_FACTOR * source_bytes + FREE_SPACE_RESERVE


def _pause(stage: str) -> None:
    """Test hook: write the marker and sleep when ``PMGS_TEST_PAUSE_AT`` names ``stage``."""
    if os.environ.get(_PAUSE_ENV) != stage:
        return
    marker = os.environ.get(_PAUSE_MARKER_ENV)
    if marker:
        Path(marker).write_text(f"{os.getpid()} {stage}\n", encoding="utf-8")
    time.sleep(300)


@contextmanager
def _setup_lock(root: Path) -> Iterator[None]:
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


def _inventory(source: Path, release: str | None, stage: str) -> Inventory:
    try:
        return take_inventory(source, release=release)
    except BuildError as exc:
        raise SetupError(
            "SOURCE_INVALID",
            "the source is not a readable PMGS package",
            stage=stage,
            details={"issues": sorted({issue.code for issue in exc.issues})},
        ) from None


def _release_dir_files(root: Path, release: str, source_sha256: str) -> list[Path]:
    directory = root / Path(content_addressed_path(release, source_sha256, "x")).parent
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.sqlite") if p.is_file())


def _pointer_json(pointer: CurrentPointer | None) -> dict[str, Any] | None:
    return None if pointer is None else pointer.to_json()


# ---------------------------------------------------------------------------- self-check


@dataclass(frozen=True, slots=True)
class SampleQueries:
    """Queries chosen deterministically from a database, for self-checks and ``pmgs doctor``.

    The values are source text and codes: reports must show their hashes only.
    """

    scheme: str
    code: str
    term3: str
    term2: str
    document_id: str | None

    def hashes(self) -> dict[str, str]:
        """SHA-256 of each query value, the only form a report may show."""

        def h(value: str | None) -> str | None:
            return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()

        return {
            key: digest
            for key, digest in (
                ("lookup", h(f"{self.scheme}:{self.code}")),
                ("search3", h(self.term3)),
                ("search2", h(self.term2)),
                ("document", h(self.document_id)),
            )
            if digest is not None
        }


def _terms_of(body: str) -> tuple[str, str] | None:
    """The first 3- and 2-character runs of non-space characters of a text line."""
    for start in range(len(body)):
        chunk = body[start : start + 3]
        if len(chunk) == 3 and not any(c.isspace() for c in chunk):
            return chunk, chunk[:2]
    return None


def choose_samples(store: PMGSStore) -> SampleQueries:
    """Pick a classification, two search terms and a document from the database itself.

    Deterministic (first document in the store's stable order, its subject classification,
    that classification's first text line), so two runs on one database ask the same
    questions. Raises ``PMGSQueryError("DATABASE_INVALID")`` when nothing can be chosen.
    """
    candidates: list[tuple[str, str, str | None]] = []
    listing = store.list_documents(limit=5)
    for item in listing["items"]:
        page = store.get_document(item["document_id"], segment_limit=1)
        for related in page["related_classifications"]:
            candidates.append((related["scheme"], related["code"], item["document_id"]))
            break
    categories = store.categories()
    for theme in categories["themes"][:5]:
        candidates.append(("fterm", theme["theme"], None))
    for scheme, code, document_id in candidates:
        record = store.lookup(scheme, code)
        if record["match_status"] not in {"exact", "normalized_exact"}:
            continue
        for text in record["texts"]:
            terms = _terms_of(text["body"])
            if terms is not None:
                return SampleQueries(scheme, record["code"], terms[0], terms[1], document_id)
    raise PMGSQueryError("DATABASE_INVALID", "no sample query could be chosen from the database")


def run_self_check(store: PMGSStore, samples: SampleQueries) -> dict[str, Any]:
    """Ask the sample questions; raise ``PMGSQueryError`` on an answer that cannot be right.

    Returns counts and hashes only.
    """
    record = store.lookup(samples.scheme, samples.code)
    if record["match_status"] not in {"exact", "normalized_exact"} or not record["texts"]:
        raise PMGSQueryError("DATABASE_INVALID", "the sample classification did not resolve")
    search3 = store.search(samples.term3, limit=5)
    search2 = store.search(samples.term2, limit=5)
    if search3["count"] < 1 or search2["count"] < 1:
        raise PMGSQueryError("DATABASE_INVALID", "a sample search found nothing")
    document_segments = 0
    if samples.document_id is not None:
        page = store.get_document(samples.document_id, segment_limit=5)
        document_segments = len(page["segments"])
        if document_segments < 1:
            raise PMGSQueryError("DATABASE_INVALID", "the sample document has no text")
    return {
        "query_sha256": samples.hashes(),
        "lookup_texts": len(record["texts"]),
        "search3_hits": search3["count"],
        "search3_mode": search3["search_mode"],
        "search2_hits": search2["count"],
        "search2_mode": search2["search_mode"],
        "document_segments": document_segments,
    }


def _self_check(database: Path, inventory: Inventory) -> dict[str, Any]:
    try:
        with PMGSStore.open(database) as store:
            info = store.release_info()
            if (
                info["release_id"] != inventory.release_id
                or info["source_manifest_sha256"] != inventory.manifest_sha256
            ):
                raise PMGSQueryError("DATABASE_INVALID", "the database names another source")
            return run_self_check(store, choose_samples(store))
    except PMGSQueryError as exc:
        raise SetupError(
            "SELF_CHECK_FAILED",
            "the new database did not answer its self-check queries",
            stage="self_check",
            details={"error": exc.code},
        ) from None


def _run_doctor(doctor: Callable[[Path], dict[str, Any]], database: Path) -> dict[str, Any]:
    try:
        report = doctor(database)
    except Exception as exc:  # the caller's check must not leave a half-done setup
        raise SetupError(
            "DOCTOR_FAILED",
            "the doctor check of the new database raised an error",
            stage="doctor",
            details={"error": type(exc).__name__},
        ) from None
    if report.get("status") not in {"ok", "skipped"}:
        raise SetupError(
            "DOCTOR_FAILED",
            "the new database failed its doctor check",
            stage="doctor",
            details={"doctor": report},
        )
    return report


# ---------------------------------------------------------------------------- transaction


class _Run:
    """One setup run: its timings and the run report it leaves behind."""

    def __init__(self, root: Path, on_stage: Callable[[str], None] | None) -> None:
        self.root = root
        self.on_stage = on_stage
        self.stage = "lock"
        self.stage_seconds: dict[str, float] = {}
        self._started = time.perf_counter()

    def enter(self, stage: str) -> None:
        now = time.perf_counter()
        self.stage_seconds[self.stage] = self.stage_seconds.get(self.stage, 0.0) + (
            now - self._started
        )
        self.stage = stage
        self._started = now
        if self.on_stage is not None:
            self.on_stage(stage)

    def finish(self) -> None:
        self.enter("report")

    def write_report(self, data: dict[str, Any]) -> str:
        """Write ``state/runs/<utc>-<pid>.json`` and return its path relative to the root."""
        runs = self.root / _RUNS_DIR
        runs.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = runs / f"{stamp}-{os.getpid()}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return path.relative_to(self.root).as_posix()


def _clean_staging(root: Path) -> None:
    """Remove staging directories of earlier runs that died (only called under the lock)."""
    staging = root / _STAGING_DIR
    if staging.is_dir():
        for entry in staging.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def _reusable(root: Path, inventory: Inventory) -> tuple[Path, str] | None:
    """An already promoted database of this source whose bytes match its name, if any."""
    for candidate in _release_dir_files(root, inventory.release_id, inventory.manifest_sha256):
        digest = file_sha256(candidate)
        if digest == candidate.stem and validate_database(candidate).ok:
            return candidate, digest
    return None


def _refuse_quarantine(database: Path, stage: str) -> None:
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
) -> SetupReport:
    """Install the package at ``source`` (a directory or a ZIP) as the current reference.

    Returns a :class:`SetupReport` whose ``status`` is ``activated`` (new database built and
    switched to), ``reused`` (a promoted database of the same source was switched to),
    ``already_ready`` (the pointer already names a verified database of this source; nothing
    was written) or ``dry_run``. Raises :class:`SetupError`; then ``state/current.json`` and
    every database are exactly as before and the staging directory is gone.

    ``strict`` makes every record the build would quarantine an error (``BUILD_FAILED``), and
    refuses to reuse a database of this source that holds quarantined records.

    ``doctor``, when given, is called with the staged database after the self-check and
    before promotion, and must return a report whose ``status`` is ``"ok"`` (or ``"skipped"``,
    when it had nothing to check with); anything else stops the setup (``DOCTOR_FAILED``).
    ``pmgs setup`` passes one that talks MCP over stdio to a real server on the staged file:
    pmgs-build itself knows nothing of MCP.
    """
    root = Path(os.path.abspath(data_dir))
    source_path = Path(os.path.abspath(source))
    if not source_path.exists():
        raise SetupError("SOURCE_NOT_FOUND", "the source does not exist", stage="inventory")
    zipped = source_path.is_file()
    if dry_run and not root.exists():
        return _dry_run(root, source_path, zipped, release)
    root.mkdir(parents=True, exist_ok=True)
    run = _Run(root, on_stage)
    with _setup_lock(root):
        if dry_run:
            return _dry_run(root, source_path, zipped, release)
        _clean_staging(root)
        staging = root / _STAGING_DIR / secrets.token_hex(8)
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
                strict=strict,
            )
        except SetupError as exc:
            run.stage_seconds[run.stage] = run.stage_seconds.get(run.stage, 0.0)
            with suppress(OSError):
                run.write_report({"record_type": "setup_run", "status": "failed", **exc.to_dict()})
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            with suppress(OSError):
                (root / _STAGING_DIR).rmdir()


def _dry_run(root: Path, source_path: Path, zipped: bool, release: str | None) -> SetupReport:
    """Inventory only; nothing is written (not even the data directory)."""
    inventory = _inventory(source_path, release, "inventory")
    files, total, sha = len(inventory.files), inventory.total_bytes, inventory.manifest_sha256
    release_id, reference_date = inventory.release_id, inventory.reference_date
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    previous = None
    with suppress(PMGSQueryError):
        previous = _pointer_json(read_current_pointer(root)) if root.exists() else None
    return SetupReport(
        status="dry_run",
        release=release_id,
        reference_date=reference_date,
        source_kind="zip" if zipped else "directory",
        source_sha256=sha,
        source_files=files,
        source_bytes=total,
        free_bytes=free,
        required_free_bytes=required_free_bytes(total),
        previous=previous,
    )


def _transaction(
    run: _Run,
    root: Path,
    source_path: Path,
    zipped: bool,
    release: str | None,
    staging: Path,
    progress: Callable[[ProgressEvent], None] | None,
    doctor: Callable[[Path], dict[str, Any]] | None,
    strict: bool = False,
) -> SetupReport:
    run.enter("inventory")
    # A ZIP is read in place by the inventory and the build alike (ADR 0006): nothing is
    # extracted, so its hostile members are refused by the checks, never written anywhere.
    package = source_path
    inventory = _inventory(package, release, "inventory")
    try:
        current = read_current_pointer(root)
    except PMGSQueryError:
        current = None  # a broken pointer is replaced by a good one; it names nothing usable
    base: dict[str, Any] = {
        "release": inventory.release_id,
        "reference_date": inventory.reference_date,
        "source_kind": "zip" if zipped else "directory",
        "source_sha256": inventory.manifest_sha256,
        "source_files": len(inventory.files),
        "source_bytes": inventory.total_bytes,
        "required_free_bytes": required_free_bytes(inventory.total_bytes),
        "previous": _pointer_json(current),
    }

    if (
        current is not None
        and current.source_sha256 == inventory.manifest_sha256
        and current.release == inventory.release_id
    ):
        existing = root / current.database
        if existing.is_file() and file_sha256(existing) == current.database_sha256:
            if strict:
                _refuse_quarantine(existing, "already_ready")
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

    run.enter("free_space")
    free = shutil.disk_usage(root).free
    if free < base["required_free_bytes"]:
        raise SetupError(
            "INSUFFICIENT_SPACE",
            "not enough free space in the data directory",
            stage="free_space",
            details={"free_bytes": free, "required_free_bytes": base["required_free_bytes"]},
        )

    reuse = _reusable(root, inventory)
    build_info: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None
    self_check: dict[str, Any] | None = None
    doctor_report: dict[str, Any] | None = None
    if reuse is not None:
        status: SetupStatus = "reused"
        final_path, database_sha = reuse
        if strict:
            _refuse_quarantine(final_path, "reuse")
        relative = final_path.relative_to(root).as_posix()
    else:
        status = "activated"
        run.enter("build")
        built = staging / "build.sqlite"
        paused = False

        def relay(event: ProgressEvent) -> None:
            nonlocal paused
            if progress is not None:
                progress(event)
            if event.phase == "parse" and not paused:
                paused = True
                _pause("build")

        try:
            build_report = build_database(
                package, built, release=inventory.release_id, progress=relay, strict=strict
            )
        except BuildError as exc:
            raise SetupError(
                "BUILD_FAILED",
                "the package could not be built",
                stage="build",
                details={"issues": sorted({issue.code for issue in exc.issues})},
            ) from None
        build_info = build_report.to_dict()
        build_info.pop("output", None)
        build_info.pop("validation", None)  # reported once, under "validation"

        run.enter("reinventory")
        # The manifest covers every member's bytes, so it proves a ZIP unchanged as well as
        # a directory; the archive's own bytes (timestamps, order) do not matter.
        again = _inventory(package, inventory.release_id, "reinventory")
        if (
            again.manifest_sha256 != inventory.manifest_sha256
            or build_report.source_manifest_sha256 != inventory.manifest_sha256
        ):
            raise SetupError(
                "SOURCE_CHANGED", "the source package changed during setup", stage="reinventory"
            )

        run.enter("validate")
        # build_database validated these very bytes before publishing them into staging (it
        # never publishes a file that fails), so its report stands; validating again would
        # cost as much as the build's own validation.
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
        _pause("validated")

        run.enter("self_check")
        self_check = _self_check(built, inventory)

        if doctor is not None:
            run.enter("doctor")
            doctor_report = _run_doctor(doctor, built)

        run.enter("promote")
        database_sha = file_sha256(built)
        relative = content_addressed_path(
            inventory.release_id, inventory.manifest_sha256, database_sha
        )
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
        _pause("promoted")

    run.enter("switch")
    pointer = CurrentPointer(
        database=relative,
        release=inventory.release_id,
        source_sha256=inventory.manifest_sha256,
        database_sha256=database_sha,
        schema_version=SCHEMA_VERSION,
    )
    _pause("before_switch")
    try:
        write_current_pointer(root, pointer)
    except (OSError, PMGSQueryError):
        raise SetupError(
            "POINTER_FAILED", "state/current.json could not be replaced", stage="switch"
        ) from None

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
        self_check=self_check,
        doctor=doctor_report,
        **base,
    )
    with suppress(OSError):
        report.run_report = run.write_report({"record_type": "setup_run", **report.to_dict()})
    return report
