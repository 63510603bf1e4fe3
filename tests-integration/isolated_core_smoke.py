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

# The collection without the ``vectors`` extra: no numpy, search lexical, no error (ADR 0026).
import importlib.util  # noqa: E402
import tempfile  # noqa: E402

if importlib.util.find_spec("numpy") is not None:
    sys.exit("numpy is installed beside pmgs-core alone; the vectors extra must stay optional")
with tempfile.TemporaryDirectory() as tmp, pmgs_core.Collection(f"{tmp}/c.sqlite") as col:
    for n in range(30):
        col.put_document(f"電池の記録 {n}", f"n{n}.md")
    retrained = col.lsa_retrain()
    answer = col.search_text("電池", limit=3)
    if retrained["dimensions"] != 0 or answer["vector_search_used"] is not False:
        sys.exit(f"expected lexical search without numpy; got {retrained}, {answer}")
    if [item["match"] for item in answer["items"]] != ["lexical"] * 3:
        sys.exit(f"expected three lexical items; got {answer['items']}")
sys.stderr.write("pmgs-core alone: the collection searches lexically (vector_search_used false)\n")
