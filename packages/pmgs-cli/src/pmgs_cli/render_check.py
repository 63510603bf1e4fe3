"""Rich output of ``pmgs check`` and ``pmgs diff`` for people.

Kept apart from :mod:`pmgs_cli.render` (one capability a module). Every text from the
package (titles, targets) is printed as ``Text`` with markup disabled: evidence, never markup.
Evidence columns fold (``overflow="fold"``) instead of ending in ``…``: a Japanese title has
no space to wrap at, and a title or locator cut short is no longer evidence.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from pmgs_cli.render import stdout

__all__ = ["annotated", "check_table", "diff_page"]

_STYLES = {"present": "green", "changed": "yellow", "ambiguous_scheme": "yellow"}


def _target_line(target: Any) -> str:
    """One transfer target: canonical code, its status, where its chain leads, the record's
    own text when it is written otherwise (``G06F   1/    00``)."""
    code = target["code"] if target["code"] is not None else "?"
    line = f"\n  → {code} {target['status']}"
    ends = [found for found in target["leads_to"] if found != target["code"]]
    if ends:
        line += " ⇒ " + ", ".join(ends)
    if target["cycle"]:
        line += " (a cycle: not followed)"
    if target["depth_limited"]:
        line += " (not followed further)"
    if target["text"] != target["code"]:
        line += f" (record: {target['text']!r})"
    return line


def _evidence(item: Any) -> Text:
    """The message, then per revision record: action, date, titles, source, and one line
    per transfer target."""
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
        sources = record["sources"]
        line += f" [{sources[0]['file']} {', '.join(s['locator'] for s in sources)}]"
        line += "".join(_target_line(target) for target in record["targets"])
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
        table.add_column(name, overflow="fold")
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


def _marker_target(target: Any) -> str:
    """A target as pasteable code (the record's text only when no code reads it), with
    where an abolished target's chain leads."""
    if target["code"] is None:
        return repr(target["text"])
    ends = [found for found in target["leads_to"] if found != target["code"]]
    if ends:
        return f"{target['code']} ⇒ {', '.join(ends)}"
    if target["status"] not in ("present", "changed"):
        return f"{target['code']} ({target['status']}{', a cycle' if target['cycle'] else ''})"
    return str(target["code"])


def _marker(item: Any) -> str:
    targets = [_marker_target(t) for record in item["revisions"] for t in record["targets"]]
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
        counts.add_column(name, overflow="fold")
    for row in record["counts"]:
        counts.add_row(row["section"], row["scheme"], f"{row['count']:,}")
    stdout.print(counts)
    items = Table(
        title=f"items {record['offset'] + 1}-{record['offset'] + len(record['items'])}"
        f" of {record['total']:,}"
    )
    for name in ("section", "code", "detail"):
        items.add_column(name, overflow="fold")
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
