"""The managed data directory: where the active database is, and the pointer that names it.

The pointer (``state/current.json``) is the single switch between releases, replaced
atomically by ``pmgs setup``. Readers fail closed on anything wrong in it and never fall back
to another database: an answer from the wrong release that looks right is the worst outcome
(ADRs 0003, 0013). Layout and rules: ``docs/store.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Final, Literal

from pmgs_core.errors import PMGSQueryError

__all__ = [
    "APP_NAME",
    "DATABASE_ENV_VAR",
    "LEGACY_DATABASE",
    "POINTER_FILE",
    "CurrentPointer",
    "DatabaseOrigin",
    "ResolvedDatabase",
    "check_pointer_metadata",
    "content_addressed_path",
    "default_data_dir",
    "read_current_pointer",
    "resolve_database",
    "write_atomically",
    "write_current_pointer",
]

APP_NAME: Final = "pmgs-reference"
"""The platformdirs application name of the default data directory."""

DATABASE_ENV_VAR: Final = "PMGS_REFERENCE_DB"
"""Environment variable naming a database file (third in the contract's search order)."""

POINTER_FILE: Final = "state/current.json"
"""The pointer, relative to the data directory root."""

LEGACY_DATABASE: Final = "data/current.sqlite"
"""The pre-pointer layout, read only when no pointer exists at all."""

_SHA256_RE: Final = re.compile(r"[0-9a-f]{64}")
_RELEASE_RE: Final = re.compile(r"JPPM[0-9]{1,16}")
_POINTER_KEYS: Final = frozenset(
    {"database", "release", "source_sha256", "database_sha256", "schema_version"}
)
_MAX_POINTER_BYTES: Final = 64 * 1024

DatabaseOrigin = Literal["path", "data_dir", "environment", "default_data_dir", "legacy"]


@dataclass(frozen=True, slots=True)
class CurrentPointer:
    """The content of ``state/current.json``.

    ``database`` is relative to the data directory root, ``/``-separated, and must be the
    content address :func:`content_addressed_path` gives for the other fields.
    """

    database: str
    release: str
    source_sha256: str
    database_sha256: str
    schema_version: int

    def to_json(self) -> dict[str, object]:
        """The JSON object written to ``state/current.json``."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ResolvedDatabase:
    """Which database file the search order chose, and why.

    ``pointer`` is set when the file was named by a pointer; the store must then compare it
    with the database metadata (:func:`check_pointer_metadata`) before answering anything.
    """

    path: Path
    origin: DatabaseOrigin
    root: Path | None = None
    pointer: CurrentPointer | None = None


def default_data_dir() -> Path:
    """The OS default data directory (``%LOCALAPPDATA%\\pmgs-reference``, ``~/.local/share/…``).

    platformdirs is imported here, not at module import, to keep ``import pmgs_core`` cheap.
    """
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def content_addressed_path(release: str, source_sha256: str, database_sha256: str) -> str:
    """The relative path a database of these hashes must live at, below the root."""
    return f"data/releases/{release}/{source_sha256}/{database_sha256}.sqlite"


def _invalid(reason: str) -> PMGSQueryError:
    return PMGSQueryError(
        "INVALID_POINTER",
        f"the data directory pointer {POINTER_FILE} is invalid: {reason}",
    )


def _parse_pointer(data: object) -> CurrentPointer:
    """Check the pointer's shape field by field; anything unexpected is refused."""
    if not isinstance(data, dict):
        raise _invalid("not a JSON object")
    keys = set(data)
    if keys != _POINTER_KEYS:
        missing = sorted(_POINTER_KEYS - keys)
        extra = sorted(str(key) for key in keys - _POINTER_KEYS)
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append(f"{len(extra)} unknown field(s)")
        raise _invalid("; ".join(parts))
    database, release = data["database"], data["release"]
    source_sha256, database_sha256 = data["source_sha256"], data["database_sha256"]
    schema_version = data["schema_version"]
    if not isinstance(release, str) or not _RELEASE_RE.fullmatch(release):
        raise _invalid("release is not a release id such as JPPM2026002")
    for name, value in (("source_sha256", source_sha256), ("database_sha256", database_sha256)):
        if not isinstance(value, str) or not _SHA256_RE.fullmatch(value):
            raise _invalid(f"{name} is not a lower-case hex SHA-256")
    if (
        not isinstance(schema_version, int)
        or isinstance(schema_version, bool)
        or schema_version < 1
    ):
        raise _invalid("schema_version is not a positive integer")
    if not isinstance(database, str):
        raise _invalid("database is not a string")
    pointer = CurrentPointer(
        database=database,
        release=release,
        source_sha256=source_sha256,
        database_sha256=database_sha256,
        schema_version=schema_version,
    )
    _check_relative_path(pointer)
    return pointer


def _check_relative_path(pointer: CurrentPointer) -> None:
    """Refuse a database path that could leave the root or does not match the hashes."""
    text = pointer.database
    if "\\" in text or "\x00" in text:
        raise _invalid("database path must be '/'-separated")
    relative = PurePosixPath(text)
    if relative.is_absolute() or text.startswith("/") or re.match(r"[A-Za-z]:", text):
        raise _invalid("database path must be relative to the data directory")
    if any(part in {"..", "."} for part in text.split("/")):
        raise _invalid("database path must not contain '.' or '..' components")
    expected = content_addressed_path(
        pointer.release, pointer.source_sha256, pointer.database_sha256
    )
    if text != expected:
        raise _invalid("database path is not the content address of release and hashes")


def read_current_pointer(root: Path) -> CurrentPointer | None:
    """Read and check ``state/current.json`` below ``root``; None when there is none.

    Only a missing file means "no pointer" (the legacy layout may then be used). An existing
    pointer that is unreadable, malformed or unsafe raises ``INVALID_POINTER``.
    """
    path = root / POINTER_FILE
    try:
        if not path.exists() and not path.is_symlink():
            return None
        raw = path.read_bytes()[: _MAX_POINTER_BYTES + 1]
    except OSError:
        raise _invalid("the file cannot be read") from None
    if len(raw) > _MAX_POINTER_BYTES:
        raise _invalid("the file is too large")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _invalid("not valid UTF-8 JSON") from None
    return _parse_pointer(data)


def _pointer_database_path(root: Path, pointer: CurrentPointer) -> Path:
    """The database file the pointer names, proven to lie inside the root and to exist."""
    try:
        resolved_root = root.resolve(strict=True)
        candidate = (root / pointer.database).resolve(strict=True)
    except (OSError, RuntimeError):
        raise PMGSQueryError(
            "DATABASE_NOT_FOUND",
            f"the database named by {POINTER_FILE} does not exist",
        ) from None
    if not candidate.is_relative_to(resolved_root):
        raise _invalid("database path leaves the data directory")
    if not candidate.is_file():
        raise PMGSQueryError(
            "DATABASE_NOT_FOUND", f"the database named by {POINTER_FILE} is not a file"
        )
    return candidate


def _from_root(root: Path, origin: DatabaseOrigin) -> ResolvedDatabase | None:
    pointer = read_current_pointer(root)
    if pointer is not None:
        return ResolvedDatabase(
            path=_pointer_database_path(root, pointer), origin=origin, root=root, pointer=pointer
        )
    legacy = root / LEGACY_DATABASE
    if legacy.is_file():
        return ResolvedDatabase(path=legacy, origin="legacy", root=root)
    return None


def resolve_database(
    path: str | os.PathLike[str] | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ResolvedDatabase:
    """Choose the database in the contract's order, without opening it.

    1. ``path`` (``--db``); 2. ``data_dir/state/current.json`` (``--data-dir``);
    3. ``$PMGS_REFERENCE_DB``; 4. the OS default data directory's pointer; 5. only when that
    directory has no pointer, its legacy ``data/current.sqlite``. An explicit choice that
    fails is an error; it never continues to a later step.
    """
    env = os.environ if environ is None else environ
    if path is not None:
        explicit = Path(path)
        if not explicit.is_file():
            raise PMGSQueryError("DATABASE_NOT_FOUND", "the database file given does not exist")
        return ResolvedDatabase(path=explicit, origin="path")
    if data_dir is not None:
        found = _from_root(Path(data_dir), "data_dir")
        if found is None:
            raise PMGSQueryError(
                "DATABASE_NOT_FOUND",
                f"the data directory given has no {POINTER_FILE}; run `pmgs setup` first",
            )
        return found
    env_value = env.get(DATABASE_ENV_VAR, "")
    if env_value.strip():
        env_path = Path(env_value)
        if not env_path.is_file():
            raise PMGSQueryError(
                "DATABASE_NOT_FOUND", f"the database named by {DATABASE_ENV_VAR} does not exist"
            )
        return ResolvedDatabase(path=env_path, origin="environment")
    found = _from_root(default_data_dir(), "default_data_dir")
    if found is None:
        raise PMGSQueryError(
            "DATABASE_NOT_FOUND",
            "no pmgs database is set up; run `pmgs setup SOURCE` or pass a database path",
        )
    return found


def check_pointer_metadata(pointer: CurrentPointer, metadata: Mapping[str, str]) -> None:
    """Refuse a database whose own metadata disagrees with the pointer that named it.

    ``metadata`` is the ``metadata`` table of the opened database. A mismatch means the file
    was replaced or edited behind the pointer; answering from it could give another release's
    text under this release's name.
    """
    expected = {
        "release_id": pointer.release,
        "source_manifest_sha256": pointer.source_sha256,
        "schema_version": str(pointer.schema_version),
    }
    for key, value in expected.items():
        if metadata.get(key) != value:
            raise PMGSQueryError(
                "POINTER_MISMATCH",
                f"the database does not match {POINTER_FILE} ({key} differs); "
                "run `pmgs doctor` or `pmgs setup` again",
                {"field": key},
            )


def write_current_pointer(root: Path, pointer: CurrentPointer) -> Path:
    """Replace ``state/current.json`` atomically: temp file, fsync, rename, fsync the dir.

    The pointer is validated first (the same rules readers apply) and the database it names
    must exist inside ``root``, so a setup can never activate a pointer readers would refuse.
    Readers see either the old pointer or the new one, never a partial file.
    """
    _parse_pointer(pointer.to_json())
    _pointer_database_path(root, pointer)
    target = root / POINTER_FILE
    payload = (json.dumps(pointer.to_json(), indent=2, sort_keys=True) + "\n").encode("utf-8")
    write_atomically(target, payload)
    return target


def write_atomically(target: Path, payload: bytes) -> None:
    """Replace ``target`` with ``payload``: temp file, fsync, rename, fsync the directory.

    Readers see the old file or the new one, never a partial one (the pointer, the
    collection's settings).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: it imports random, shutil and the compressors (ms of start-up)

    fd, temp_name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    if hasattr(os, "O_DIRECTORY"):  # POSIX: make the rename itself durable
        dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
