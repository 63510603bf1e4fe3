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
    """``value`` as JSON-ready data: floats (timings) rounded to milliseconds, mappings and
    lists copied element by element, objects with a ``to_dict`` replaced by its result."""
    if isinstance(value, float):
        return round(value, _SECONDS_DIGITS)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def report_fields(report: object, names: Iterable[str], **fixed: Any) -> dict[str, Any]:
    """The JSON form of ``report``: ``fixed`` entries first (a ``record_type``), then each
    attribute in ``names`` in that order, made :func:`plain`."""
    out: dict[str, Any] = dict(fixed)
    for name in names:
        out[name] = plain(getattr(report, name))
    return out
