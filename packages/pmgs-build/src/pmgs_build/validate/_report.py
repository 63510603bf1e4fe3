"""What a validation reports: one :class:`ValidationCheck` per check, gathered in a
:class:`ValidationReport`.

Kept apart from the checks so that callers that only read a report (setup, the CLI) do not
depend on how the checks query a database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pmgs_build._report_json import report_fields

__all__ = ["ValidationCheck", "ValidationReport"]


@dataclass(frozen=True, slots=True)
class ValidationCheck:
    """One named check: ``ok`` or not, the ``figure`` it measured, and on failure a short
    reason. Neither holds a path or text from the package."""

    name: str
    ok: bool
    detail: str = ""
    figure: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return report_fields(self, ("name", "ok", "figure", "detail", "seconds"))


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """All checks of one database; :attr:`ok` only when every check passed."""

    database: str
    checks: list[ValidationCheck] = field(default_factory=list)
    seconds: float = 0.0
    """Wall time of the whole validation (checks overlap, so not the sum of theirs)."""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return bool(self.checks) and all(check.ok for check in self.checks)

    @property
    def failed(self) -> list[str]:
        """Names of the failed checks."""
        return [check.name for check in self.checks if not check.ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``pmgs validate --json``); ``database`` is a file name only."""
        return report_fields(
            self,
            ("database", "ok", "failed", "seconds", "checks"),
            record_type="validation_report",
        )
