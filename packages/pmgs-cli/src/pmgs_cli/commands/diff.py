"""``pmgs diff FROM TO``: what changed between two installed releases."""

from __future__ import annotations

import sys

import click

from pmgs_cli.commands.release_choice import open_release
from pmgs_cli.common import Query, emit_json, paging_options, query_options, scheme_option
from pmgs_cli.exits import EXIT_OK

__all__ = ["diff"]


@click.command()
@click.argument("from_release", metavar="FROM")
@click.argument("to_release", metavar="TO")
@scheme_option("Only this scheme (links: either end).")
@click.option(
    "--under",
    default=None,
    metavar="PREFIX",
    help="Only codes starting with this canonical prefix (G06F, G06F3/, 5H322).",
)
@paging_options(help_text="Items per page (≤200).")
@query_options
def diff(
    from_release: str,
    to_release: str,
    scheme: str | None,
    under: str | None,
    limit: int,
    offset: int,
    q: Query,
) -> None:
    """Compare two releases (ids, 'current' or database files): codes added, removed,
    retitled, moved in the hierarchy, and theme and concordance links added or removed.

    Counts per section and scheme come first, then one page of items (--limit/--offset;
    the page says the next offset). IPC is compared on edition 8U.
    """
    from pmgs_core import diff_releases

    naming = "FROM and TO (`pmgs diff JPPM2026002 current`)"
    with (
        open_release(q, from_release, naming=naming) as old,
        open_release(q, to_release, naming=naming) as new,
    ):
        record = diff_releases(old, new, scheme=scheme, under=under, limit=limit, offset=offset)
    if q.as_json:
        emit_json(record)
    else:
        from pmgs_cli import render_check

        render_check.diff_page(record)
    sys.exit(EXIT_OK)
