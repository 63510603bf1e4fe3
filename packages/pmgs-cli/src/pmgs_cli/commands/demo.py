"""``pmgs demo``: pmgs end to end on the embedded synthetic sample, without any JPO data.

The demo goes through the real ``setup_release`` transaction (the same one ``pmgs setup``
uses) into ``--data-dir`` or a per-user directory under the system temporary directory, then
shows a lookup, a 2-character search, a hierarchy and a document page, and prints the commands
to try next. Running it again finds the release ``already_ready`` and rebuilds nothing (ADR 0003).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from pmgs_cli.common import CliFailure, emit_json, handle_errors, language_option
from pmgs_cli.exits import EXIT_OK

__all__ = ["DEMO_TWO_CHARACTER_WORD", "default_demo_dir", "demo"]

DEMO_TWO_CHARACTER_WORD = "電池"
"""The 2-character word the demo searches (served by the bigram index, not a scan)."""


def default_demo_dir() -> Path:
    """``<tmp>/pmgs-demo-<uid>``: stable across runs so the printed next commands work."""
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"pmgs-demo-{uid}"


def _check_owned(directory: Path) -> None:
    """Refuse a shared temporary directory that another user created first."""
    if directory.exists() and hasattr(os, "getuid") and directory.stat().st_uid != os.getuid():
        raise CliFailure(
            "SOURCE_INVALID",
            "the demo directory belongs to another user; pass --data-dir",
            exit_code=5,
        )


def _program() -> str:
    """How to start this ``pmgs`` from the user's shell: ``uv run pmgs`` under ``uv run`` (the
    venv's ``bin`` is on PATH only inside it), ``pmgs`` when PATH finds this installation,
    else this Python with ``-m pmgs_cli``."""
    if os.environ.get("UV"):
        return "uv run pmgs"
    found = shutil.which("pmgs")
    here = Path(sys.executable).parent
    if found is not None and Path(found).parent == here:
        return "pmgs"
    return f'"{sys.executable}" -m pmgs_cli'


def _next_commands(root: Path, code: str, scheme: str, document_id: str | None) -> list[str]:
    data = f'--data-dir "{root}"'
    pmgs = _program()
    commands = [
        f'{pmgs} lookup {scheme} "{code}" {data}',
        f'{pmgs} lookup {scheme} "{code}" {data} --json',
        f'{pmgs} search "{DEMO_TWO_CHARACTER_WORD}" {data}',
        f'{pmgs} search "{DEMO_TWO_CHARACTER_WORD}" --content-type document {data} --json',
        f'{pmgs} hierarchy children {scheme} "{code}" {data}',
    ]
    if document_id:
        commands.append(f'{pmgs} document "{document_id}" {data}')
    commands += [f"{pmgs} release {data}", f"{pmgs} doctor {data}"]
    return commands


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where to install the sample (default: a per-user temporary directory).",
)
@language_option
@click.option("--json", "as_json", is_flag=True, help="Print every record as one JSON object.")
@click.option("--debug", is_flag=True)
@handle_errors
def demo(data_dir: Path | None, language: str, as_json: bool, debug: bool) -> None:
    """Install the embedded synthetic sample and show lookup, search, hierarchy and a document."""
    from pmgs_build import choose_samples, sample_package_path, setup_release
    from pmgs_cli.progress import progress_ui
    from pmgs_core import PMGSStore

    root = data_dir if data_dir is not None else default_demo_dir()
    _check_owned(root)
    with progress_ui() as ui:
        report = setup_release(sample_package_path(), root, progress=ui.event, on_stage=ui.stage)
    with PMGSStore.open(data_dir=root) as store:
        samples = choose_samples(store)
        record = store.lookup(samples.scheme, samples.code, language=language)
        word = DEMO_TWO_CHARACTER_WORD
        search_page = store.search_pmgs(word, language=language, limit=5)
        classification_hits = search_page["results_by_type"].get("classification")
        if classification_hits is not None and classification_hits["count"] == 0:
            word = samples.term2
            search_page = store.search_pmgs(word, language=language, limit=5)
        parents = store.hierarchy(
            "parents",
            record["scheme"],
            record["code"],
            edition=record["edition"],
            language=language,
        )
        document_page: Any = None
        if samples.document_id is not None:
            document_page = store.get_document(samples.document_id, segment_limit=3)
    next_commands = _next_commands(root, record["code"], record["scheme"], samples.document_id)
    if as_json:
        emit_json(
            {
                "record_type": "demo",
                "data_dir": str(root),
                "setup": report.to_dict(),
                "lookup": record,
                "search": search_page,
                "hierarchy": parents,
                "document": document_page,
                "next_commands": next_commands,
            }
        )
        sys.exit(EXIT_OK)
    from rich.rule import Rule

    from pmgs_cli import render

    console = render.stdout
    console.print(Rule(f"pmgs demo — setup {report.status} ({report.release}, synthetic data)"))
    console.print(f"data directory: {root}")
    console.print(Rule(f"1. lookup {record['scheme']} {record['code']}"))
    render.lookup(record, parents=parents)
    console.print(Rule(f"2. search {word!r} (2 characters: bigram index)"))
    render.search(search_page)
    console.print(Rule(f"3. hierarchy: parents of {record['code']}"))
    render.hierarchy(parents)
    if document_page is not None:
        console.print(Rule(f"4. document {document_page['document_id']}"))
        render.document(document_page)
    console.print(Rule("next"))
    for command in next_commands:
        click.echo(f"  {command}")
    sys.exit(EXIT_OK)
