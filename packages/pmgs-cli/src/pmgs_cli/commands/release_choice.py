"""Naming an installed release on the command line: ``current``, a release id, or a file.

``pmgs check --release`` and ``pmgs diff FROM TO`` compare releases kept side by side under
``data/releases/<release>/<source-sha256>/<database-sha256>.sqlite``. A release id that
matches no database, or several (two builds of one release), is an error that lists what is
installed; the choice is never guessed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from pmgs_cli.common import CliFailure, Options

__all__ = ["open_release"]

_RELEASE_ID: Final = re.compile(r"JPPM[0-9]{1,16}")


def _installed(root: Path, release: str) -> list[Path]:
    return sorted((root / "data" / "releases" / release).glob("*/*.sqlite"))


def _hint(naming: str) -> str:
    """Where the release was named (``--release`` for check, FROM and TO for diff): the
    hint must name an option the command has."""
    return (
        "`pmgs release` lists the installed releases; name one with "
        f"{naming} as 'current', its release id or a database file."
    )


def open_release(options: Options, value: str, *, naming: str) -> Any:
    """An open :class:`pmgs_core.PMGSStore` for ``value`` (the caller closes it);
    ``naming`` says where the command took the value, for the hint of a wrong one."""
    from pmgs_core import PMGSStore, default_data_dir

    if value == "current":
        return options.open_store()
    candidate = Path(value)
    if candidate.suffix == ".sqlite" or candidate.is_file():
        return PMGSStore.open(candidate)
    if not _RELEASE_ID.fullmatch(value):
        raise CliFailure(
            "RELEASE_NOT_FOUND",
            "name a release as 'current', a release id (JPPM2026002) or a database file",
            hint=_hint(naming),
        )
    if options.db is not None:  # an explicit file holds one release: it must be this one
        store = options.open_store()
        if store.release_info()["release_id"] == value:
            return store
        store.close()
    root = options.data_dir or default_data_dir()
    found = _installed(root, value)
    if len(found) == 1:
        return PMGSStore.open(found[0])
    base = root / "data" / "releases"
    available = sorted(p.name for p in base.iterdir()) if base.is_dir() else []
    reason = "is not installed" if not found else f"has {len(found)} databases; pass one file"
    raise CliFailure(
        "RELEASE_NOT_FOUND",
        f"release {value} {reason} in the data directory",
        details={"available": available},
        hint=_hint(naming),
    )
