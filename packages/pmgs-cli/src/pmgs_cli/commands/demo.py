"""``pmgs demo``: shows pmgs working without any JPO data.

Until the builder and the store exist, the demo shows the code-notation parser of pmgs-core on
the notations users actually type; it grows into the full demo (build the embedded synthetic
sample, look up, search, browse) as those land.
"""

from __future__ import annotations

import json

import click

from pmgs_core import InvalidCodeError, parse_code

DEMO_INPUTS: tuple[tuple[str, str], ...] = (
    ("fi", "G06F3/048"),
    ("fi", "B60J   5/    00501B"),
    ("fi", "Ｂ２１Ｂ３７／００，２１０"),
    ("fi", "b21b1/00@a"),
    ("ipc", "G06F0003048000"),
    ("ipc", "G06F 3/048 (2006.01)"),
    ("fterm", "4C083 AA01"),
    ("fterm", "4c083aa"),
    ("fi", "G06F3/"),
)
"""Notations shown by the demo: fixed width, full width, lower case, WIPO, spaced, and one bad."""


def _rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for scheme, text in DEMO_INPUTS:
        try:
            code = parse_code(scheme, text)
        except InvalidCodeError as exc:
            rows.append(
                {"scheme": scheme, "input": text, "error": {"code": exc.code, "message": str(exc)}}
            )
            continue
        rows.append(
            {
                "scheme": scheme,
                "input": text,
                "canonical": code.canonical,
                "kind": code.kind,
                "version": code.version,
                "fixed_width": code.fixed_width(),
            }
        )
    return rows


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def demo(as_json: bool) -> None:
    """Show pmgs on built-in examples (no JPO data needed)."""
    rows = _rows()
    if as_json:
        click.echo(json.dumps({"notation_examples": rows}, ensure_ascii=False, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="pmgs: classification code notations (pmgs-core)")
    for column in ("scheme", "input", "canonical", "kind", "version", "fixed width"):
        table.add_column(column)
    for row in rows:
        error = row.get("error")
        if isinstance(error, dict):
            table.add_row(
                str(row["scheme"]), repr(row["input"]), f"[red]{error['code']}[/red]", "", "", ""
            )
            continue
        table.add_row(
            str(row["scheme"]),
            repr(row["input"]),
            f"[bold]{row['canonical']}[/bold]",
            str(row["kind"]),
            str(row["version"] or ""),
            repr(row["fixed_width"]),
        )
    Console().print(table)
