"""Rich output of ``pmgs check`` and ``pmgs diff`` for people.

Kept apart from :mod:`pmgs_cli.render` (one capability a module). Every text from the
package (titles, targets) is printed as ``Text`` with markup disabled: evidence, never markup.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from pmgs_cli.render import stdout

__all__ = ["annotated", "check_table", "diff_page"]

_STYLES = {"present": "green", "changed": "yellow", "ambiguous_scheme": "yellow"}


def _evidence(item: Any) -> Text:
    """The message, then one line per revision record: action, date, targets, source."""
    text = Text(str(item["message"]))
    for record in item["revisions"]:
        line = f"\n{record['action']}"
        if record["date"]:
            line += f" {record['date']}"
        old, new = record["old_title"], record["new_title"]
        if old and new:
            line += f" 「{old}」→「{new}」"
        elif old or new or record["title"]:
            line += f" 「{old or new or record['title']}」"
        if record["targets"]:
            line += " → " + ", ".join(record["targets"])
        sources = record["sources"]
        line += f" [{sources[0]['file']} {', '.join(s['locator'] for s in sources)}]"
        text.append(line, style="dim")
    return text


def _summary(record: Any) -> Text:
    counts = ", ".join(f"{n} {status}" for status, n in record["status_counts"].items())
    release = record["release"]
    return Text(
        f"{record['code_count']} codes ({counts}); {record['needs_attention']} need attention. "
        f"Release {release['release_id']} ({release['reference_date']}). {record['attribution']}"
    )


def check_table(record: Any) -> None:
    table = Table(show_lines=False)
    for name in ("#", "at", "code", "scheme", "status", "evidence"):
        table.add_column(name)
    for item in record["items"]:
        shown = item["code"] if item["code"] and item["match"] == "normalised" else None
        code = Text(item["text"]) + (Text(f"\n= {shown}", style="dim") if shown else Text())
        scheme = item["scheme"] or "/".join(item["candidate_schemes"]) or "-"
        table.add_row(
            str(item["index"] + 1),
            f"{item['line']}:{item['column']}",
            code,
            scheme,
            Text(item["status"], style=_STYLES.get(item["status"], "red")),
            _evidence(item),
        )
    stdout.print(table)
    stdout.print(_summary(record))


def _marker(item: Any) -> str:
    targets = [t for record in item["revisions"] for t in record["targets"]]
    return f" ⟦{item['status']}{': ' + ', '.join(targets) if targets else ''}⟧"


def annotated(text: str, record: Any) -> None:
    """The input unchanged except for a marker after each code that needs attention."""
    inserts: list[tuple[int, str]] = []
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    for item in record["items"]:
        if item["status"] == "present":
            continue
        if item["offset"] >= 0:
            inserts.append((item["offset"] + len(item["text"]), _marker(item)))
        else:  # a CSV cell: at the end of its line
            end = (
                starts[item["line"]]
                - len(lines[item["line"] - 1])
                + len(lines[item["line"] - 1].rstrip("\r\n"))
            )
            inserts.append((end, _marker(item)))
    out = text
    for position, marker in sorted(inserts, reverse=True):
        out = out[:position] + marker + out[position:]
    stdout.print(Text(out.rstrip("\n")))
    stdout.print(_summary(record))


def diff_page(record: Any) -> None:
    counts = Table(title="changes by section")
    for name in ("section", "scheme", "count"):
        counts.add_column(name)
    for row in record["counts"]:
        counts.add_row(row["section"], row["scheme"], f"{row['count']:,}")
    stdout.print(counts)
    items = Table(
        title=f"items {record['offset'] + 1}-{record['offset'] + len(record['items'])}"
        f" of {record['total']:,}"
    )
    for name in ("section", "code", "detail"):
        items.add_column(name)
    for item in record["items"]:
        if item["target"] is not None:
            detail = f"→ {item['target']['code']} ({item['target']['scheme']})"
        elif item["section"] == "moved":
            detail = f"parent {item['old_parent']} → {item['new_parent']}"
        elif item["section"] == "retitled":
            detail = f"「{item['old_title']}」→「{item['new_title']}」"
        else:
            detail = item["new_title"] or item["old_title"] or ""
        items.add_row(item["section"], f"{item['code']} ({item['scheme']})", Text(detail))
    if record["items"]:
        stdout.print(items)
    old, new = record["from_release"], record["to_release"]
    tail = f"; next page: --offset {record['next_offset']}" if record["truncated"] else ""
    stdout.print(Text(f"{old['release_id']} → {new['release_id']}{tail}. {record['attribution']}"))
