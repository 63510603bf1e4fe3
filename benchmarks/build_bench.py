"""The package and build half of the benchmark: generate (or reuse), build, measure the file.

The build runs as a separate ``pmgs build SRC OUT --json`` process, exactly as a user runs it,
so its memory is its own and not the harness's. Peak memory is sampled from ``/proc`` for the
whole process tree, because PDF text extraction runs in a process pool whose workers hold
memory of their own.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENERATED_MARKER = "generated.json"
"""Written beside a package once generation finished; a directory without it is discarded."""


@dataclass(frozen=True)
class Package:
    """A generated package and what the generator said about it."""

    path: Path
    scale: float
    seed: int
    with_documents: bool
    examples: dict[str, str]
    generated_seconds: float | None
    """None when an existing package was reused."""
    files: int
    bytes: int
    pdf_files: int


def _tree_stats(root: Path) -> tuple[int, int, int]:
    files = size = pdfs = 0
    for path in root.rglob("*"):
        if path.is_file():
            files += 1
            size += path.stat().st_size
            pdfs += path.suffix.lower() == ".pdf"
    return files, size, pdfs


def package_directory(workdir: Path, scale: float, seed: int, with_documents: bool) -> Path:
    flavour = "docs" if with_documents else "nodocs"
    return workdir / f"package-scale-{scale:g}-seed-{seed}-{flavour}"


def prepare_package(workdir: Path, scale: float, seed: int, with_documents: bool) -> Package:
    """Reuse the package of these arguments in ``workdir`` or generate it (about 1 min at 1.0).

    Generation is deterministic per (scale, seed, documents), so a finished package of the same
    arguments is the same bytes and is reused; an unfinished one (no marker) is regenerated.
    """
    directory = package_directory(workdir, scale, seed, with_documents)
    marker = directory / GENERATED_MARKER
    if marker.is_file():
        meta = json.loads(marker.read_text("utf-8"))
        path = Path(meta["path"])
        if path.is_dir():
            files, size, pdfs = _tree_stats(path)
            return Package(
                path, scale, seed, with_documents, meta["examples"], None, files, size, pdfs
            )
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    from pmgs_testkit import generate_package

    started = time.perf_counter()
    generated = generate_package(directory, scale=scale, seed=seed, with_documents=with_documents)
    seconds = time.perf_counter() - started
    examples = {str(k): str(v) for k, v in dict(generated.examples).items()}
    marker.write_text(
        json.dumps(
            {"path": str(generated.path), "examples": examples, "seconds": seconds},
            ensure_ascii=False,
            indent=1,
        ),
        "utf-8",
    )
    files, size, pdfs = _tree_stats(generated.path)
    return Package(
        generated.path, scale, seed, with_documents, examples, seconds, files, size, pdfs
    )


# --- memory of a process tree ------------------------------------------------------------------


def _status_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants now (parent links read from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses; fields resume after the last ')'.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _cmdline(pid: int) -> str:
    """A short form of a process's command line (its last two words), for the record."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
    except OSError:
        return "?"
    return " ".join(w.decode("utf-8", "replace") for w in words if w)[-120:]


class TreeMemory:
    """Samples RSS (and PSS) summed over a process tree every ``interval`` seconds.

    The RSS sum counts pages shared between a parent and its forked workers once per process,
    so it overstates what the tree really holds; PSS splits shared pages between the sharers
    and is the fairer figure. The target is compared with the RSS sum (the conservative one).
    """

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_rss_kib = 0
        self.peak_pss_kib = 0
        self.peak_single_rss_kib = 0
        self.max_processes = 0
        self.samples = 0
        self.per_process: dict[int, tuple[str, int]] = {}
        """pid → (command line, peak RSS KiB), to say which process a peak belongs to."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = process_tree(self.pid)
            rss = [_status_kib(pid, "VmRSS:") for pid in pids]
            self.peak_rss_kib = max(self.peak_rss_kib, sum(rss))
            self.peak_single_rss_kib = max(self.peak_single_rss_kib, max(rss, default=0))
            self.peak_pss_kib = max(self.peak_pss_kib, sum(_pss_kib(pid) for pid in pids))
            self.max_processes = max(self.max_processes, sum(1 for value in rss if value))
            for pid, kib in zip(pids, rss, strict=True):
                name, peak = self.per_process.get(pid) or (_cmdline(pid), 0)
                self.per_process[pid] = (name, max(peak, kib))
            self.samples += 1
            self._stop.wait(self.interval)


# --- the build ---------------------------------------------------------------------------------


class BuildFailed(RuntimeError):
    """``pmgs build`` exited with an error; the message carries its JSON error record."""


def run_build(package: Path, output: Path, log: Path) -> dict[str, Any]:
    """``pmgs build package output --json`` as a child process, timed and memory-sampled.

    Its stderr goes to ``log``, its JSON report to ``build.stdout.json`` beside it.
    """
    if output.exists():
        output.unlink()
    # --debug only adds the traceback to stderr when the build fails unexpectedly.
    command = [
        sys.executable,
        *("-m", "pmgs_cli", "build", str(package), str(output), "--json", "--debug"),
    ]
    stdout_path = log.parent / "build.stdout.json"
    with stdout_path.open("wb") as stdout, log.open("wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL)
        with TreeMemory(process.pid) as memory:
            returncode = process.wait()
        wall = time.perf_counter() - started
    text = stdout_path.read_text("utf-8", errors="replace")
    if returncode != 0:
        raise BuildFailed(
            f"pmgs build exited with {returncode}: {text.strip()[:2000]} (stderr in {log})"
        )
    report: dict[str, Any] = json.loads(text)
    return {
        "command": ["pmgs", *command[3:]],
        "wall_seconds": wall,
        "reported_seconds": report.get("seconds"),
        "phase_seconds": report.get("phase_seconds", {}),
        "peak_rss_bytes": memory.peak_rss_kib * 1024,
        "peak_pss_bytes": memory.peak_pss_kib * 1024,
        "peak_single_process_rss_bytes": memory.peak_single_rss_kib * 1024,
        "max_processes": memory.max_processes,
        "per_process_peak_rss_bytes": [
            {"command": name, "peak_rss_bytes": kib * 1024}
            for name, kib in sorted(memory.per_process.values(), key=lambda item: -item[1])
        ],
        "memory_samples": memory.samples,
        "database_bytes": report.get("database_bytes", output.stat().st_size),
        "table_counts": report.get("table_counts", {}),
        "warning_count": report.get("warning_count"),
    }


# --- sizes -------------------------------------------------------------------------------------


def object_sizes(database: Path) -> dict[str, Any]:
    """Bytes per table and index, from the ``dbstat`` virtual table when SQLite has it.

    Without ``dbstat`` (SQLite built without SQLITE_ENABLE_DBSTAT_VTAB) only the file's page
    count is known; the result says which method was used.
    """
    connection = sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        page_size = int(connection.execute("PRAGMA page_size").fetchone()[0])
        page_count = int(connection.execute("PRAGMA page_count").fetchone()[0])
        freelist = int(connection.execute("PRAGMA freelist_count").fetchone()[0])
        kinds = {
            str(name): (str(kind), str(table))
            for name, kind, table in connection.execute(
                "SELECT name, type, tbl_name FROM sqlite_schema"
            )
        }
        try:
            rows = connection.execute(
                "SELECT name, SUM(pgsize), COUNT(*) FROM dbstat GROUP BY name"
            ).fetchall()
        except sqlite3.OperationalError:
            return {
                "method": "page_count (this SQLite has no dbstat; no per-object sizes)",
                "page_size": page_size,
                "page_count": page_count,
                "freelist_pages": freelist,
                "objects": [],
            }
    finally:
        connection.close()
    objects: list[dict[str, Any]] = []
    for name, size, pages in rows:
        kind, table = kinds.get(str(name), ("table", str(name)))
        objects.append(
            {
                "name": str(name),
                "type": kind,
                "table": table,
                "bytes": int(size),
                "pages": int(pages),
            }
        )
    objects.sort(key=lambda item: (-item["bytes"], item["name"]))
    return {
        "method": "dbstat",
        "page_size": page_size,
        "page_count": page_count,
        "freelist_pages": freelist,
        "objects": objects,
    }
