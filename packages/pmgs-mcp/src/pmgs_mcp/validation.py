"""Checking tool arguments against the tools' own input schemas, with messages an agent can act on.

The low-level server hands arguments over unchecked. Our schemas use a small fixed part of
JSON Schema, so a short checker keeps ``jsonschema`` (a third of a second to import) off the
stdio start-up path; tests compare the two on every tool. It also fills in defaults, ready
to pass to the store by keyword (ADRs 0010, 0021).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["ArgumentError", "ArgumentProblem", "check_arguments"]

_MAX_SHOWN: Final = 60
"""Longest rendering of a rejected value in a message; arguments can be long strings."""


ArgumentProblem = Literal["value", "missing", "unknown", "not_an_object"]
"""What is wrong: a given value, a missing or an unknown argument, or arguments not an object.

Only a bad *value* has a store counterpart with its own code (``INVALID_LIMIT`` …); the
other problems concern the shape of the call and stay ``INVALID_ARGUMENT``."""


class ArgumentError(ValueError):
    """Arguments that do not satisfy a tool's input schema; the message names the argument."""

    def __init__(
        self, message: str, argument: str | None = None, problem: ArgumentProblem = "value"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.argument = argument
        self.problem: ArgumentProblem = problem


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


_JSON_TYPES: Final[tuple[tuple[type, str], ...]] = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def _json_type(value: object) -> str:
    """The JSON type name of a decoded JSON value (``bool`` is not a number in JSON)."""
    for python_type, name in _JSON_TYPES:  # bool before int: True is an int in Python
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def _matches_type(value: object, expected: str) -> bool:
    actual = _json_type(value)
    if expected == "integer":
        # JSON Schema counts 3.0 as an integer: only the mathematical value matters.
        return actual == "integer" or (
            actual == "number" and math.isfinite(value) and float(value).is_integer()  # type: ignore[arg-type]
        )
    if expected == "number":
        return actual in ("integer", "number")
    return actual == expected


def _check_value(schema: Mapping[str, Any], value: Any, where: str) -> Any:
    """Check one value; return it normalised (integral floats as int, lists checked item-wise)."""
    expected = schema.get("type")
    if expected is not None:
        allowed = [expected] if isinstance(expected, str) else list(expected)
        chosen = next((t for t in allowed if _matches_type(value, t)), None)
        if chosen is None:
            wanted = " or ".join("null" if t == "null" else t for t in allowed)
            raise ArgumentError(
                f"{where} must be {wanted}, not {_json_type(value)} {_show(value)}", where
            )
        if chosen == "integer" and isinstance(value, float):
            value = int(value)
        if chosen == "null":
            return None

    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(_show(v) for v in schema["enum"])
        raise ArgumentError(f"{where} must be one of {choices}; got {_show(value)}", where)

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        minimum = schema.get("minimum")
        maximum = schema.get("maximum")
        if minimum is not None and value < minimum:
            raise ArgumentError(f"{where} must be at least {minimum}; got {_show(value)}", where)
        if maximum is not None and value > maximum:
            raise ArgumentError(f"{where} must be at most {maximum}; got {_show(value)}", where)

    if isinstance(value, str):
        min_length = schema.get("minLength")
        max_length = schema.get("maxLength")
        if min_length is not None and len(value) < min_length:
            raise ArgumentError(
                f"{where} must have at least {min_length} character(s); got {_show(value)}", where
            )
        if max_length is not None and len(value) > max_length:
            raise ArgumentError(
                f"{where} must have at most {max_length} characters; got {len(value)}", where
            )
        pattern = schema.get("pattern")
        if pattern is not None and re.search(pattern, value) is None:
            raise ArgumentError(f"{where} has an invalid form: {_show(value)}", where)

    if isinstance(value, list):
        min_items = schema.get("minItems")
        max_items = schema.get("maxItems")
        if min_items is not None and len(value) < min_items:
            raise ArgumentError(f"{where} must have at least {min_items} item(s)", where)
        if max_items is not None and len(value) > max_items:
            raise ArgumentError(f"{where} must have at most {max_items} items", where)
        item_schema = schema.get("items")
        if item_schema is not None:
            value = [_check_value(item_schema, v, f"{where}[{i}]") for i, v in enumerate(value)]
        if schema.get("uniqueItems") and _has_duplicates(value):
            raise ArgumentError(f"{where} must not repeat an item", where)

    if isinstance(value, dict) and ("properties" in schema or "required" in schema):
        value = _check_object(schema, value, where)
    return value


def _has_duplicates(items: list[Any]) -> bool:
    seen: list[Any] = []
    for item in items:
        # JSON equality: 1 and True are different values, unlike in Python.
        key = (_json_type(item), item)
        if key in seen:
            return True
        seen.append(key)
    return False


def _check_object(
    schema: Mapping[str, Any], value: Mapping[str, Any], where: str
) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    prefix = "" if where == "arguments" else f"{where}."
    for name in schema.get("required", ()):
        if name not in value:
            raise ArgumentError(
                f"missing required argument {prefix}{name!s}", f"{prefix}{name}", "missing"
            )
    if schema.get("additionalProperties") is False:
        unknown = sorted(k for k in value if k not in properties)
        if unknown:
            accepted = ", ".join(sorted(properties)) or "none"
            raise ArgumentError(
                f"unknown argument(s) {', '.join(prefix + k for k in unknown)}; "
                f"accepted: {accepted}",
                prefix + unknown[0],
                "unknown",
            )
    checked: dict[str, Any] = {}
    for name, sub in properties.items():
        if name in value:
            checked[name] = _check_value(sub, value[name], f"{prefix}{name}")
        elif "default" in sub:
            checked[name] = sub["default"]
    for name, item in value.items():  # only reachable when extra properties are allowed
        checked.setdefault(name, item)
    return checked


def check_arguments(
    schema: Mapping[str, Any], arguments: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Check ``arguments`` against an object ``schema``; return them with defaults filled in.

    Raises:
        ArgumentError: the first violation found, phrased for the caller (argument name,
            what was expected, what was given).
    """
    value: Mapping[str, Any] = {} if arguments is None else arguments
    if not isinstance(value, Mapping):
        raise ArgumentError(
            f"arguments must be an object, not {_json_type(value)}", problem="not_an_object"
        )
    return _check_object(schema, value, "arguments")
