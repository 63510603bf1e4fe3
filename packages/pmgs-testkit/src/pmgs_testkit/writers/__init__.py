"""One writer module per data group of a synthetic package, named like the builder's adapters.

``writers/fi_text.py`` writes what ``adapters/fi_text.py`` reads, so that the reader and the
writer of a group sit side by side in name. Each writer streams its rows into a
:class:`~pmgs_testkit.writers._context.Context` (the output directory, the plan, the text
maker and the tallies) and draws from its own random stream, so one group's bytes never
depend on another's. :mod:`~pmgs_testkit.writers.classification` runs the one pass over
the IPC base tree that feeds the FI, IPC and concordance writers together.
"""
