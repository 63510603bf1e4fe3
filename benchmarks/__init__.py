"""Benchmarks of pmgs against the targets of docs/design.md ("Targets").

Not tests: nothing here asserts a time. ``python -m benchmarks`` (see :mod:`benchmarks.__main__`)
generates a synthetic package, builds it with the real ``pmgs build``, measures the database and
the queries, and writes JSON under ``benchmarks/results/`` and, on request, its section of
``docs/benchmarks.md``. ``benchmarks/mcp_roundtrip.py`` is the MCP-only benchmark whose
measuring functions the entry point reuses.
"""
