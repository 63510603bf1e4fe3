"""What a finished build reports (``pmgs build --json``, setup, benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from pmgs_build._report_json import report_fields
from pmgs_core import SCHEMA_VERSION

__all__ = ["BuildReport", "GroupCount"]


@dataclass(frozen=True, slots=True)
class GroupCount:
    """What one data group contributed: files, logical records read, records skipped."""

    files: int = 0
    bytes: int = 0
    records: int = 0
    skipped: int = 0

    def to_dict(self) -> dict[str, int]:
        """JSON-ready form."""
        return report_fields(self, ("files", "bytes", "records", "skipped"))


@dataclass(frozen=True, slots=True)
class BuildReport:
    """The outcome of a successful build, for the CLI, setup and benchmarks."""

    release: str
    reference_date: str
    source_manifest_sha256: str
    logical_digest: str
    seconds: float
    output: str
    database_bytes: int
    table_counts: dict[str, int]
    group_counts: dict[str, GroupCount]
    warnings: dict[str, int]
    reference_only_concepts: int
    builder_version: str
    schema_version: int = SCHEMA_VERSION
    phase_seconds: dict[str, float] = field(default_factory=dict)
    validation: dict[str, Any] | None = None
    """The :func:`~pmgs_build.validate_database` report of the published bytes."""
    quarantined: dict[str, int] = field(default_factory=dict)
    """Quarantined records per data group (the ``quarantine`` table; none in a strict build)."""
    release_path: str = ""
    """Where the release folder lies in the source (``""``: the source is the release)."""
    ignored: tuple[str, ...] = ()
    """What the source holds besides the release, not read (folders end in ``/``)."""
    member_names: str = ""
    """How the ZIP's member names were decoded: ``utf-8``, ``cp932``, ``cp437`` or ``ascii``
    for the names without the UTF-8 flag, and how many used backslash separators (ADR 0032);
    ``""`` for a directory."""

    @property
    def quarantine_count(self) -> int:
        """All quarantined records together."""
        return sum(self.quarantined.values())

    @property
    def warning_count(self) -> int:
        """All warnings together."""
        return sum(self.warnings.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``pmgs build --json``)."""
        return report_fields(self, _REPORT_FIELDS)


_REPORT_FIELDS: Final = (
    "release",
    "reference_date",
    "source_manifest_sha256",
    "logical_digest",
    "seconds",
    "output",
    "database_bytes",
    "schema_version",
    "builder_version",
    "table_counts",
    "group_counts",
    "warnings",
    "warning_count",
    "reference_only_concepts",
    "phase_seconds",
    "validation",
    "quarantined",
    "quarantine_count",
    "release_path",
    "ignored",
    "member_names",
)
"""The keys of :meth:`BuildReport.to_dict`, in order."""
