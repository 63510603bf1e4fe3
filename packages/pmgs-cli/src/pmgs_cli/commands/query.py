"""``pmgs lookup | search | document | hierarchy | release``: the read-only query commands.

``--json`` prints the pmgs-core record unchanged (the same shape as the Python API and MCP);
without it, :mod:`pmgs_cli.render` draws Rich panels. Rich is imported only on that path so
that ``pmgs lookup … --json`` stays a fast cold start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pmgs_cli.commands import next_steps
from pmgs_cli.common import (
    NEGATIVE_MATCH_STATUSES,
    CliFailure,
    Query,
    language_option,
    paging_options,
    query_options,
)
from pmgs_cli.exits import EXIT_DATABASE
from pmgs_core import PMGSQueryError

__all__ = [
    "NEGATIVE_MATCH_STATUSES",
    "document",
    "hierarchy",
    "lookup",
    "quarantine",
    "release",
    "search",
]


detail_option = click.option(
    "--detail",
    type=click.Choice(["full", "concise"]),
    default="full",
    show_default=True,
    help="--json form: the full record, or concise (each source file once; the MCP default).",
)


def _shaped(record: Any, detail: str, q: Query) -> Any:
    """The record as ``--json`` prints it: unchanged, or its concise form (only JSON: the
    Rich views draw from the full record)."""
    if detail == "concise" and q.as_json:
        from pmgs_core import concise_record

        return concise_record(record)
    return record


@click.command()
@click.argument("scheme")
@click.argument("code")
@click.option("--edition", default=None, help="IPC edition (8U, 8B, 7, 7E, 6, 5, 4).")
@click.option("--ipc-version", "version", default=None, help="IPC version, e.g. 2006.01.")
@click.option("--release", default="current", show_default=True, help="Release id.")
@paging_options("relation-")
@language_option
@detail_option
@query_options
def lookup(
    scheme: str,
    code: str,
    edition: str | None,
    version: str | None,
    release: str,
    relation_limit: int,
    relation_offset: int,
    language: str,
    detail: str,
    q: Query,
) -> None:
    """Look up one FI, F-term or IPC code (SCHEME: fi, fterm, ipc).

    Exit 1 with the record when the code is not_found, version_not_found or
    not_valid_at_release.
    """
    with q.open_store() as store:
        try:
            record = store.lookup(
                scheme,
                code,
                release,
                edition,
                language,
                version=version,
                relation_limit=relation_limit,
                relation_offset=relation_offset,
            )
        except PMGSQueryError as error:
            raise _code_error(error, q, scheme, code) from None
        if q.as_json:
            q.finish(_shaped(record, detail, q), "lookup")
        context = _lookup_context(store, record, release, language)
        hints = next_steps.missing_code(store, q, record, release)
        q.finish(record, "lookup", hints=hints, **context)


def _lookup_context(store: Any, record: Any, release: str, language: str) -> dict[str, Any]:
    """What the Rich view shows beside a found code: its parents, the titles of its relation
    targets and, for an F-term theme, its viewpoints (all bounded pages)."""
    if record["match_status"] in NEGATIVE_MATCH_STATUSES:
        return {}
    where = (record["scheme"], record["code"], release, record["edition"], language)
    context: dict[str, Any] = {"parents": store.hierarchy("parents", *where)}
    targets = [relation["target"] for relation in record["relations"]]
    if targets:
        context["titles"] = store.code_titles(targets, language)
    if record["scheme"] == "fterm" and record["kind"] == "theme":
        context["viewpoints"] = store.hierarchy("children", *where)
    return context


def _code_error(error: PMGSQueryError, q: Query, scheme: str, code: str) -> Exception:
    """An INVALID_CODE whose code is written in another scheme's notation names that scheme
    (``lookup fterm G06F3/048`` → ``lookup fi G06F3/048``); other errors pass unchanged."""
    if error.code != "INVALID_CODE":
        return error
    others = next_steps.code_schemes(code, scheme)
    if not others:
        return error
    commands = " or ".join(next_steps.command(q, "lookup", other, code) for other in others)
    return CliFailure(
        error.code,
        error.message,
        details=error.details,
        hint=f"{code} is written as a {' / '.join(others)} code: {commands}",
    )


@click.command()
@click.argument("query")
@click.option("--scheme", "schemes", multiple=True, help="fi, fterm or ipc (repeatable).")
@click.option(
    "--content-type",
    "content_types",
    multiple=True,
    help="classification or document (repeatable; default both).",
)
@click.option(
    "--document-kind",
    "document_kinds",
    multiple=True,
    help="Document kinds (repeatable): fi_handbook, fi_revision, fterm_explanation, "
    "fterm_additional_code, ipc_revision, ipc_definition, judge, quarantine.",
)
@click.option(
    "--ipc-edition",
    "ipc_editions",
    multiple=True,
    help="Only these IPC editions (repeatable: 8U, 8B, 7, 7E, 6, 5, 4); FI and F-term are "
    "not filtered. Without it, an IPC code is one hit listing the editions that match.",
)
@click.option("--release", default="current", show_default=True)
@click.option("--limit", type=int, default=20, show_default=True, help="Hits per type (≤200).")
@click.option("--classification-offset", type=int, default=0, show_default=True)
@click.option("--document-offset", type=int, default=0, show_default=True)
@click.option(
    "--rank",
    "order",
    type=click.Choice(["index", "relevance"]),
    default=None,
    help="index: package order; relevance: BM25 (lexical), with a score per hit. "
    "Default: relevance with --any, else index.",
)
@click.option(
    "--any",
    "match_any",
    is_flag=True,
    help="Accept texts with any of the words (a phrase is split into the words it is "
    "written with); ranked by BM25 unless --rank index: more words rank higher.",
)
@click.option(
    "--no-fallback",
    "no_fallback",
    is_flag=True,
    help="Only the search asked for: no any-word results when the exact phrase finds "
    "nothing, no count of the other language, no lookup hint for a code.",
)
@click.option(
    "--min-score",
    type=float,
    default=0.0,
    show_default=True,
    help="Ranked results: drop hits scoring below this (0-1, best hit = 1.0).",
)
@language_option
@detail_option
@query_options
def search(
    query: str,
    schemes: tuple[str, ...],
    content_types: tuple[str, ...],
    document_kinds: tuple[str, ...],
    ipc_editions: tuple[str, ...],
    release: str,
    limit: int,
    classification_offset: int,
    document_offset: int,
    order: str | None,
    match_any: bool,
    no_fallback: bool,
    min_score: float,
    language: str,
    detail: str,
    q: Query,
) -> None:
    """Literal text search over classifications and documents (not semantic).

    One hit per code: an IPC code found in several editions is one hit that lists them.
    With several schemes, their hits are interleaved (fi, fterm, ipc in turn), so that each
    is on the first page. With --rank relevance or --any, hits are ranked by BM25 over the
    lexical indexes and show a score (best = 1.0): how well the words match, not how
    likely a code fits.

    The search does not dead-end: when the exact phrase is in no text, the texts holding
    any of the words it is written with are shown, ranked, with the words named; when
    nothing is found in the language searched, the other language's hits are counted with
    the command that shows them; a query that is a code prints the lookup that answers it.
    """
    with q.open_store() as store:
        page = store.search_pmgs(
            query,
            list(schemes) or None,
            list(content_types) or None,
            release,
            language,
            limit,
            classification_offset=classification_offset,
            document_offset=document_offset,
            document_kinds=list(document_kinds) or None,
            order=order or ("relevance" if match_any else "index"),
            match="any" if match_any else "all",
            min_score=min_score,
            ipc_editions=list(ipc_editions) or None,
            fallback=not no_fallback,
        )
    if q.as_json:
        q.finish(_shaped(page, detail, q), "search")
    q.finish(
        page,
        "search",
        notes=next_steps.search_notes(q, page, schemes),
        hints=next_steps.empty_search(q, page, schemes),
    )


@click.command()
@click.argument("document_id")
@click.option("--page", type=int, default=None, help="1-based PDF page.")
@click.option("--section", type=int, default=None, help="1-based segment number.")
@click.option("--locator", default=None, help="Exact source locator or heading.")
@paging_options("segment-", 200)
@paging_options("related-classification-", 200)
@detail_option
@query_options
def document(
    document_id: str,
    page: int | None,
    section: int | None,
    locator: str | None,
    segment_limit: int,
    segment_offset: int,
    related_classification_limit: int,
    related_classification_offset: int,
    detail: str,
    q: Query,
) -> None:
    """Read a document (handbook, explanation, definition) by id, in bounded segments."""
    with q.open_store() as store:
        record = store.get_document(
            document_id,
            page,
            section,
            locator=locator,
            segment_limit=segment_limit,
            segment_offset=segment_offset,
            related_classification_limit=related_classification_limit,
            related_classification_offset=related_classification_offset,
        )
    q.finish(_shaped(record, detail, q), "document")


@click.command()
@click.argument("direction", type=click.Choice(["parents", "children", "descendants"]))
@click.argument("scheme")
@click.argument("code")
@click.option("--edition", default=None, help="IPC edition.")
@click.option("--release", default="current", show_default=True)
@paging_options()
@language_option
@query_options
def hierarchy(
    direction: str,
    scheme: str,
    code: str,
    edition: str | None,
    release: str,
    limit: int,
    offset: int,
    language: str,
    q: Query,
) -> None:
    """List the parents, children or descendants of a code (summaries, paged)."""
    with q.open_store() as store:
        try:
            record = store.hierarchy(
                direction, scheme, code, release, edition, language, limit=limit, offset=offset
            )
        except PMGSQueryError as error:
            raise _code_error(error, q, scheme, code) from None
        if q.as_json:
            q.finish(record, "hierarchy")
        hints = next_steps.missing_code(store, q, record, release) or next_steps.no_children(
            q, record
        )
        levels = None
        if direction == "descendants" and record["items"]:
            levels = _levels(store, record, release, language)
    q.finish(record, "hierarchy", hints=hints, levels=levels)


def _levels(store: Any, page: Any, release: str, language: str) -> list[int]:
    """Each descendant's depth below the listed code (its number of parents minus the
    code's), so that the Rich view can indent the subtree."""

    def depth(code: str) -> int:
        parents = store.hierarchy(
            "parents", page["scheme"], code, release, page["edition"], language, limit=1
        )
        return int(parents["count"])

    root = depth(page["code"])
    return [max(depth(item["code"]) - root - 1, 0) for item in page["items"]]


def installed_releases(root: Path, current: Any) -> list[dict[str, Any]]:
    """Every database under ``data/releases`` (relative paths only), newest release first."""
    base = root / "data" / "releases"
    found: list[dict[str, Any]] = []
    if not base.is_dir():
        return found
    for path in sorted(base.glob("*/*/*.sqlite")):
        relative = path.relative_to(root).as_posix()
        found.append(
            {
                "release": path.parent.parent.name,
                "source_sha256": path.parent.name,
                "database_sha256": path.stem,
                "database": relative,
                "bytes": path.stat().st_size,
                "current": current is not None and current.database == relative,
            }
        )
    found.sort(key=lambda item: (item["release"], item["database"]), reverse=True)
    return found


@click.command()
@click.option("--group", "data_group", default=None, help="Only this data group (FI/FI, …).")
@paging_options(limit=20, help_text="Records per page (≤200).")
@query_options
def quarantine(data_group: str | None, limit: int, offset: int, q: Query) -> None:
    """List the records the build kept in quarantine, with what the package said.

    A row, cell, element or file the build could not read with certainty is kept here (raw
    text, reason code, file and locator) instead of being dropped; it is never answered as a
    classification, and its raw text is findable with `pmgs search --content-type document`.
    `pmgs release` shows the counts by data group and reason.
    """
    with q.open_store() as store:
        page = store.list_quarantine(data_group, limit=limit, offset=offset)
    q.finish(page, "quarantine")


@click.command()
@query_options
def release(q: Query) -> None:
    """Show the current release and the releases installed in the data directory.

    ``current`` is the pmgs-core ``release_info`` record; ``installed`` lists the
    content-addressed databases kept under ``data/releases`` (paths relative to the data dir).
    """
    from pmgs_core import PMGSQueryError, default_data_dir, read_current_pointer

    root = None if q.db is not None else (q.data_dir or default_data_dir())
    current_info: Any = None
    error: Any = None
    try:
        with q.open_store() as store:
            current_info = store.release_info()
    except PMGSQueryError as exc:
        if q.db is not None or q.data_dir is not None:
            raise
        error = exc.to_dict()
    pointer = None
    installed: list[dict[str, Any]] = []
    if root is not None and root.is_dir():
        try:
            pointer = read_current_pointer(root)
        except PMGSQueryError:
            pointer = None
        installed = installed_releases(root, pointer)
    record = {
        "record_type": "release_list",
        "current": current_info,
        "pointer": pointer.to_json() if pointer is not None else None,
        "installed": installed,
        "error": error,
    }
    if current_info is None:
        q.finish(record, "release", exit_code=EXIT_DATABASE)
    q.finish(record, "release")
