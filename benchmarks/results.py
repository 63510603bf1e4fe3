"""Saved benchmark results: where they go, what every one records, which one is current.

Every benchmark script writes its figures as one JSON file under ``benchmarks/results/``, and
docs/benchmarks.md is rendered from those files alone (:mod:`benchmarks.docs`), so a figure in
the document always has a file behind it, with the machine and the commit it was measured on.
A file's *kind* names the script that wrote it; the document shows the newest file of each kind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.report import machine

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

PREFIXES: tuple[tuple[str, str], ...] = (
    ("build-pair-", "build-pair"),
    ("versus-reference-", "versus-reference"),
    ("reference-", "reference-baseline"),
    ("ranked-", "ranked"),
    ("web-", "web"),
    ("mcp-roundtrip-", "mcp-roundtrip"),
    ("payload-", "payload"),
    ("round-three-", "round-three"),
    ("diff-", "diff"),
    ("lsa-", "lsa"),
    ("watch-", "watch"),
    ("full-", "full"),
    ("20", "full"),
)
"""File name prefix → kind, for files written before results carried their ``kind``: the full
benchmark's files were named by date alone."""


def commit() -> str:
    """The commit measured, ``+`` appended when the work tree differed from it; "unknown"
    outside git. Without it a figure cannot be traced to the code that produced it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=10", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT, check=False)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty.returncode else "")


def invocation() -> str:
    """This run's command as a maintainer types it (``-m`` from the repository root)."""
    stem = Path(sys.argv[0]).stem
    module = "benchmarks" if stem == "__main__" else f"benchmarks.{stem}"
    return " ".join(["uv run python -m", module, *sys.argv[1:]])


def shown(path: Path) -> str:
    """A results path relative to the repository when it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def stamp(kind: str, scale: float | None, command: str | None = None) -> dict[str, Any]:
    """The fields every result starts with: what, when, on which commit and machine."""
    now = time.gmtime()
    return {
        "kind": kind,
        "date": time.strftime("%Y-%m-%d", now),
        "measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", now),
        "commit": commit(),
        "command": command or invocation(),
        "scale": scale,
        "machine": machine(),
    }


def finish(record: dict[str, Any]) -> dict[str, Any]:
    """Record the load at the end: a load that rose during the run explains slow figures."""
    record["load_end"] = os.getloadavg()[0]
    record["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return record


def default_path(record: dict[str, Any]) -> Path:
    scale = record.get("scale")
    tail = "" if scale is None else f"-scale-{scale:g}"
    return RESULTS / f"{record['kind']}-{record['date']}{tail}.json"


def save(record: dict[str, Any], output: Path | None = None) -> Path:
    """Write ``record`` (to ``output`` or its default name under benchmarks/results/)."""
    path = output or default_path(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"results written to {path}", file=sys.stderr)
    return path


@dataclass(frozen=True)
class Result:
    """One saved file: its kind, when it was measured, its figures."""

    kind: str
    path: Path
    data: dict[str, Any]

    @property
    def when(self) -> str:
        """The measuring time as sortable text; older files have only some of the fields."""
        d = self.data
        return str(
            d.get("finished_utc")
            or d.get("measured_utc")
            or d.get("started_utc")
            or d.get("date", "")
        )

    @property
    def date(self) -> str:
        return str(self.data.get("date") or self.when[:10])

    @property
    def scale(self) -> float:
        return float(self.data.get("scale") or 0.0)


def kind_of(path: Path, data: dict[str, Any]) -> str:
    if "kind" in data:
        return str(data["kind"])
    return next((kind for prefix, kind in PREFIXES if path.name.startswith(prefix)), "unknown")


def load(directory: Path = RESULTS) -> list[Result]:
    found = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        found.append(Result(kind_of(path, data), path, data))
    return found


def newest(results: list[Result]) -> dict[str, Result]:
    """The current result of each kind: the newest; on the same time or date, the larger scale
    (design.md's targets are set for scale 1.0), then the later file name."""
    current: dict[str, Result] = {}
    for result in sorted(results, key=lambda r: (r.date, r.when, r.scale, r.path.name)):
        current[result.kind] = result
    return current
