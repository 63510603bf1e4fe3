"""Benchmarks of pmgs against the targets of docs/design.md ("Targets").

Not tests: nothing here asserts a time. ``python -m benchmarks`` (see :mod:`benchmarks.__main__`)
generates a synthetic package, builds it with the real ``pmgs build``, measures the database and
the queries; it and every other script here (``ranked_bench``, ``web_bench``, ``build_pair`` …)
save their figures as JSON under ``benchmarks/results/`` (:mod:`benchmarks.results`).
``python -m benchmarks --write-docs`` writes all of ``docs/benchmarks.md`` from those files
(:mod:`benchmarks.docs`), so the document holds the newest figures only and cannot drift from
them; ``tests-integration/test_benchmarks_doc.py`` checks that it does not.
"""
