"""``build_database``: from a PMGS package (directory or ZIP) to a finished reference database.

The steps (ADR 0003): inventory → parse every data group in phase order into a temporary
SQLite file beside the output (one transaction, batched inserts, no journal) → reference-only
concepts and release checks → indexes → search indexes → ``ANALYZE`` → foreign-key check →
row counts and logical digest → validation (``validate_database``) → publish. A database is
published only whole: any error, a failed validation (``VALIDATION_FAILED``) or an interrupt
removes the temporary file and leaves whatever was at ``output`` untouched, and an existing
output is never overwritten.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pmgs_build.build_issues import (
    DEFAULT_ERROR_BUDGET,
    BuildError,
    BuildIssue,
    IssueCode,
    IssueLog,
    Quarantined,
)
from pmgs_build.database.counts import encode_build_counts, recorded_metadata
from pmgs_build.database.digest import metadata_rows
from pmgs_build.database.insert_process import WriteProcess, open_for_load
from pmgs_build.database.inserts import ConceptRegistry, Loader
from pmgs_build.database.output_errors import write_failure
from pmgs_build.database.report import BuildReport, GroupCount
from pmgs_build.database.snapshot_workers import SnapshotWorkers
from pmgs_build.source.container import PackageReader, ZipLimits, open_package
from pmgs_build.source.files import FileStatus, ProgressEvent
from pmgs_build.source.inventory import CSV_GROUPS, Inventory, inventory_of
from pmgs_build.source.parsers import ADAPTERS, BuildContext, check_ipc_validity
from pmgs_build.source.parsers.ipc_definition import DEFAULT_PDF_TIMEOUT, available_cores
from pmgs_build.validate import validate_database
from pmgs_core import SCHEMA_VERSION, distribution_version
from pmgs_core.building import TABLES, create_indexes, create_schema, rebuild_search_indexes

__all__ = ["BuildReport", "GroupCount", "build_database", "quarantine_budget_of", "spare_core"]

logger = logging.getLogger("pmgs_build")


def quarantine_budget_of(strict: bool, budget: float | None) -> float:
    """The share a build may quarantine per group; raises ``ValueError`` for a budget given
    with ``strict`` (they conflict) or outside 0-1."""
    if budget is None:
        return DEFAULT_ERROR_BUDGET
    if strict:
        raise ValueError(
            "strict and quarantine_budget conflict: strict refuses every record that would be "
            "quarantined, a budget says how many may be; give one of them"
        )
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"quarantine_budget {budget!r} is not a share between 0 and 1")
    return budget


def _fail(code: str, message: str) -> BuildError:
    return BuildError([BuildIssue("error", code, message)])


def _builder_version() -> str:
    return distribution_version("pmgs-build")


def _check_output(output: Path, source: Path) -> None:
    if output.exists() or output.is_symlink():
        raise _fail(IssueCode.OUTPUT_EXISTS, f"{output.name} exists; it is never overwritten")
    if not output.parent.is_dir():
        raise _fail(IssueCode.OUTPUT_DIRECTORY_MISSING, "the output directory does not exist")
    if output.is_relative_to(source) or output.parent.resolve().is_relative_to(source.resolve()):
        raise _fail(
            IssueCode.OUTPUT_INSIDE_SOURCE, "the output must not be inside the source package"
        )


def _publish(temporary: Path, output: Path) -> None:
    """Move the finished file into place without ever replacing an existing output."""
    try:
        os.link(temporary, output)
    except FileExistsError:
        raise _fail(
            IssueCode.OUTPUT_EXISTS, f"{output.name} appeared during the build; not replaced"
        ) from None
    except OSError:
        # No hard links on this file system: replace() after a last check is the best left.
        if output.exists():
            raise _fail(
                IssueCode.OUTPUT_EXISTS, f"{output.name} appeared during the build; not replaced"
            ) from None
        os.replace(temporary, output)
        return
    temporary.unlink()


class _Build:
    """One run of the pipeline on an open temporary database."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        inventory: Inventory,
        progress: Callable[[ProgressEvent], None] | None,
        package: PackageReader | None = None,
        *,
        strict: bool = False,
        quarantine_budget: float = DEFAULT_ERROR_BUDGET,
        pdf_timeout: float | None = None,
        parallel: bool = False,
        writer: WriteProcess | None = None,
    ) -> None:
        self.conn = conn
        self.parallel = parallel
        self.inventory = inventory
        self.progress = progress
        self.log = IssueLog(strict=strict, quarantine_budget=quarantine_budget)
        self.loader = Loader(conn, writer=writer)
        self.registry = ConceptRegistry(self.loader)
        self.ctx = BuildContext(
            self.loader,
            self.registry,
            self.log,
            inventory.reference_date,
            progress,
            package,
            pdf_timeout=pdf_timeout,
        )
        self.results: dict[int, tuple[FileStatus, int, int]] = {}
        self.phase_seconds: dict[str, float] = {}

    def _emit(self, phase: str, done: int, total: int | None, unit: str, message: str = "") -> None:
        if self.progress is not None:
            self.progress(ProgressEvent(phase, None, done, total, unit, message))

    def _timed(self, phase: str, started: float) -> None:
        self.phase_seconds[phase] = self.phase_seconds.get(phase, 0.0) + (
            time.perf_counter() - started
        )

    def parse(self) -> None:
        """Run every adapter over its files, stopping after the first group with errors."""
        started = time.perf_counter()
        inventory = self.inventory
        present = {f.data_group for f in inventory.files}
        for group in CSV_GROUPS:
            if group not in present:
                self.log.warning(IssueCode.DATA_GROUP_MISSING, f"no file of data group {group}")
        copyright_files = inventory.files_of("COPYRGHT")
        if not copyright_files:
            self.log.error(IssueCode.COPYRGHT_MISSING, "the package has no COPYRGHT file")
        elif len(copyright_files) > 1:
            self.log.error(
                IssueCode.COPYRGHT_MULTIPLE,
                f"{len(copyright_files)} COPYRGHT files: "
                + ", ".join(f.path for f in copyright_files),
            )
        self.log.raise_if_errors()
        for group, adapter in ADAPTERS.items():
            files = [f for f in inventory.files_of(group) if f.parser == adapter.name]
            self.ctx.group = group
            self.log.group = group
            group_records = 0
            results = (
                adapter.parse_group(self.ctx, files)
                if adapter.parse_group is not None
                else ((source, adapter.parse(self.ctx, source)) for source in files)
            )
            for done, (source, result) in enumerate(results, start=1):
                logger.debug("parsed %s", source.path)
                failed = self.log.error_count_of(source.path) > 0
                self.results[source.id] = (
                    "failed" if failed else "parsed",
                    result.records,
                    result.skipped,
                )
                group_records += result.records
                if self.progress is not None:
                    self.progress(
                        ProgressEvent("parse", group, done, len(files), "files", source.path)
                    )
            self.loader.flush(wait=False)  # the same statement order; the writer catches up
            self.log.raise_if_errors()
            self.log.check_budget(group, group_records)
        self.ctx.forget_codes()
        self._timed("parse", started)

    def finalize(self) -> None:
        """Release checks, reference-only concepts, provenance rows and metadata."""
        started = time.perf_counter()
        self._emit("finalize", 0, 1, "steps")
        check_ipc_validity(self.ctx)
        self.log.raise_if_errors()
        self.registry.finish()
        inventory = self.inventory
        attribution = self.ctx.state.attribution
        if attribution is None:  # parse() guarantees one COPYRGHT file, which set it or failed
            raise _fail(IssueCode.COPYRGHT_MISSING, "no attribution line was read")
        for source in inventory.files:
            status, records, _skipped = self.results.get(source.id, ("retained", 0, 0))
            self.loader.add(
                "source_file",
                (
                    source.id,
                    source.path,
                    source.bytes,
                    source.sha256,
                    source.data_group,
                    source.parser,
                    status,
                    records,
                ),
            )
        ids = {f.path: f.id for f in inventory.files}
        self._write_quarantine(ids)
        for issue in (*inventory.warnings, *self.log.warnings()):
            self.loader.add(
                "build_issue",
                (
                    issue.severity,
                    issue.code,
                    issue.message,
                    ids.get(issue.source_path) if issue.source_path else None,
                    issue.locator,
                ),
            )
        self.loader.flush()
        self.loader.execute(
            "INSERT INTO release (release_id, reference_date, source_manifest_sha256, "
            "attribution) VALUES (?, ?, ?, ?)",
            (
                inventory.release_id,
                inventory.reference_date,
                inventory.manifest_sha256,
                attribution,
            ),
        )
        self.loader.executemany(
            "INSERT INTO metadata (key, value) VALUES (?, ?)",
            [
                ("schema_version", str(SCHEMA_VERSION)),
                ("release_id", inventory.release_id),
                ("reference_date", inventory.reference_date),
                ("source_manifest_sha256", inventory.manifest_sha256),
                ("builder_version", _builder_version()),
            ],
        )
        self._timed("finalize", started)

    def _write_quarantine(self, ids: dict[str, int]) -> None:
        """The ``quarantine`` rows, and one ``quarantine`` document per data group whose
        segments hold the raw text, so that it stays findable with its source."""
        documents: dict[str, int] = {}
        sequence: dict[str, int] = {}
        for entry in self.log.quarantined:
            source_id = ids.get(entry.source_path) if entry.source_path else None
            self.loader.add(
                "quarantine",
                (entry.data_group, entry.code, entry.message, entry.raw, source_id, entry.locator),
            )
            if source_id is None:
                continue
            group = entry.data_group
            document_id = documents.get(group)
            if document_id is None:
                document_id = self.loader.new_id("document")
                documents[group] = document_id
                self.loader.add(
                    "document",
                    (
                        document_id,
                        f"quarantine:{group}",
                        "quarantine",
                        None,
                        f"Quarantined records of {group} (not answered as classifications)",
                        source_id,
                        entry.locator,
                    ),
                )
            number = sequence.get(group, 0) + 1
            sequence[group] = number
            self.loader.add(
                "document_text",
                (
                    document_id,
                    number,
                    None,
                    entry.code,
                    "quarantine",
                    _quarantine_body(entry),
                    source_id,
                    entry.locator,
                ),
            )

    def quarantined(self) -> dict[str, int]:
        """Quarantined records per data group."""
        counts: dict[str, int] = {}
        for entry in self.log.quarantined:
            counts[entry.data_group] = counts.get(entry.data_group, 0) + 1
        return dict(sorted(counts.items()))

    def index(self, temporary: Path) -> str:
        """Indexes, search indexes, statistics, checks; returns the logical digest.

        With ``parallel``, bigrams and the digest come from worker processes reading a copy
        of the file as it is now (ADR 0028); the statements run here are the same.
        """
        conn = self.conn
        started = time.perf_counter()
        self._emit("index", 0, 1, "steps")
        written = recorded_metadata(conn, self.build_counts())  # final now; inserted below
        workers = SnapshotWorkers(
            temporary, [*metadata_rows(conn), *written], parallel=self.parallel
        )
        self._timed("index", started)
        try:
            for phase, step in (
                ("index", partial(_indexes_then, workers.start)),
                ("search_index", partial(rebuild_search_indexes, bigrams=workers.bigrams)),
                ("analyze", lambda c: c.execute("ANALYZE")),
            ):
                started = time.perf_counter()
                if phase != "index":
                    self._emit(phase, 0, 1, "steps")
                step(conn)
                self._timed(phase, started)
            violations = conn.execute("PRAGMA foreign_key_check").fetchall()
            if violations:
                raise _fail(
                    IssueCode.DATABASE_CHECK_FAILED,
                    f"{len(violations)} foreign key violations, first: {violations[0]}",
                )
            # before the digest, which covers it
            conn.executemany("INSERT INTO metadata (key, value) VALUES (?, ?)", written)
            started = time.perf_counter()
            self._emit("digest", 0, 1, "steps")
            digest = workers.digest(conn)
        finally:
            workers.close()
        conn.execute("INSERT INTO metadata (key, value) VALUES ('logical_digest', ?)", (digest,))
        self._timed("digest", started)
        return digest

    def group_counts(self) -> dict[str, GroupCount]:
        """Files, bytes, records and skipped records per data group."""
        counts: dict[str, GroupCount] = {}
        for source in self.inventory.files:
            _status, records, skipped = self.results.get(source.id, ("retained", 0, 0))
            old = counts.get(source.data_group, GroupCount())
            counts[source.data_group] = GroupCount(
                old.files + 1,
                old.bytes + source.bytes,
                old.records + records,
                old.skipped + skipped,
            )
        return dict(sorted(counts.items()))

    def build_counts(self) -> str:
        """What was written (``metadata.build_counts``), for ``validate_database``.

        The figures come from the loader and the adapters, not from SQLite, so validation
        compares what the builder meant to write with what the file holds.
        """
        loader = self.loader
        loader.flush()
        tables = {**loader.rows_written, "release": 1}
        records = {
            source.id: self.results.get(source.id, ("retained", 0, 0))[1]
            for source in self.inventory.files
        }
        rows = {
            table: {key: count for key, count in counter.items() if key is not None}
            for table, counter in loader.rows_by_source.items()
        }
        groups = {group: count.to_dict() for group, count in self.group_counts().items()}
        return encode_build_counts(tables, groups, records, rows)


def spare_core(load: float | None = None, cores: int | None = None) -> bool:
    """True when a core is idle for the build's child processes (ADR 0039): at least two
    usable cores and a last-minute load average of at most ``cores - 1``, one core's worth
    of time unused, which the children then fill instead of taking the builder's time.
    ``load`` and ``cores`` default to this machine's (``os.getloadavg``, the affinity);
    without a load average (Windows) the answer is False."""
    if cores is None:
        cores = available_cores()
    if load is None:
        if not hasattr(os, "getloadavg"):
            return False
        load = os.getloadavg()[0]
    return cores >= 2 and load <= cores - 1


def _indexes_then(then: Callable[[], None], conn: sqlite3.Connection) -> None:
    """The secondary indexes, then ``then`` (the bigram worker starts after this peak)."""
    create_indexes(conn)
    then()


def _remove_stale_temporaries(output: Path) -> None:
    """Remove the temporary files that killed builds of the same output left behind.

    A build removes its own ``.OUT.tmp-PID`` on any exception, but SIGKILL (or a power cut)
    gives it no chance; the next build of that output clears the files of processes that no
    longer run. Only on POSIX, where signal 0 probes a process without touching it; a pid
    that was reused keeps its file, which is the safe side.
    """
    if os.name != "posix":
        return
    for stale in output.parent.glob(f".{output.name}.tmp-*"):
        pid_text = stale.name.rsplit("-", 1)[-1]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            stale.unlink(missing_ok=True)
        except (PermissionError, OverflowError):
            continue  # alive under another user, or no such pid at all: leave it


def _quarantine_body(entry: Quarantined) -> str:
    """What a search finds of a quarantined record: its raw text, else why it has none."""
    if entry.raw:
        return entry.raw
    return f"({entry.code}: {entry.message})"


def _validate(temporary: Path, build: _Build) -> dict[str, Any]:
    """Run every check of ``validate_database`` on the closed temporary file; raise on failure.

    Returns the report (JSON form), which the build report carries so that setup need not
    validate the same bytes a second time.
    """
    started = time.perf_counter()
    build._emit("validate", 0, 1, "steps")
    report = validate_database(temporary, writable=True)
    build._timed("validate", started)
    if not report.ok:
        failed = [check for check in report.checks if not check.ok]
        raise _fail(
            IssueCode.VALIDATION_FAILED,
            f"the database failed {len(failed)} validation check(s): "
            + "; ".join(f"{c.name} ({c.figure}: {c.detail})" for c in failed),
        )
    return report.to_dict()


def _warning_counts(conn: sqlite3.Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT code, COUNT(*) FROM build_issue WHERE severity = 'warning' "
        "GROUP BY code ORDER BY code"
    ).fetchall()
    return {str(code): int(count) for code, count in rows}


def build_database(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    release: str | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
    zip_limits: ZipLimits | None = None,
    strict: bool = False,
    quarantine_budget: float | None = None,
    pdf_timeout: float | None = DEFAULT_PDF_TIMEOUT,
    parallel: bool | None = None,
) -> BuildReport:
    """Build the reference database of the package at ``source`` into the new file ``output``.

    ``source`` is the release directory or the ZIP as downloaded, read in place through one
    open archive that is closed when the build ends (``zip_limits`` overrides its bounds).

    ``release`` overrides the release id taken from the directory name (``JPPM`` + digits).
    ``progress`` receives :class:`ProgressEvent`\\ s. Records that cannot be read with
    certainty are quarantined (``BuildReport.quarantined``) unless ``strict``, which makes
    each of them an error; a data group whose quarantined share exceeds ``quarantine_budget``
    (0-1, default :data:`DEFAULT_ERROR_BUDGET`; 1 never refuses a group) stops the build with
    ``FORMAT_NOT_RECOGNISED``. ``strict`` with a ``quarantine_budget`` is a ``ValueError``:
    one refuses every quarantined record, the other says how many may be kept.
    ``pdf_timeout`` is the seconds one definition PDF may take in a text worker before it is
    killed (``PDF_TIMEOUT``; None: no limit). ``parallel=True`` runs the inserts, half the
    bigrams and the digest in child processes (ADR 0028), ``False`` all in this one; None
    (the default) chooses True only when a core is idle (:func:`spare_core`). The file is
    the same bytes either way. Raises
    :class:`BuildError` (with every error issue found) when the package cannot be trusted
    or ``output`` exists; then no file is left behind.
    """
    budget = quarantine_budget_of(strict, quarantine_budget)
    if parallel is None:
        parallel = spare_core()
    started = time.perf_counter()
    output_path = Path(os.path.abspath(output))
    source_path = Path(os.path.abspath(source))
    _check_output(output_path, source_path)
    inventory_started = time.perf_counter()
    package = open_package(source_path, zip_limits=zip_limits)
    try:
        inventory = inventory_of(package, release=release, progress=progress)
    except BaseException:
        package.close()
        raise
    inventory_seconds = time.perf_counter() - inventory_started
    _remove_stale_temporaries(output_path)
    temporary = output_path.with_name(f".{output_path.name}.tmp-{os.getpid()}")
    temporary.unlink(missing_ok=True)
    try:
        conn = open_for_load(temporary)
        writer: WriteProcess | None = None
        try:
            create_schema(conn)
            if parallel:
                writer = WriteProcess.start(temporary)
            build = _Build(
                conn,
                inventory,
                progress,
                package,
                strict=strict,
                quarantine_budget=budget,
                pdf_timeout=pdf_timeout,
                parallel=parallel,
                writer=writer,
            )
            build.phase_seconds["inventory"] = inventory_seconds
            build.loader.execute("BEGIN")
            build.parse()
            build.finalize()
            build.loader.execute("COMMIT")
            build.loader.flush()
            if writer is not None:
                writer.close()
                writer = build.loader.writer = None
            digest = build.index(temporary)
            table_counts = {
                table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])  # noqa: S608
                for table in TABLES
            }
            warnings = _warning_counts(conn)
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            if writer is not None:
                writer.close(kill=True)
            conn.close()
        validation = _validate(temporary, build)
        database_bytes = temporary.stat().st_size
        _publish(temporary, output_path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        failure = write_failure(error)
        if failure is not None:
            raise failure from error
        raise
    finally:
        package.close()
    seconds = time.perf_counter() - started
    report = BuildReport(
        release=inventory.release_id,
        reference_date=inventory.reference_date,
        source_manifest_sha256=inventory.manifest_sha256,
        logical_digest=digest,
        seconds=seconds,
        output=str(output_path),
        database_bytes=database_bytes,
        table_counts=table_counts,
        group_counts=build.group_counts(),
        warnings=warnings,
        reference_only_concepts=build.registry.reference_only_count,
        builder_version=_builder_version(),
        phase_seconds=build.phase_seconds,
        validation=validation,
        quarantined=build.quarantined(),
        release_path=inventory.release_path,
        ignored=inventory.ignored,
        member_names=inventory.member_names,
    )
    if progress is not None:
        progress(ProgressEvent("done", None, 1, 1, "steps"))
    logger.info(
        "built %s (%s) in %.1f s: %d warnings, %d quarantined",
        inventory.release_id,
        output_path.name,
        seconds,
        report.warning_count,
        report.quarantine_count,
    )
    return report
