"""Progress display of ``pmgs setup`` / ``pmgs build`` on stderr.

On a terminal: one Rich progress bar per build phase and data group (files, bytes, rows,
steps), plus a line per setup stage. Elsewhere (logs, tests): one plain line per stage, so
stdout stays clean for ``--json`` (ADR 0003).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

__all__ = ["ProgressUI", "progress_ui"]


class ProgressUI:
    """Receives setup stages and build progress events and draws them on stderr."""

    def __init__(self, live: bool) -> None:
        self.live = live
        self._progress: Any = None
        self._tasks: dict[tuple[str, str | None], Any] = {}
        if live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=False,
            )

    def stage(self, name: str) -> None:
        """A setup stage begins."""
        if self._progress is not None:
            self._progress.console.print(f"[bold]setup[/bold] {name}")
        else:
            click.echo(f"setup: {name}", err=True)

    def event(self, event: Any) -> None:
        """A build progress event (``pmgs_build.ProgressEvent``)."""
        if self._progress is None:
            return
        key = (event.phase, event.data_group)
        task = self._tasks.get(key)
        description = event.phase + (f" {event.data_group}" if event.data_group else "")
        if task is None:
            self._complete()  # phases and data groups run one after another
            task = self._progress.add_task(description, total=event.total, unit=event.unit)
            self._tasks[key] = task
        self._progress.update(task, completed=event.done, total=event.total)

    def _complete(self) -> None:
        """Show every bar begun so far as full: a build reports a phase's start (``finalize
        0/1``) but not always its end, and the next phase beginning means it ended."""
        for task in self._progress.tasks:
            if task.total is not None and task.completed < task.total:
                self._progress.update(task.id, completed=task.total)

    def __enter__(self) -> ProgressUI:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._progress is not None:
            if exc_type is None:
                self._complete()
            self._progress.stop()


@contextmanager
def progress_ui(enabled: bool = True) -> Iterator[ProgressUI]:
    """A :class:`ProgressUI`, live only when stderr is a terminal."""
    ui = ProgressUI(live=enabled and sys.stderr.isatty())
    with ui:
        yield ui
