"""Rich output for people: panels and tables drawn from the pmgs-core records.

Only the human path imports this module (and with it Rich). Every text shown is source
evidence and is printed with markup disabled (``Text``/``escape``), so a source line that
looks like Rich markup or a terminal instruction is shown, never interpreted.

No text is ever cut: every column folds (``overflow="fold"``) instead of ending in ``…``.
Japanese has no spaces to wrap at, and the end of a title is often what decides whether a
code fits (``…（記録媒体を除く）``), as the end of a file name says which file it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TypedDict

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from pmgs_cli.exits import quiet_broken_pipe
from pmgs_core import (
    ClassificationRecord,
    ClassificationSearchHit,
    CodeContext,
    CombinedSearchPage,
    DocumentPage,
    DocumentSearchHit,
    HierarchyPage,
    QuarantinePage,
    ReleaseInfo,
    ReleaseRef,
    SourceRef,
)

__all__ = ["document", "hierarchy", "lookup", "quarantine", "release", "search", "stdout"]


class _Console(Console):
    """Rich exits 1 when stdout's reader goes away; a closed pipe is not an error here."""

    def on_broken_pipe(self) -> None:
        quiet_broken_pipe()


stdout: Console = _Console(highlight=False, soft_wrap=False)
"""The console of human output (stdout); progress and errors go to stderr."""


class InstalledRelease(TypedDict):
    """One database under ``data/releases`` (``pmgs release``)."""

    release: str
    source_sha256: str
    database_sha256: str
    database: str
    bytes: int
    current: bool


class ReleaseList(TypedDict):
    """The record of ``pmgs release``: the current release and the installed databases."""

    record_type: str
    current: ReleaseInfo | None
    pointer: dict[str, Any] | None
    installed: list[InstalledRelease]
    error: dict[str, Any] | None


Column = tuple[str, int | None]
"""A column: its header and its share of the width (None: as wide as its content needs)."""


def _table(title: str | None, columns: Sequence[Column], *, dim_last: bool = False) -> Table:
    """A table whose every column folds long text onto further lines (never ``…``)."""
    table = Table(title=title, expand=True)
    for index, (header, ratio) in enumerate(columns):
        table.add_column(
            header,
            overflow="fold",
            ratio=ratio,
            style="dim" if dim_last and index == len(columns) - 1 else None,
        )
    return table


def _source(src: SourceRef | None) -> str:
    if not src:
        return ""
    return f"{src['file']} {src['locator']}"


def _footer(release: ReleaseRef, attribution: str) -> Text:
    text = Text(f"release {release['release_id']} ({release['reference_date']})  ")
    text.append(attribution, style="dim")
    return text


def _viewer_line(path: str) -> Text:
    """Where ``pmgs web`` shows the same record (the path after the viewer's address)."""
    return Text(f"view: pmgs web → {path}", style="dim", overflow="fold")


def _next_steps(hints: Iterable[str]) -> list[Text]:
    """What to try next after an empty or negative answer (facts only, built by the command)."""
    return [Text(f"next: {hint}", style="yellow") for hint in hints]


def _print_closing(hints: Iterable[str], release: ReleaseRef, attribution: str) -> None:
    """The next steps and the footer that end a page printed line by line."""
    for line in _next_steps(hints):
        stdout.print(line, soft_wrap=True)  # a command stays one line, to copy it whole
    stdout.print(_footer(release, attribution))


def _code_name(scheme: str, code: str, edition: str | None) -> str:
    return f"{scheme} {code}" + (f" ({edition})" if edition else "")


def _lookup_head(record: ClassificationRecord) -> Table:
    status = record["match_status"]
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    head.add_row("match", Text(status, style="green" if "exact" in status else "yellow"))
    if record.get("kind"):
        head.add_row("kind", str(record["kind"]))
    revision = record.get("revision")
    if revision and revision.get("version"):
        head.add_row(
            "version",
            f"{revision['version']} (valid {revision['valid_from'] or '…'} – "
            f"{revision['valid_to'] or '…'})",
        )
    return head


def _parents(parents: HierarchyPage | None) -> list[RenderableType]:
    if not parents or not parents.get("items"):
        return []
    chain = Text(overflow="fold")
    for index, item in enumerate(parents["items"]):
        chain.append(("  " * index) + f"{item['code']}  ", style="bold")
        chain.append((item.get("label") or "") + "\n")
    return [Panel(chain, title="parents", title_align="left")]


def _versions(record: ClassificationRecord) -> list[RenderableType]:
    if not record.get("available_versions"):
        return []
    versions = _table(
        "versions",
        [("version", None), ("valid from", None), ("valid to", None), ("valid at release", None)],
    )
    for item in record["available_versions"]:
        versions.add_row(
            item["version"],
            item["valid_from"] or "",
            item["valid_to"] or "",
            "yes" if item["valid_at_release"] else "no",
        )
    return [versions]


def _relations(record: ClassificationRecord, titles: Sequence[str | None]) -> list[RenderableType]:
    """Relations with the versions of revision edges (``amended_to`` names a code by its
    versions: without them, G06F3/048 (8U) → G06F3/048 (8U) looks like a loop)."""
    if not record["relations"]:
        return []
    relations = _table(
        f"relations ({record['relation_count']})",
        [("kind", None), ("direction", None), ("target", 3), ("source", 2)],
        dim_last=True,
    )
    for index, item in enumerate(record["relations"]):
        target = item["target"]
        name = Text(_code_name(target["scheme"], target["code"], target["edition"]))
        if item["from_version"] or item["to_version"]:
            name.append(f" {item['from_version'] or '–'} → {item['to_version'] or '–'}")
        title = titles[index] if index < len(titles) else None
        if title:
            name.append(f"\n{title}", style="dim")
        relations.add_row(item["kind"], item["direction"], name, _source(item["source"]))
    parts: list[RenderableType] = [relations]
    if record["relations_truncated"]:
        parts.append(
            Text(f"more: --relation-offset {record['next_relation_offset']}", style="yellow")
        )
    return parts


def _scope_notes(record: ClassificationRecord) -> list[RenderableType]:
    notes = record.get("scope_notes") or []
    if not notes:
        return []
    table = _table("scope notes", [("document", 1), ("note", 3)])
    for note in notes:
        where = f"{note['document_id']} §{note['section']}"
        body = Text(note["body"])
        if note["truncated"]:
            body.append(
                f" … (whole text: pmgs document {note['document_id']} --section {note['section']})",
                style="dim",
            )
        table.add_row(where, body)
    return [table]


def _viewpoints(page: HierarchyPage | None) -> list[RenderableType]:
    """An F-term theme's viewpoints (its children), the table a searcher reads first."""
    if not page or not page["items"]:
        return []
    table = _table(f"viewpoints ({page['count']})", [("viewpoint", 1), ("title", 4)])
    for item in page["items"]:
        table.add_row(item["code"], Text(item["label"] or ""))
    parts: list[RenderableType] = [table]
    if page["truncated"]:
        parts.append(
            Text(
                f"more: pmgs hierarchy children fterm {page['code']} --offset "
                f"{page['next_offset']}",
                style="yellow",
            )
        )
    return parts


def lookup(
    record: ClassificationRecord,
    parents: HierarchyPage | None = None,
    hints: Sequence[str] = (),
    titles: Sequence[str | None] = (),
    viewpoints: HierarchyPage | None = None,
) -> None:
    """A classification: title, parents, versions, relations (with the targets' titles),
    scope notes, an F-term theme's viewpoints, documents."""
    title = f"{record['scheme'].upper()} {record['code']}"
    if record.get("edition"):
        title += f" (IPC {record['edition']})"
    parts: list[RenderableType] = [_lookup_head(record)]
    if record["texts"]:
        texts = _table("texts", [("type", None), ("text", 3), ("source", 2)], dim_last=True)
        for item in record["texts"]:
            texts.add_row(
                f"{item['text_type']}/{item['language']}",
                Text(item["body"]),
                _source(item["source"]),
            )
        parts.append(texts)
    parts += _parents(parents)
    parts += _versions(record)
    parts += _viewpoints(viewpoints)
    parts += _relations(record, titles)
    parts += _scope_notes(record)
    if record["documents"]:
        documents = _table("documents", [("document id", 1), ("title", 2)])
        for doc in record["documents"]:
            documents.add_row(doc["document_id"], Text(doc["title"]))
        parts.append(documents)
    parts += _next_steps(hints)
    if record["viewer_path"] is not None:
        parts.append(_viewer_line(record["viewer_path"]))
    parts.append(_footer(record["release"], record["attribution"]))
    stdout.print(Panel(Group(*parts), title=escape(title), title_align="left"))


def _highlight(excerpt: str, terms: list[str]) -> Text:
    text = Text(excerpt)
    for term in terms:
        if term:
            text.highlight_regex(re.escape(term), style="bold black on yellow")
    return text


def _classification_label(hit: ClassificationSearchHit) -> str:
    label = _code_name(hit["scheme"], hit["code"], hit["edition"])
    others = [edition for edition in hit.get("editions", []) if edition != hit["edition"]]
    return label + (f" also {', '.join(others)}" if others else "")


def _context_line(context: Sequence[CodeContext]) -> Text:
    """Where a hit sits (theme › viewpoint, main group › parent), dim, above its text."""
    line = Text("in: ", style="dim")
    for index, item in enumerate(context):
        if index:
            line.append(" › ")
        line.append(f"{item['code']} {item['title'] or ''}".rstrip())
    line.append("\n")
    return line


def _hit_context(hit: ClassificationSearchHit | DocumentSearchHit) -> list[CodeContext]:
    """A classification hit's context (documents have none)."""
    if "document_id" in hit:
        return []
    classification: ClassificationSearchHit = hit
    return classification.get("context", [])


def _document_label(hit: DocumentSearchHit) -> str:
    return hit["document_id"]


_Hit = ClassificationSearchHit | DocumentSearchHit
_SEARCH_SECTIONS: Final[tuple[tuple[str, str, str, str, Callable[[Any], str]], ...]] = (
    ("classification", "classifications", "code", "--classification-offset", _classification_label),
    ("document", "documents", "document id", "--document-offset", _document_label),
)
"""Per result type: the key, the table title, the first column, the paging flag, the label."""


def _match_note(match: Any) -> str:
    editions = match.get("editions")
    return f" [{', '.join(editions)}]" if editions and len(editions) > 1 else ""


def search(page: CombinedSearchPage, hints: Sequence[str] = (), notes: Sequence[str] = ()) -> None:
    """Hits per type with the matched terms highlighted in each excerpt; ``notes`` (what the
    answer is: a code's lookup, the words of an any-word fallback) come first."""
    by_type: dict[str, Any] = dict(page["results_by_type"])
    stdout.print(Text(f"search: {page['query']}  mode: {page['search_mode']}", style="bold"))
    for note in notes:
        stdout.print(Text(note, style="cyan", overflow="fold"))
    for key, title, first_column, offset_flag, label in _SEARCH_SECTIONS:
        results = by_type.get(key)
        if results is None:
            continue
        terms = [t["term"] for t in results["terms"]]
        ranked = "order" in results  # the ranked path: hits carry score and matched_terms
        columns: list[Column] = [(first_column, 2)]
        if ranked:
            columns.append(("score", None))
        columns += [("matched text", 4), ("source", 3)]
        merge = results.get("scheme_merge")
        heading = f"{title} ({results['count']})"
        if merge == "interleaved":
            heading += ", schemes interleaved"
        table = _table(heading, columns, dim_last=True)
        hit: _Hit
        for hit in results["results"]:
            shown = hit.get("matched_terms", terms)
            for index, match in enumerate(hit["matches"]):
                first = label(hit) if index == 0 else ""
                score = [f"{hit['score']:.3f}" if index == 0 else ""] if ranked else []
                text = _highlight(match["excerpt"], shown)
                context = _hit_context(hit)
                if index == 0 and context:
                    text = _context_line(context).append_text(text)
                text.append(_match_note(match), style="dim")
                table.add_row(first, *score, text, _source(match["source"]))
        if results["results"]:
            stdout.print(table)
        else:
            stdout.print(Text(f"{title}: no hits", style="yellow"))
        if results["has_more"]:
            stdout.print(Text(f"more: {offset_flag} {results['next_offset']}", style="yellow"))
    _print_closing(hints, page["release"], page["attribution"])


def document(page: DocumentPage) -> None:
    """A document page: its segments with headings and sources, and related codes."""
    parts: list[RenderableType] = []
    for segment in page["segments"]:
        head = f"§{segment['section']}"
        if segment.get("page") is not None:
            head += f"  page {segment['page']}"
        if segment.get("heading"):
            head += f"  {segment['heading']}"
        parts.append(Text(head, style="bold", overflow="fold"))
        parts.append(Text(segment["body"], overflow="fold"))
        parts.append(Text(_source(segment["source"]), style="dim", overflow="fold"))
    if page["segments_truncated"]:
        parts.append(Text(f"more: --segment-offset {page['next_segment_offset']}", style="yellow"))
    if page["related_classifications"]:
        related = ", ".join(
            _code_name(item["scheme"], item["code"], item["edition"])
            for item in page["related_classifications"]
        )
        parts.append(Text(f"related: {related}", style="cyan", overflow="fold"))
    parts.append(_viewer_line(page["viewer_path"]))
    parts.append(_footer(page["release"], page["attribution"]))
    title = Text(f"{page['document_id']} — {page['title']}", style="bold", overflow="fold")
    stdout.print(Panel(Group(title, *parts)))


def hierarchy(
    page: HierarchyPage, hints: Sequence[str] = (), levels: Sequence[int] | None = None
) -> None:
    """A hierarchy page as a table; descendants indented by their depth (``levels``)."""
    table = _table(
        f"{page['direction']} of {page['scheme']} {page['code']} ({page['count']})",
        [("code", 3), ("edition", None), ("version", None), ("label", 5), ("status", None)],
    )
    for index, item in enumerate(page["items"]):
        indent = "  " * levels[index] if levels is not None and index < len(levels) else ""
        table.add_row(
            indent + item["code"],
            item["edition"] or "",
            item["version"] or "",
            Text(item["label"] or ""),
            item["record_status"],
        )
    if page["items"] or page["match_status"] != "not_found":
        stdout.print(table)
    if page["truncated"]:
        stdout.print(Text(f"more: --offset {page['next_offset']}", style="yellow"))
    _print_closing(hints, page["release"], page["attribution"])


def quarantine(page: QuarantinePage) -> None:
    """A page of quarantined records: where, why, and the raw text (shortened: it is the
    unreadable input, not a classification text)."""
    table = _table(
        f"quarantined records {page['offset'] + 1}-{page['offset'] + page['count']} "
        f"of {page['total_count']}",
        [("group", None), ("reason", None), ("file", 2), ("locator", 1), ("raw", 3)],
    )
    for item in page["items"]:
        source = item["source"]
        raw = item["raw"] or item["message"]
        table.add_row(
            item["data_group"],
            item["reason"],
            Text(source["file"] if source else ""),
            source["locator"] if source else "",
            Text(raw if len(raw) <= 100 else raw[:100] + "…"),
        )
    stdout.print(table)
    if page["has_more"]:
        stdout.print(f"more: --offset {page['next_offset']}")


def _release_grid(info: ReleaseInfo) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("release_id", info["release_id"])
    grid.add_row("reference_date", info["reference_date"])
    grid.add_row("schema_version", str(info["schema_version"]))
    grid.add_row("builder_version", str(info["builder_version"]))
    grid.add_row("source_manifest_sha256", info["source_manifest_sha256"])
    grid.add_row("database", info["database"])
    counts = ", ".join(
        f"{c['scheme']}{' ' + c['edition'] if c['edition'] else ''}: {c['count']}"
        for c in info["classification_counts"]
    )
    grid.add_row("classifications", counts)
    grid.add_row(
        "documents", ", ".join(f"{c['kind']}: {c['count']}" for c in info["document_counts"])
    )
    quarantined = info.get("quarantine_counts") or []
    grid.add_row(
        "quarantined",
        ", ".join(f"{c['data_group']} {c['reason']}: {c['count']}" for c in quarantined)
        + " (see `pmgs quarantine`)"
        if quarantined
        else "none",
    )
    grid.add_row("attribution", Text(info["attribution"]))
    return grid


def release(record: ReleaseList) -> None:
    """The current release and the installed ones."""
    info = record.get("current")
    error = record.get("error")
    if info is not None:
        stdout.print(Panel(_release_grid(info), title="current release", title_align="left"))
    elif error:
        stdout.print(Text(f"no current release: {error['code']}", style="red"))
    if record["installed"]:
        table = _table(
            "installed releases",
            [
                ("", None),
                ("release", 1),
                ("source sha256", 1),
                ("database sha256", 1),
                ("bytes", None),
            ],
        )
        for item in record["installed"]:
            table.add_row(
                "*" if item["current"] else "",
                item["release"],
                item["source_sha256"][:16] + "…",
                item["database_sha256"][:16] + "…",
                f"{item['bytes']:,}",
            )
        stdout.print(table)
