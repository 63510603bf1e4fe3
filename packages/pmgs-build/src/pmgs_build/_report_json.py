"""How a report object becomes the JSON the CLI prints: one rule for every report type.

Build, validation and setup reports all list some of their attributes in a fixed order,
round timings to the millisecond and nest their sub-reports; writing that out field by field
in each ``to_dict`` let the rules drift apart, so they live here once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["plain", "report_fields"]

_SECONDS_DIGITS = 3


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data.

    A float (a timing) is rounded to milliseconds; an object with a ``to_dict`` (a nested
    report) is replaced by its result; a list is copied element by element; a mapping of
    figures (counts, timings, nested reports) is copied with each made plain. Any other
    mapping is already JSON (a sub-report's ``to_dict``, the caller's doctor report) and is
    passed on as it is, untouched.
    """
    if isinstance(value, float):
        return round(value, _SECONDS_DIGITS)
    if _is_report(value):
        return value.to_dict()
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict) and all(
        isinstance(item, int | float) or _is_report(item) for item in value.values()
    ):
        return {key: plain(item) for key, item in value.items()}
    return value


def _is_report(value: Any) -> bool:
    return callable(getattr(value, "to_dict", None))


def report_fields(report: object, names: Iterable[str], **fixed: Any) -> dict[str, Any]:
    """The JSON form of ``report``: ``fixed`` entries first (a ``record_type``), then each
    attribute in ``names`` in that order, made :func:`plain`."""
    out: dict[str, Any] = dict(fixed)
    for name in names:
        out[name] = plain(getattr(report, name))
    return out
