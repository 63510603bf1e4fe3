"""Rich output for people: panels and tables drawn from the pmgs-core records.

Only the human path imports this module (and with it Rich). Every text shown is source
evidence and is printed with markup disabled (``Text``/``escape``), so a source line that
looks like Rich markup or a terminal instruction is shown, never interpreted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

__all__ = ["document", "hierarchy", "lookup", "release", "search", "stdout"]

stdout = Console(highlight=False, soft_wrap=False)
"""The console of human output (stdout); progress and errors go to stderr."""


def _source(src: Any) -> str:
    if not src:
        return ""
    return f"{src['file']} {src['locator']}"


def _footer(record: Any) -> Text:
    release = record.get("release") or {}
    text = Text()
    if release:
        text.append(f"release {release.get('release_id')} ({release.get('reference_date')})  ")
    text.append(str(record.get("attribution", "")), style="dim")
    return text


def lookup(record: Any, parents: Any = None) -> None:
    """A classification: title, parents, versions, relations, documents and sources."""
    status = record["match_status"]
    title = f"{record['scheme'].upper()} {record['code']}"
    if record.get("edition"):
        title += f" (IPC {record['edition']})"
    parts: list[Any] = []
    head = Table.grid(padding=(0, 2))
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
    parts.append(head)
    if record["texts"]:
        texts = Table(title="texts", show_lines=False, expand=True)
        texts.add_column("type", no_wrap=True)
        texts.add_column("text")
        texts.add_column("source", style="dim")
        for item in record["texts"]:
            texts.add_row(
                f"{item['text_type']}/{item['language']}",
                Text(item["body"]),
                _source(item["source"]),
            )
        parts.append(texts)
    if parents and parents.get("items"):
        chain = Text()
        for index, item in enumerate(parents["items"]):
            chain.append(("  " * index) + f"{item['code']}  ", style="bold")
            chain.append((item.get("label") or "") + "\n")
        parts.append(Panel(chain, title="parents", title_align="left"))
    if record.get("available_versions"):
        versions = Table(title="versions")
        for column in ("version", "valid from", "valid to", "valid at release"):
            versions.add_column(column)
        for item in record["available_versions"]:
            versions.add_row(
                item["version"],
                item["valid_from"] or "",
                item["valid_to"] or "",
                "yes" if item["valid_at_release"] else "no",
            )
        parts.append(versions)
    if record["relations"]:
        relations = Table(title=f"relations ({record['relation_count']})")
        for column in ("kind", "direction", "target", "source"):
            relations.add_column(column)
        for item in record["relations"]:
            target = item["target"]
            name = f"{target['scheme']} {target['code']}"
            if target.get("edition"):
                name += f" ({target['edition']})"
            relations.add_row(item["kind"], item["direction"], name, _source(item["source"]))
        parts.append(relations)
        if record["relations_truncated"]:
            parts.append(
                Text(f"more: --relation-offset {record['next_relation_offset']}", style="yellow")
            )
    if record["documents"]:
        documents = Table(title="documents")
        documents.add_column("document id")
        documents.add_column("title")
        for item in record["documents"]:
            documents.add_row(item["document_id"], Text(item["title"]))
        parts.append(documents)
    parts.append(_footer(record))
    stdout.print(Panel(Group(*parts), title=escape(title), title_align="left"))


def _highlight(excerpt: str, terms: list[str]) -> Text:
    text = Text(excerpt)
    for term in terms:
        if term:
            text.highlight_regex(re.escape(term), style="bold black on yellow")
    return text


def _classification_label(hit: Any) -> str:
    label = f"{hit['scheme']} {hit['code']}"
    return label + (f" ({hit['edition']})" if hit.get("edition") else "")


_SEARCH_SECTIONS: Final[tuple[tuple[str, str, str, str, Callable[[Any], str]], ...]] = (
    ("classification", "classifications", "code", "--classification-offset", _classification_label),
    ("document", "documents", "document id", "--document-offset", lambda hit: hit["document_id"]),
)
"""Per result type: the key, the table title, the first column, the paging flag, the label."""


def search(page: Any) -> None:
    """Hits per type with the matched terms highlighted in each excerpt."""
    by_type = page["results_by_type"]
    stdout.print(
        Text(f"search: {page['query']}  mode: {page['search_mode']}", style="bold"),
    )
    for key, title, first_column, offset_flag, label in _SEARCH_SECTIONS:
        results = by_type.get(key)
        if results is None:
            continue
        terms = [t["term"] for t in results["terms"]]
        ranked = "order" in results  # the ranked path: hits carry score and matched_terms
        table = Table(title=f"{title} ({results['count']})", expand=True)
        table.add_column(first_column, no_wrap=True)
        if ranked:
            table.add_column("score", justify="right", no_wrap=True)
        table.add_column("matched text", overflow="fold", ratio=3)
        table.add_column("source", style="dim", overflow="fold", ratio=2)
        for hit in results["results"]:
            shown = hit.get("matched_terms", terms)
            for index, match in enumerate(hit["matches"]):
                first = label(hit) if index == 0 else ""
                score = [f"{hit['score']:.3f}" if index == 0 else ""] if ranked else []
                table.add_row(
                    first, *score, _highlight(match["excerpt"], shown), _source(match["source"])
                )
        stdout.print(table)
        if results["has_more"]:
            stdout.print(Text(f"more: {offset_flag} {results['next_offset']}", style="yellow"))
    stdout.print(_footer(page))


def document(page: Any) -> None:
    """A document page: its segments with headings and sources, and related codes."""
    parts: list[Any] = []
    for segment in page["segments"]:
        head = f"§{segment['section']}"
        if segment.get("page") is not None:
            head += f"  page {segment['page']}"
        if segment.get("heading"):
            head += f"  {segment['heading']}"
        parts.append(Text(head, style="bold"))
        parts.append(Text(segment["body"]))
        parts.append(Text(_source(segment["source"]), style="dim"))
    if page["segments_truncated"]:
        parts.append(Text(f"more: --segment-offset {page['next_segment_offset']}", style="yellow"))
    if page["related_classifications"]:
        related = ", ".join(
            f"{item['scheme']} {item['code']}" for item in page["related_classifications"]
        )
        parts.append(Text(f"related: {related}", style="cyan"))
    parts.append(_footer(page))
    title = f"{page['document_id']} — {page['title']}"
    stdout.print(Panel(Group(*parts), title=escape(title), title_align="left"))


def hierarchy(page: Any) -> None:
    """A hierarchy page as a table."""
    table = Table(title=f"{page['direction']} of {page['scheme']} {page['code']} ({page['count']})")
    for column in ("code", "edition", "version", "label", "status"):
        table.add_column(column)
    for item in page["items"]:
        table.add_row(
            item["code"],
            item["edition"] or "",
            item["version"] or "",
            Text(item["label"] or ""),
            item["record_status"],
        )
    stdout.print(table)
    if page["truncated"]:
        stdout.print(Text(f"more: --offset {page['next_offset']}", style="yellow"))
    stdout.print(_footer(page))


def quarantine(page: Any) -> None:
    """A page of quarantined records: where, why, and the raw text (shortened)."""
    table = Table(
        title=f"quarantined records {page['offset'] + 1}-{page['offset'] + page['count']} "
        f"of {page['total_count']}"
    )
    for column in ("group", "reason", "file", "locator", "raw"):
        table.add_column(column)
    for item in page["items"]:
        source = item["source"] or {}
        raw = item["raw"] or item["message"]
        table.add_row(
            item["data_group"],
            item["reason"],
            Text(str(source.get("file", ""))),
            str(source.get("locator", "")),
            Text(raw if len(raw) <= 100 else raw[:100] + "…"),
        )
    stdout.print(table)
    if page["has_more"]:
        stdout.print(f"more: --offset {page['next_offset']}")


def release(record: Any) -> None:
    """The current release and the installed ones."""
    info = record.get("current")
    if info is not None:
        grid = Table.grid(padding=(0, 2))
        for key in (
            "release_id",
            "reference_date",
            "schema_version",
            "builder_version",
            "source_manifest_sha256",
            "database",
        ):
            grid.add_row(key, str(info.get(key)))
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
        stdout.print(Panel(grid, title="current release", title_align="left"))
    elif record.get("error"):
        stdout.print(Text(f"no current release: {record['error']['code']}", style="red"))
    if record["installed"]:
        table = Table(title="installed releases")
        for column in ("", "release", "source sha256", "database sha256", "bytes"):
            table.add_column(column)
        for item in record["installed"]:
            table.add_row(
                "*" if item["current"] else "",
                item["release"],
                item["source_sha256"][:16] + "…",
                item["database_sha256"][:16] + "…",
                f"{item['bytes']:,}",
            )
        stdout.print(table)
