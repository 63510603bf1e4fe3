"""``REFERENCE/IPC_TEIGI``: the IPC definition PDFs, one document per code, one segment per page.

The code comes from the file name alone (``pmgs_core.building.ipc_code_from_pdf_name``); the text is
what pdfium extracts per page. A page without text is a warning and no segment, and later
pages keep their numbers, because users cite pages. Extraction runs in a process pool that
only ever sees bytes and answers in input order; a worker that dies or hangs
(:data:`DEFAULT_PDF_TIMEOUT`) is pinned on its file (ADR 0007, ADR 0014).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import dataclass
from typing import Final

import pypdfium2 as pdfium  # type: ignore[import-untyped]  # ships no py.typed marker
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, FileResult
from pmgs_build.worker_processes import WorkerContext as _WorkerContext
from pmgs_core import ClassificationCode, InvalidCodeError
from pmgs_core.building import ipc_code_from_pdf_name

__all__ = [
    "DEFAULT_PDF_TIMEOUT",
    "POOL_MIN_FILES",
    "available_cores",
    "extract_pages",
    "parse_ipc_definition",
    "parse_ipc_definitions",
]

POOL_MIN_FILES: Final = 8
"""Fewer files than this are read in the main process: starting workers costs more."""

IN_FLIGHT_PER_WORKER: Final = 4
"""Files handed to the pool but not yet written, per worker: enough to keep every worker busy
while the main process writes, few enough that memory does not grow with the package."""

DEFAULT_PDF_TIMEOUT: Final = 60.0
"""Seconds one PDF may take in a worker before the worker is killed and the file is
``PDF_TIMEOUT``. The slowest real file takes well under a second; a minute is room for a slow,
loaded machine and still ends a hang (pdfium has no cancellation of its own)."""

_HANG_ENV: Final = "PMGS_TEST_PDF_HANG"
"""Test hook (reliability suite): a worker given a PDF whose bytes contain this variable's
value sleeps instead of extracting, as pdfium stuck on a hostile file would. No real PDF
known to hang pdfium was found, so the hang is simulated; it never applies in this process."""

logger = logging.getLogger("pmgs_build")

_TITLE: Final = "IPC定義 {code}"

Extractor = Callable[[bytes], list[str]]
"""Bytes of one PDF → the text of each page. Must be picklable (a module-level function)."""

_Outcome = tuple[list[str] | None, str | None, str]
"""(page texts, None, "") or (None, why the file could not be read, its issue code)."""


def available_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's total)."""
    count: int | None
    if sys.version_info >= (3, 13):
        count = os.process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    else:
        count = os.cpu_count()
    return max(1, count or 1)


def extract_pages(data: bytes) -> list[str]:
    """The text of every page of a PDF, as pdfium extracts it (raises ``PdfiumError``)."""
    document = pdfium.PdfDocument(data)
    try:
        texts: list[str] = []
        for index in range(len(document)):
            page = document[index]
            try:
                textpage = page.get_textpage()
                try:
                    texts.append(textpage.get_text_range())
                finally:
                    textpage.close()
            finally:
                page.close()
        return texts
    finally:
        document.close()


def _ping() -> bool:
    """A task that needs nothing but a started worker."""
    return True


def _succeeded(future: Future[_Outcome]) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


def _run(extract: Extractor, data: bytes) -> _Outcome:
    """Extract, turning any failure into a message: library exceptions may not pickle back."""
    try:
        return extract(data), None, ""
    except pdfium.PdfiumError as error:
        if getattr(error, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            return None, f"the PDF is encrypted ({error})", IssueCode.PDF_ENCRYPTED
        return None, f"{type(error).__name__}: {error}", IssueCode.PDF_UNREADABLE
    except Exception as error:  # whatever pdfium raises, the file cannot be read
        return None, f"{type(error).__name__}: {error}", IssueCode.PDF_UNREADABLE


def _run_in_worker(extract: Extractor, data: bytes) -> _Outcome:
    """:func:`_run` in a pool worker, where the hang of the test hook may be simulated."""
    marker = os.environ.get(_HANG_ENV)
    if marker and marker.encode() in data:
        time.sleep(3600)
    return _run(extract, data)


def _timed_out(seconds: float) -> _Outcome:
    return (
        None,
        f"text extraction took more than {seconds:g} s; its worker was killed",
        IssueCode.PDF_TIMEOUT,
    )


def _settled(outcome: _Outcome) -> Future[_Outcome]:
    future: Future[_Outcome] = Future()
    future.set_result(outcome)
    return future


def _kill_workers(executor: ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes (a hung pdfium call cannot be interrupted otherwise).

    ``ProcessPoolExecutor`` has no public way to do this before Python 3.14; its process table
    is read defensively, and the pool is broken afterwards (its futures fail), as after a
    crash.
    """
    processes = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.kill()
        except (OSError, ValueError):
            continue  # already gone, or already closed


@dataclass(slots=True)
class _Pending:
    """A file on its way through the window, in input order."""

    source: SourceFile
    code: ClassificationCode | None
    name_error: str | None
    data: bytes | None = None
    future: Future[_Outcome] | None = None
    submitted: float = 0.0


def _code_of(source: SourceFile) -> tuple[ClassificationCode | None, str | None]:
    try:
        return ipc_code_from_pdf_name(source.name), None
    except InvalidCodeError as error:
        return None, str(error)


class _Pool:
    """A spawn-context process pool that survives a dying worker (see :meth:`result`).

    Spawn, not fork: the parent holds an open SQLite connection (and possibly threads), which
    a forked child would inherit in an undefined state; the workers do not import the
    caller's main module (:class:`_WorkerProcess`). Should no worker start all the same, the
    text is extracted in this process instead of failing every file.
    """

    def __init__(self, workers: int, extract: Extractor, timeout: float | None = None) -> None:
        self._workers = workers
        self._extract = extract
        self._timeout = timeout
        self._context = _WorkerContext()
        self._executor: ProcessPoolExecutor | None = self._new(workers)
        self._last_settled = time.monotonic()

    def _new(self, workers: int) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=self._context)
        if self._timeout is not None:
            # Start a worker before any file's time runs: a spawned interpreter may take
            # seconds to start on a loaded machine, which must not count against a file.
            # If no worker can start, that is found and handled where results are taken.
            with suppress(BrokenProcessPool):
                executor.submit(_ping).result()
        return executor

    def _wait(self, pending: _Pending) -> float | None:
        """Seconds left to wait for ``pending``, the oldest unfinished file.

        Its time runs from when it could first run: submitted, and every older file settled
        (tasks start in submission order). That start is never earlier than the real one, so
        a file is never killed early; it may be given a little more than the limit.
        """
        if self._timeout is None:
            return None
        began = max(pending.submitted, self._last_settled)
        return max(0.0, began + self._timeout - time.monotonic())

    def submit(self, data: bytes) -> Future[_Outcome]:
        future: Future[_Outcome]
        if self._executor is None:
            future = Future()
            future.set_result(_run(self._extract, data))
            return future
        try:
            return self._executor.submit(_run_in_worker, self._extract, data)
        except BrokenProcessPool as error:
            future = Future()
            future.set_exception(error)
            return future

    def result(self, head: _Pending, window: deque[_Pending]) -> _Outcome:
        """The head's outcome, also after a crash of any worker or a hang on the head.

        A dead worker breaks the whole pool, and every unfinished future fails alike. So each
        unfinished file of the window is then read again, one at a time, in a single fresh
        worker: a crash there lands on the file that caused it, and the others are kept. A
        head that outlives the time limit is settled as timed out, the workers are killed,
        and the rest of the window is read again the same way.
        """
        try:
            outcome = self._result(head, window)
        finally:
            self._last_settled = time.monotonic()
        return outcome

    def _result(self, head: _Pending, window: deque[_Pending]) -> _Outcome:
        if head.future is None:
            raise ValueError("the head of the window was never submitted")
        try:
            return head.future.result(timeout=self._wait(head))
        except BrokenProcessPool:
            pass
        except TimeoutError:
            if self._executor is not None:
                _kill_workers(self._executor)
            head.future = _settled(_timed_out(self._timeout or 0.0))
        self.close()  # waits until every future of the broken pool is settled
        first = self._new(1)
        alone: ProcessPoolExecutor | None = first
        try:
            first.submit(_ping).result()
        except BrokenProcessPool:
            logger.warning(
                "PDF text workers cannot start (is the main module importable, its work under "
                "`if __name__ == '__main__'`?); extracting in this process"
            )
            first.shutdown(wait=True, cancel_futures=True)
            alone = None
        for pending in window:
            if pending.future is None or pending.data is None or _succeeded(pending.future):
                continue
            if alone is None:
                outcome = _run(self._extract, pending.data)
            else:
                try:
                    outcome = alone.submit(_run_in_worker, self._extract, pending.data).result(
                        timeout=self._timeout
                    )
                except BrokenProcessPool:
                    outcome = (
                        None,
                        "the text extractor's process died while reading this file",
                        IssueCode.PDF_UNREADABLE,
                    )
                    alone.shutdown(wait=True, cancel_futures=True)
                    alone = self._new(1)
                except TimeoutError:
                    outcome = _timed_out(self._timeout or 0.0)
                    _kill_workers(alone)
                    alone.shutdown(wait=True, cancel_futures=True)
                    alone = self._new(1)
            pending.future = _settled(outcome)
        if alone is None:
            self._executor = None
        else:
            alone.shutdown(wait=True, cancel_futures=True)
            self._executor = self._new(self._workers)
        return head.future.result()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)


def _write(
    ctx: BuildContext,
    pending: _Pending,
    outcome: _Outcome | None,
    codes: dict[str, str],
) -> FileResult:
    """Report and write one file; called in input order only."""
    source, code = pending.source, pending.code
    if code is None:
        ctx.log.error(
            IssueCode.PDF_NAME_INVALID,
            f"the file name does not spell an IPC code: {pending.name_error}",
            source.path,
        )
        return FileResult()
    canonical = code.canonical
    first = codes.setdefault(canonical, source.path)
    if first != source.path:
        ctx.log.error(
            IssueCode.PDF_NAME_INVALID,
            f"the file name spells {canonical}, as {first} already does",
            source.path,
        )
        return FileResult()
    texts, problem, code_of_problem = (
        outcome if outcome is not None else (None, "not read", IssueCode.PDF_UNREADABLE)
    )
    if texts is None:
        ctx.log.error(
            code_of_problem or IssueCode.PDF_UNREADABLE,
            f"cannot read the PDF: {problem}",
            source.path,
        )
        return FileResult()
    if not texts:
        ctx.log.error(IssueCode.PDF_UNREADABLE, "the PDF has no pages", source.path)
        return FileResult()
    document = ctx.document(
        f"ipc_definition:{canonical}",
        "ipc_definition",
        "ja",
        _TITLE.format(code=canonical),
        source=source,
        locator="page:1",
    )
    concept = ctx.registry.reference(
        "ipc", "8U", canonical, code.kind, source_file_id=source.id, locator="page:1"
    )
    ctx.add_link(document, concept, "subject", source, "page:1")
    for number, text in enumerate(texts, start=1):
        locator = f"page:{number}"
        if not text.strip():
            ctx.log.warning(
                IssueCode.PDF_EMPTY_PAGE,
                f"page {number} has no extractable text",
                source.path,
                locator,
            )
            continue
        ctx.add_segment(
            document,
            canonical,
            None,
            text.replace("\r\n", "\n"),
            source=source,
            locator=locator,
            page=number,
        )
    return FileResult(len(texts))


def parse_ipc_definition(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one ``REFERENCE/IPC_TEIGI/*.pdf`` in this process."""
    results = parse_ipc_definitions(ctx, [source], pool_min_files=2)
    return next(results)[1]


def parse_ipc_definitions(
    ctx: BuildContext,
    sources: Sequence[SourceFile],
    *,
    workers: int | None = None,
    pool_min_files: int | None = None,
    extract: Extractor = extract_pages,
    timeout: float | None = None,
) -> Iterator[tuple[SourceFile, FileResult]]:
    """Read every definition PDF, extracting text in a process pool; yield in input order.

    ``workers`` (default: the usable cores, :func:`available_cores`) sizes the pool;
    ``pool_min_files`` (default :data:`POOL_MIN_FILES`) is the count from which the pool is
    used at all; ``extract`` replaces pdfium (it must be picklable), for tests. ``timeout``
    (default: the build's ``ctx.pdf_timeout``) is the seconds one file may take in a worker;
    files read in this process (fewer than ``pool_min_files``) cannot be bounded.
    """
    limit_seconds = ctx.pdf_timeout if timeout is None else timeout
    codes: dict[str, str] = {}
    threshold = POOL_MIN_FILES if pool_min_files is None else pool_min_files
    if len(sources) < threshold:
        for source in sources:
            code, name_error = _code_of(source)
            pending = _Pending(source, code, name_error)
            outcome = None if code is None else _run(extract, ctx.read_bytes(source))
            yield source, _write(ctx, pending, outcome, codes)
        return
    count = available_cores() if workers is None else workers
    count = max(1, min(count, len(sources)))
    limit = count * IN_FLIGHT_PER_WORKER
    pool = _Pool(count, extract, limit_seconds)
    window: deque[_Pending] = deque()
    try:

        def finish() -> tuple[SourceFile, FileResult]:
            head = window[0]
            outcome = None if head.future is None else pool.result(head, window)
            window.popleft()
            return head.source, _write(ctx, head, outcome, codes)

        for source in sources:
            code, name_error = _code_of(source)
            pending = _Pending(source, code, name_error)
            if code is not None:
                pending.data = ctx.read_bytes(source)
                pending.submitted = time.monotonic()
                pending.future = pool.submit(pending.data)
            window.append(pending)
            while len(window) >= limit:
                yield finish()
        while window:
            yield finish()
    finally:
        pool.close()
