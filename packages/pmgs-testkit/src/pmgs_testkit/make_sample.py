"""Regenerate the embedded sample package (``pmgs_build/sample/JPPM2026002``).

Run once by a developer, never at import or test time: ``uv run --frozen python -m
pmgs_testkit.make_sample``. The output is committed as package data so that ``pmgs demo``
and the docs work without generating anything; regenerate only when the generator's format
changes, and review the diff.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from pmgs_testkit.generator import write_compact_package

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        package = write_compact_package(Path(tmp), seed=2026, with_documents=True)
        target = SAMPLE_DIR / package.release
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(package.path, target)
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    sys.stdout.write(f"wrote {target} ({size} bytes, {sum(package.rows.values())} rows)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
