"""Reading the user's package: where its bytes come from (a directory or the ZIP, read in
place), where the release lies in it, what files it holds (the inventory), and the parsers
that turn each data group's files into rows.

This is the first of the build's two pipelines; the parsers hand their rows to the second
(:mod:`pmgs_build.database`) through its loader, and nothing here depends on how the
database is finished or published.
"""
