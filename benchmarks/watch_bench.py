"""How soon ``pmgs notes watch`` reflects a change (issue 32: within 2 s).

    uv run python -m benchmarks.watch_bench --rounds 20

Starts ``pmgs notes watch`` on an empty temporary folder, waits for its first-pass line, then
per round creates a file, edits it, renames it and deletes it, timing each from the file
operation until SQL on the collection file shows the result (polled every 5 ms). Saves its
results as ``benchmarks/results/watch-<date>.json`` and prints the section they render in
docs/benchmarks.md (``--write-docs`` then rewrites the document).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.docs import add_arguments, publish
from benchmarks.results import finish, stamp

_GIVE_UP_S = 20.0


def _count(coll: Path, sql: str, *args: object) -> int:
    try:
        with sqlite3.connect(f"file:{coll}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute(sql, args).fetchone()[0])
    except sqlite3.Error:
        return -1


def _seconds_until(coll: Path, sql: str, value: str, expected: int) -> float:
    """Seconds until ``sql`` (one ``?``) counts ``expected`` rows; inf after the give-up time."""
    start = time.monotonic()
    while _count(coll, sql, value) != expected:
        if time.monotonic() - start > _GIVE_UP_S:
            return float("inf")
        time.sleep(0.005)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("watch", None)
    root = Path(tempfile.mkdtemp(prefix="pmgs-watch-bench-"))
    folder, coll = root / "watched", root / "collection.sqlite"
    folder.mkdir()
    command = [sys.executable, "-m", "pmgs_cli", "notes", "watch", str(folder)]
    child = subprocess.Popen(
        [*command, "--category", "bench", "--collection", str(coll), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    child.stdout.readline()  # the first pass is done and the watch is armed
    times: dict[str, list[float]] = {"create": [], "edit": [], "rename": [], "delete": []}
    content = "SELECT count(*) FROM items WHERE content = ?"
    by_path = "SELECT count(*) FROM documents WHERE path = ?"
    try:
        for n in range(args.rounds):
            first, second = folder / f"n{n}.txt", folder / f"m{n}.txt"
            created, edited = f"メモ {n} 負極の結着剤", f"改訂 {n} 電極のバインダー"
            first.write_text(created, encoding="utf-8")
            times["create"].append(_seconds_until(coll, content, created, 1))
            first.write_text(edited, encoding="utf-8")
            times["edit"].append(_seconds_until(coll, content, edited, 1))
            first.rename(second)
            times["rename"].append(_seconds_until(coll, by_path, str(second.absolute()), 1))
            second.unlink()
            times["delete"].append(_seconds_until(coll, by_path, str(second.absolute()), 0))
    finally:
        child.terminate()
        child.wait(timeout=30)
    record.update(
        rounds=args.rounds,
        seconds={
            kind: {"median": statistics.median(values), "max": max(values)}
            for kind, values in times.items()
        },
    )
    publish(finish(record), args)


if __name__ == "__main__":
    main()
