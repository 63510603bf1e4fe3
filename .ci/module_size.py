"""Fail when a package source module passes 600 lines: the size rule of ADRs 0011 and 0021.

``python .ci/module_size.py [ROOT]`` (ROOT defaults to the repository) reads every
``packages/*/src/**/*.py`` and exits 1 naming each module over the limit, 0 when none is.
The nox ``lint`` session runs it, and ``.ci/test_module_size.py`` proves it fails on a
601-line module, so the rule holds without anyone counting.
"""

from __future__ import annotations

import sys
from pathlib import Path

MAX_LINES = 600
"""One capability a module: past this a module holds more than one, and is split."""


def oversized(root: Path, limit: int = MAX_LINES) -> list[tuple[Path, int]]:
    """The package source modules below ``root`` longer than ``limit`` lines, with lengths."""
    found = []
    for path in sorted(root.glob("packages/*/src/**/*.py")):
        with path.open("rb") as handle:
            lines = sum(1 for _ in handle)
        if lines > limit:
            found.append((path.relative_to(root), lines))
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    found = oversized(root)
    for path, lines in found:
        sys.stderr.write(f"{path}: {lines} lines (at most {MAX_LINES}; split it by capability)\n")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
