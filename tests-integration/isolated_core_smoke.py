"""Smoke check run by ``nox -s isolated`` inside a venv holding only the pmgs-core wheel.

It proves that pmgs-core imports and works with nothing else of pmgs installed: the promise
made to users who only query a database.
"""

import sys
from importlib.metadata import distributions

import pmgs_core

others = sorted(
    name
    for d in distributions()
    if (name := d.metadata["Name"].lower()).startswith("pmgs") and name != "pmgs-core"
)
if others:
    sys.exit(f"expected pmgs-core alone, found also: {others}")

code = pmgs_core.parse_code("fi", "B60J   5/    00501B")
if code.canonical != "B60J5/00,501@B":
    sys.exit(f"fixed-width FI parsed to {code.canonical!r}, expected 'B60J5/00,501@B'")
sys.stderr.write(f"pmgs-core {pmgs_core.__version__} alone: B60J   5/    00501B -> {code}\n")
