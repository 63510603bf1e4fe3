"""What a setup reports: its stages, its :class:`SetupError` and its :class:`SetupReport`.

Kept apart from the transaction so that the CLI and tests that only read a report need not
know how the stages run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from pmgs_build._report_json import report_fields
from pmgs_core import SCHEMA_VERSION

__all__ = [
    "SETUP_STAGES",
    "ErrorStage",
    "SetupError",
    "SetupReport",
    "SetupStage",
    "SetupStatus",
]

SetupStage = Literal[
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
]
"""A stage of a setup: a misspelt one is a type error."""

SETUP_STAGES: Final[tuple[SetupStage, ...]] = get_args(SetupStage)
"""The stages of a setup, in order."""

ErrorStage = SetupStage | Literal["already_ready", "reuse"]
"""The ``stage`` of a :class:`SetupError`: where it stopped, or the check of an earlier
database (``--strict`` refusing to reuse one with quarantined records)."""

SetupStatus = Literal["activated", "reused", "already_ready", "dry_run"]


class SetupError(Exception):
    """Setup stopped; the pointer and every existing database are as they were.

    ``code`` is stable (``SETUP_LOCKED``, ``SOURCE_NOT_FOUND``, ``SOURCE_INVALID``,
    ``INSUFFICIENT_SPACE``, ``BUILD_FAILED``, ``OUTPUT_WRITE_FAILED``, ``SOURCE_CHANGED``,
    ``VALIDATION_FAILED``, ``SELF_CHECK_FAILED``, ``PROMOTE_FAILED``, ``POINTER_FAILED``),
    ``stage`` names where it stopped, ``details`` holds counts and codes only (no paths, no
    source text).
    """

    def __init__(
        self, code: str, message: str, *, stage: ErrorStage, details: dict[str, Any] | None = None
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


_REPORT_HEAD: Final = (
    "status",
    "release",
    "reference_date",
    "source_kind",
    "source_sha256",
    "source_files",
    "source_bytes",
    "release_path",
    "ignored",
    "member_names",
    "free_bytes",
    "required_free_bytes",
    "database",
    "database_sha256",
    "database_bytes",
)
_REPORT_TAIL: Final = (
    "previous",
    "stage_seconds",
    "build",
    "validation",
    "self_check",
    "doctor",
    "quarantine_count",
    "run_report",
)


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
    release_path: str = ""
    """Where the release folder lies in the source (``""``: the source is the release)."""
    ignored: tuple[str, ...] = ()
    """What the source holds besides the release, not read (folders end in ``/``)."""
    member_names: str = ""
    """How a ZIP's member names were decoded (ADR 0032); ``""`` for a directory."""
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

    @property
    def quarantine_count(self) -> int | None:
        """Records the build quarantined, or None when nothing was built."""
        return None if self.build is None else int(self.build["quarantine_count"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``pmgs setup --json``)."""
        head = report_fields(self, _REPORT_HEAD, record_type="setup_report")
        return {**head, "schema_version": SCHEMA_VERSION, **report_fields(self, _REPORT_TAIL)}
