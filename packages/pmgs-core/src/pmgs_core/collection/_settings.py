"""The collection's settings (``GET/POST /settings``; ADR 0026): folders to watch, each with
the category its files get, and the search defaults a client shows. One JSON file beside the
collection, replaced atomically; a bad value is refused whole with ``INVALID_SETTINGS`` and
the file is left as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final, TypedDict

from pmgs_core.collection._limits import MAX_SEARCH_LIMIT, check_category
from pmgs_core.datadir import write_atomically
from pmgs_core.errors import PMGSQueryError

__all__ = [
    "SETTINGS_FILE",
    "CollectionSettings",
    "MonitorPath",
    "check_settings",
    "read_settings",
    "write_settings",
]

SETTINGS_FILE: Final = "settings.json"
"""The settings file's name, in the collection file's directory."""
MAX_MONITOR_PATHS: Final = 32


class MonitorPath(TypedDict):
    path: str
    category: str | None


class CollectionSettings(TypedDict):
    monitor_paths: list[MonitorPath]
    min_score: float
    limit: int
    run_on_login: bool
    """Accepted for clients of the specification; pmgs is not started at login."""


DEFAULTS: Final[CollectionSettings] = {
    "monitor_paths": [],
    "min_score": 0.3,
    "limit": 5,
    "run_on_login": False,
}


def _bad(message: str, field: str) -> PMGSQueryError:
    return PMGSQueryError(
        "INVALID_SETTINGS",
        message,
        {"argument": field, "hint": "monitor_paths: [{path, category}], min_score 0-1, limit"},
    )


def _monitor_path(entry: object, n: int) -> MonitorPath:
    if isinstance(entry, str):
        entry = {"path": entry}
    if not isinstance(entry, dict) or set(entry) - {"path", "category"}:
        raise _bad(f"monitor_paths[{n}] must be {{path, category}}", "monitor_paths")
    raw = entry.get("path")
    if not isinstance(raw, str) or not raw or "\x00" in raw or not os.path.isabs(raw):
        raise _bad(f"monitor_paths[{n}].path must be an absolute path", "monitor_paths")
    folder = Path(raw)
    if folder.is_symlink() or not folder.is_dir():
        raise _bad(f"monitor_paths[{n}].path is not a directory (or is a link)", "monitor_paths")
    try:
        category = check_category(entry.get("category"))
    except PMGSQueryError as exc:
        raise _bad(f"monitor_paths[{n}].category: {exc.message}", "monitor_paths") from exc
    return {"path": str(folder), "category": category}


def check_settings(values: object, current: CollectionSettings | None = None) -> CollectionSettings:
    """``values`` merged over ``current`` (keys not given keep theirs), or ``INVALID_SETTINGS``."""
    if not isinstance(values, dict):
        raise _bad("settings must be a JSON object", "settings")
    unknown = sorted(set(values) - set(DEFAULTS))
    if unknown:
        raise _bad(f"unknown settings: {', '.join(unknown)}", unknown[0])
    merged: dict[str, Any] = {**(current or DEFAULTS), **values}
    paths = merged["monitor_paths"]
    if not isinstance(paths, list) or len(paths) > MAX_MONITOR_PATHS:
        raise _bad(f"monitor_paths must be a list of at most {MAX_MONITOR_PATHS}", "monitor_paths")
    checked = [_monitor_path(entry, n) for n, entry in enumerate(paths)]
    if len({p["path"] for p in checked}) != len(checked):
        raise _bad("monitor_paths holds a folder twice", "monitor_paths")
    score = merged["min_score"]
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise _bad("min_score must be a number from 0 to 1", "min_score")
    limit = merged["limit"]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise _bad(f"limit must be an integer from 1 to {MAX_SEARCH_LIMIT}", "limit")
    if not isinstance(merged["run_on_login"], bool):
        raise _bad("run_on_login must be true or false", "run_on_login")
    return {
        "monitor_paths": checked,
        "min_score": float(score),
        "limit": limit,
        "run_on_login": merged["run_on_login"],
    }


def read_settings(collection_path: Path) -> CollectionSettings:
    """The stored settings, or the defaults when there is no file yet."""
    target = collection_path.parent / SETTINGS_FILE
    try:
        stored = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return dict(DEFAULTS)  # type: ignore[return-value]
    except (OSError, ValueError) as exc:
        raise PMGSQueryError("INVALID_SETTINGS", "the settings file cannot be read") from exc
    # Folders may have gone since they were saved: keep the entry, the watcher reports it.
    result: CollectionSettings = {**DEFAULTS, **stored}
    return result


def write_settings(collection_path: Path, values: object) -> CollectionSettings:
    """Check ``values`` over the stored settings and replace the file atomically."""
    settings = check_settings(values, read_settings(collection_path))
    payload = json.dumps(settings, ensure_ascii=False, indent=2) + "\n"
    write_atomically(collection_path.parent / SETTINGS_FILE, payload.encode("utf-8"))
    return settings
