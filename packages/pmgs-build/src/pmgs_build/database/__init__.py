"""Writing the database: batched inserts and the concept registry, the writer process and
the snapshot workers that put the second core to work, the row counts and logical digest
that validation recounts, and the build's report.

The second of the build's two pipelines: it knows nothing of the package's layout or
formats (that is :mod:`pmgs_build.source`); :mod:`pmgs_build.build` drives both.
"""
