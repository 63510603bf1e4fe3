"""``pmgs notes``: the user's own collection (notes, search formulas, excerpts).

It lives in its own writable file beside the release (``<data dir>/collection/
collection.sqlite``); nothing here touches the release database. What it holds is the user's
text, never JPO evidence, and every record says ``source: user_collection`` (ADR 0016).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, cast

import click

from pmgs_cli.common import (
    EXIT_OK,
    CliFailure,
    emit_json,
    file_options,
    paging_options,
    read_stdin,
)

if TYPE_CHECKING:
    from pmgs_core import (
        Collection,
        CollectionCategories,
        CollectionDocument,
        CollectionDocumentList,
        CollectionDocumentPage,
        CollectionDocumentPut,
        CollectionSearch,
    )

__all__ = ["notes"]

COLLECTION_ENV_VAR = "PMGS_COLLECTION"
_MAX_FILE_BYTES = 4_000_000  # a 1,000,000-character note in UTF-8 is at most 4 MB (stdin)

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


@dataclass(frozen=True)
class NotesContext:
    """Where the collection is, and how to print; handed to each subcommand as ``n``."""

    collection: Path | None
    data_dir: Path | None
    as_json: bool

    def path(self) -> Path:
        """``--collection``, else ``--data-dir``, else ``$PMGS_COLLECTION``, else the default
        data directory's collection file."""
        from pmgs_core import COLLECTION_FILE, default_data_dir

        if self.collection is not None:
            return self.collection
        if self.data_dir is not None:
            return self.data_dir / COLLECTION_FILE
        env = os.environ.get(COLLECTION_ENV_VAR)
        if env:
            return Path(env)
        return default_data_dir() / COLLECTION_FILE

    def open(self) -> Collection:
        from pmgs_core import Collection

        return Collection(self.path())

    def finish(self, record: R, human: Callable[[R], None]) -> NoReturn:
        if self.as_json:
            emit_json(record)
        else:
            human(record)
        sys.exit(EXIT_OK)


def _notes_options(func: F) -> F:
    @functools.wraps(func)
    def inject(
        *args: Any,
        collection: Path | None,
        data_dir: Path | None,
        as_json: bool,
        debug: bool,
        **kw: Any,
    ) -> Any:
        from pmgs_core import PMGSQueryError

        try:
            return func(*args, n=NotesContext(collection, data_dir, as_json), **kw)
        except PMGSQueryError as error:
            if error.code != "DOCUMENT_NOT_FOUND":
                raise
            # In the collection a "document" is a note: its ids come from `notes list`, not
            # from a search of the release (the store's hint for this code).
            raise CliFailure(
                error.code,
                error.message,
                details=error.details,
                hint="Note ids are listed by `pmgs notes list` (a removed note is gone; "
                "`pmgs notes search TEXT` finds notes by their words).",
            ) from None

    return cast(
        F,
        file_options(
            inject,
            (
                "--collection",
                f"The collection file itself (else --data-dir, ${COLLECTION_ENV_VAR}, default).",
            ),
            data_dir_help="Data directory whose collection/collection.sqlite to use.",
            json_help="Print the record as JSON.",
        ),
    )


def _echo_document(doc: CollectionDocument) -> None:
    category = doc["category"] or "-"
    click.echo(f"#{doc['id']}  {doc['path']}  [{category}]  {doc['chunk_count']} item(s)")


@click.group()
def notes() -> None:
    """Your own notes beside the release: add, import, list, show, search, remove.

    The collection is a separate, writable file (never the release database). Its texts are
    yours, not JPO evidence: search results say source "user_collection".
    """


def _read_text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliFailure(
            "INVALID_CONTENT", f"{what} is not UTF-8 text", details={"argument": "file"}
        ) from exc


@notes.command("add")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True))
@click.option(
    "--path",
    "logical",
    default=None,
    help="Logical path (default: FILE's absolute path, the note `notes watch` keeps for it).",
)
@click.option("--category", default=None, help="Category label.")
@click.option("--mime", default=None, help="MIME type (default: from the path's extension).")
@_notes_options
def add(
    file: Path, logical: str | None, category: str | None, mime: str | None, n: NotesContext
) -> None:
    """Make the note at --path hold FILE's text (FILE '-' reads stdin).

    Without --path the note is keyed by FILE's absolute path, as `notes watch` keys it: the
    same file added by hand and watched is one note.

    Adding the same text again changes nothing; a changed text replaces the old one.
    """
    from pmgs_core import watched_path

    if str(file) == "-":
        if logical is None:
            raise CliFailure("INVALID_PATH", "--path is required when reading stdin")
        data = read_stdin(_MAX_FILE_BYTES + 1)
    else:
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise CliFailure(
                "INVALID_ARGUMENT", "FILE cannot be read", details={"argument": "file"}
            ) from exc
        logical = logical if logical is not None else watched_path(file)
    if len(data) > _MAX_FILE_BYTES:  # more than 1,000,000 characters, whatever they are
        raise CliFailure(
            "ITEM_TOO_LARGE",
            f"FILE is larger than {_MAX_FILE_BYTES:,} bytes (more than 1,000,000 characters)",
            details={"argument": "file", "max_bytes": _MAX_FILE_BYTES},
        )
    with n.open() as col:
        record = col.put_document(_read_text(data, "FILE"), logical, mime, category)

    def human(r: CollectionDocumentPut) -> None:
        click.echo(f"{r['status']}: ", nl=False)
        _echo_document(r["document"])

    n.finish(record, human)


@notes.command("import")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--category", default=None, help="Category of every imported note.")
@click.option("--prefix", default="", help="Put before each relative path (e.g. 'case-12/').")
@_notes_options
def import_(directory: Path, category: str | None, prefix: str, n: NotesContext) -> None:
    """Import every text file under DIRECTORY, one note per file.

    Idempotent: a file whose path and text are already in the collection is left alone, a
    changed one is replaced. Binary, non-UTF-8, oversized and linked files are skipped and
    listed. Each file is its own transaction: an interrupted import keeps the files done.
    """
    from pmgs_core import FolderSync, text_files

    files = list(text_files(directory))
    batch = FolderSync()
    with n.open() as col, col.tracking("import", total=len(files)) as progress:
        bar = _ImportBar(len(files))
        for done, (full, relative) in enumerate(files, start=1):
            batch.put(col, full, prefix + relative, category)
            progress(done)
            bar.advance(relative)
        bar.close()
    counts = {
        "added": batch.added,
        "replaced": batch.replaced,
        "unchanged": batch.unchanged,
        "skipped": len(batch.skipped),
    }
    skipped = batch.skipped
    record = {
        "record_type": "collection_import",
        **counts,
        "files": len(files),
        "skipped_files": skipped,
    }

    def human(r: dict[str, Any]) -> None:
        click.echo(
            f"{r['files']} file(s): {r['added']} added, {r['replaced']} replaced, "
            f"{r['unchanged']} unchanged, {r['skipped']} skipped"
        )
        for entry in r["skipped_files"]:
            click.echo(f"  skipped {entry['path']}: {entry['reason']}", err=True)

    n.finish(record, human)


class _ImportBar:
    """A Rich progress bar on stderr when it is a terminal, nothing otherwise."""

    def __init__(self, total: int) -> None:
        self._progress: Any = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("import"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[name]}"),
                console=Console(stderr=True),
            )
            self._progress.start()
            self._task = self._progress.add_task("import", total=total, name="")

    def advance(self, name: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, name=name[-40:])

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


@notes.command("list")
@click.option("--category", default=None, help="Only this category.")
@click.option("--limit", type=int, default=20, show_default=True, help="Notes per page (1-100).")
@click.option("--page", type=int, default=1, show_default=True, help="Page number, from 1.")
@_notes_options
def list_(category: str | None, limit: int, page: int, n: NotesContext) -> None:
    """List the notes page by page, oldest first."""
    with n.open() as col:
        record = col.list_documents(limit, page, category)

    def human(r: CollectionDocumentList) -> None:
        for doc in r["items"]:
            _echo_document(doc)
        click.echo(f"page {r['page']} of {r['total_pages']} ({r['total_count']} note(s))")

    n.finish(record, human)


@notes.command("show")
@click.argument("note")
@paging_options(limit=20, help_text="Items per page (1-100).")
@_notes_options
def show(note: str, limit: int, offset: int, n: NotesContext) -> None:
    """Show a note (by id, or by its path) with its items."""
    with n.open() as col:
        if note.isascii() and note.isdigit():
            record = col.get_document(int(note), limit, offset)
        else:
            record = col.find_document(note, limit, offset)

    def human(r: CollectionDocumentPage) -> None:
        _echo_document(r["document"])
        for item in r["items"]:
            click.echo(f"--- item {item['id']} (position {item['position']})")
            click.echo(item["content"])
        if r["has_more"]:
            click.echo(f"... more items: --offset {r['next_offset']}")

    n.finish(record, human)


@notes.command("rm")
@click.argument("ids", nargs=-1, type=int, required=True)
@click.option("--item", "items", is_flag=True, help="IDS are item ids, not note ids.")
@_notes_options
def rm(ids: tuple[int, ...], items: bool, n: NotesContext) -> None:
    """Remove notes (or, with --item, single items) by id."""
    with n.open() as col:
        results = [col.delete_item(i) if items else col.delete_document(i) for i in ids]
    record = {"record_type": "collection_deleted", "deleted": results}

    def human(r: dict[str, Any]) -> None:
        for entry in r["deleted"]:
            click.echo(f"removed {'item' if items else 'note'} {entry['id']}")

    n.finish(record, human)


@notes.command("search")
@click.argument("text")
@click.option("--category", default=None, help="Only notes of this category.")
@click.option("--limit", type=int, default=10, show_default=True, help="Results (1-100).")
@click.option(
    "--min-score", type=float, default=0.3, show_default=True, help="0-1 (vector or lexical)."
)
@click.option("--per-item", is_flag=True, help="One result per item, not per note.")
@_notes_options
def search(
    text: str, category: str | None, limit: int, min_score: float, per_item: bool, n: NotesContext
) -> None:
    """Search your notes: by their words (BM25) and by meaning learnt from the notes
    themselves (LSA, once 20 or more items exist); not the official texts. Each result says
    which of the two matched it."""
    with n.open() as col:
        record = col.search_text(text, limit, min_score, not per_item, category)

    def human(r: CollectionSearch) -> None:
        if not r["items"]:
            click.echo("no notes match")
        for item in r["items"]:
            click.echo(
                f"{item['similarity']:.2f} {item['match']:<7}  #{item['document_id']}/{item['id']}"
                f"  {item['path']}  [{', '.join(item['matched_terms'])}]"
            )
            click.echo("    " + item["content"].replace("\n", " ")[:200])

    n.finish(record, human)


@notes.command("categories")
@_notes_options
def categories(n: NotesContext) -> None:
    """List the categories of your notes with their counts."""
    with n.open() as col:
        record = col.list_categories()

    def human(r: CollectionCategories) -> None:
        for entry in r["categories"]:
            click.echo(f"{entry['category']}\t{entry['document_count']}")
        click.echo(f"(no category)\t{r['uncategorised_document_count']}")

    n.finish(record, human)


@notes.command("retrain")
@_notes_options
def retrain(n: NotesContext) -> None:
    """Rebuild the search index and retrain the LSA space from every note (one transaction;
    readers keep working meanwhile). Below 20 items search stays lexical."""
    with n.open() as col:
        record = col.lsa_retrain()
    n.finish(
        record,
        lambda r: click.echo(f"indexed {r['items_indexed']} item(s), {r['dimensions']} dimensions"),
    )


notes.add_command(retrain, "reindex")


@notes.command("watch")
@click.argument(
    "directories",
    nargs=-1,
    required=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
)
@click.option("--category", default=None, help="Category of every watched note.")
@_notes_options
def watch(directories: tuple[Path, ...], category: str | None, n: NotesContext) -> None:
    """Keep notes in step with the text files under DIRECTORIES until Ctrl-C.

    A first pass stores new and changed files and removes the notes of files that are gone;
    then every file created, edited, moved or deleted is reflected at once. A note's path is
    its file's absolute path. Binary, non-UTF-8, oversized and linked files are skipped and
    listed. With --json: one JSON line per batch, then the totals.
    """
    import signal
    import threading

    from pmgs_core import watch_folders

    stop = threading.Event()
    for name in ("SIGINT", "SIGTERM"):
        signal.signal(getattr(signal, name), lambda *_: stop.set())
    status = _WatchStatus([str(d) for d in directories], n.as_json)
    try:
        with n.open() as col:
            watch_folders(col, dict.fromkeys(directories, category), stop, status.report)
    finally:
        status.close()
    n.finish(status.totals(), lambda r: click.echo(status.summary()))


class _WatchStatus:
    """The running totals of ``notes watch``: a Rich live line on a terminal, else a line per
    batch that changed something (JSON lines with --json)."""

    _KEYS = ("added", "replaced", "unchanged", "deleted", "skipped")

    def __init__(self, folders: list[str], as_json: bool) -> None:
        self.folders = folders
        self.as_json = as_json
        self.counts = dict.fromkeys(self._KEYS, 0)
        self.skipped: list[dict[str, str]] = []
        self._live: Any = None
        if not as_json and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self.summary(), console=Console(stderr=True), transient=False)
            self._live.start()

    def summary(self) -> str:
        counts = ", ".join(f"{self.counts[k]} {k}" for k in self._KEYS)
        return f"watching {len(self.folders)} folder(s): {counts}"

    def report(self, record: dict[str, Any]) -> None:
        for key in self._KEYS:
            self.counts[key] += record[key]
        self.skipped += record["skipped_files"]
        if self.as_json:
            click.echo(json.dumps(record, ensure_ascii=False))
        elif self._live is not None:
            self._live.update(self.summary())
        elif any(record[k] for k in ("added", "replaced", "deleted", "skipped")):
            click.echo(self.summary())
        if not self.as_json:
            for entry in record["skipped_files"]:
                click.echo(f"  skipped {entry['path']}: {entry['reason']}", err=True)

    def totals(self) -> dict[str, Any]:
        return {
            "record_type": "collection_watch_totals",
            "folders": self.folders,
            **self.counts,
            "skipped_files": self.skipped,
        }

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
