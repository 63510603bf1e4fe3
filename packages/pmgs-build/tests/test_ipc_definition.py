"""``REFERENCE/IPC_TEIGI``: definition PDFs become one document per code, one segment per page.

Real PDFs from the generator, real pdfium, real worker processes and real SQLite. The other
document groups are removed from the generated packages while their adapters are written.
The pool is steered through the adapter's keyword parameters (``workers``,
``pool_min_files``, ``extract``); test extractors live in a module written to a temporary
directory, because spawned workers must import them by name.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import multiprocessing
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pmgs_build.build as build_module
from pmgs_build import BuildError, BuildReport, IssueCode, build_database
from pmgs_build.source.parsers.ipc_definition import (
    available_cores,
    extract_pages,
    parse_ipc_definitions,
)
from pmgs_core import PMGSQueryError, PMGSStore
from pmgs_core.building import ipc_code_from_pdf_name
from pmgs_testkit import GeneratedPackage, corrupt, generate_package, make_zip
from pmgs_testkit._pdf import pdf_document
from pmgs_testkit.kit import file_sha256, pdf_page_texts

GROUP = "REFERENCE/IPC_TEIGI"
OTHER_DOCUMENT_GROUPS = ("FI/FI_KAISEI_DOC", "IPC_KAISEI", "FTERM/ADD_CODE", "FTERM/ADD_CODE_E")

HOOKS = '''
"""Extractors for the pool tests: importable by name in spawned workers."""

import hashlib
import os
import time
from pathlib import Path

from pmgs_build.source.parsers.ipc_definition import extract_pages


def record_order(log: str, hold: str, data: bytes) -> list[str]:
    """Extract and log the file's digest; the file ``hold`` first waits for 3 others."""
    digest = hashlib.sha256(data).hexdigest()
    if digest == hold:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            path = Path(log)
            # Complete lines only: a digest being appended is not yet a finished file.
            if path.exists() and path.read_text().count("\\n") >= 3:
                break
            time.sleep(0.01)
    pages = extract_pages(data)
    with open(log, "a") as handle:
        handle.write(digest + "\\n")
    return pages


def hang_on(target: str, data: bytes) -> list[str]:
    """Never return on the file ``target``, like pdfium stuck in a loop would."""
    if hashlib.sha256(data).hexdigest() == target:
        time.sleep(3600)
    return extract_pages(data)


def crash_on(target: str, data: bytes) -> list[str]:
    """Kill the worker on the file ``target``, like a pdfium segfault would."""
    if hashlib.sha256(data).hexdigest() == target:
        os._exit(70)
    return extract_pages(data)
'''


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def only_definitions(pkg: GeneratedPackage) -> GeneratedPackage:
    for group in OTHER_DOCUMENT_GROUPS:
        shutil.rmtree(pkg.path / group, ignore_errors=True)
    return pkg


def pdf_pages(pkg: GeneratedPackage) -> dict[str, tuple[int, ...]]:
    assert pkg.expected.document_groups is not None
    return pkg.expected.document_groups.pdf_page_chars


def use_parser(monkeypatch: pytest.MonkeyPatch, **options: Any) -> None:
    """Build with ``parse_ipc_definitions(..., **options)`` for the definition PDFs."""
    adapters = dict(build_module.ADAPTERS)
    adapters[GROUP] = dataclasses.replace(
        adapters[GROUP], parse_group=functools.partial(parse_ipc_definitions, **options)
    )
    monkeypatch.setattr(build_module, "ADAPTERS", adapters)


@pytest.fixture
def hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    directory = tmp_path / "hooks"
    directory.mkdir()
    name = f"pmgs_pdf_hooks_{os.getpid()}"
    (directory / f"{name}.py").write_text(HOOKS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(directory))
    yield importlib.import_module(name)
    sys.modules.pop(name, None)


def assert_failed_with(
    error: BuildError, code: str, path: str, output: Path, message: str | None = None
) -> None:
    assert [(i.code, i.source_path) for i in error.issues] == [(code, path)]
    if message is not None:
        assert message in error.issues[0].message
    assert not output.exists()
    assert not [p for p in output.parent.iterdir() if p.name.startswith(f".{output.name}")]


# ------------------------------------------------------------------ a full build at 0.01


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedPackage, BuildReport]:
    base = tmp_path_factory.mktemp("definitions")
    pkg = only_definitions(generate_package(base / "src", scale=0.01, seed=7, with_documents=True))
    assert len(pdf_pages(pkg)) >= 8  # the default path: the pool, one worker per core
    return pkg, build_database(pkg.path, base / "out.sqlite")


@pytest.fixture
def db(built: tuple[GeneratedPackage, BuildReport]) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{built[1].output}?mode=ro", uri=True)
    yield conn
    conn.close()


def test_documents_and_segments_match_the_generator(
    built: tuple[GeneratedPackage, BuildReport], db: sqlite3.Connection
) -> None:
    pkg, report = built
    documents = db.execute("SELECT count(*) FROM document WHERE kind = 'ipc_definition'")
    assert documents.fetchone()[0] == pkg.expected.documents["ipc_definition"]
    segments = db.execute(
        "SELECT count(*) FROM document_text AS t JOIN document AS d ON d.id = t.document_id "
        "WHERE d.kind = 'ipc_definition'"
    ).fetchone()[0]
    assert segments == pkg.expected.document_segments["ipc_definition"]
    assert report.group_counts[GROUP].files == pkg.files[GROUP]
    assert report.group_counts[GROUP].records == pkg.rows[GROUP]  # every page, empty or not
    statuses = db.execute(
        "SELECT DISTINCT status FROM source_file WHERE data_group = ?", (GROUP,)
    ).fetchall()
    assert statuses == [("parsed",)]


def test_every_page_keeps_its_number_and_its_text(
    built: tuple[GeneratedPackage, BuildReport], db: sqlite3.Connection
) -> None:
    pkg, _ = built
    multiline = 0
    for name, chars in pdf_pages(pkg).items():
        rows = db.execute(
            "SELECT t.sequence_number, t.page, t.locator, t.heading, t.text_type, t.body, "
            "d.document_key, d.title, d.language, f.path "
            "FROM document_text AS t JOIN document AS d ON d.id = t.document_id "
            "JOIN source_file AS f ON f.id = t.source_file_id "
            "WHERE f.path = ? ORDER BY t.sequence_number",
            (f"{GROUP}/{name}",),
        ).fetchall()
        pages = [number for number, count in enumerate(chars, start=1) if count]
        assert [r[1] for r in rows] == pages, name
        assert [r[0] for r in rows] == list(range(1, len(pages) + 1))
        assert [r[2] for r in rows] == [f"page:{n}" for n in pages]
        # The body is pdfium's text with only CRLF changed; read back independently, from the
        # file. (Not the generator's character counts: pdfium drops a line of one CJK
        # character in the generator's PDFs, so a few pages extract one character short.)
        texts = pdf_page_texts(pkg.path / GROUP / name)
        assert [r[5] for r in rows] == [texts[n - 1].replace("\r\n", "\n") for n in pages]
        for _seq, _page, _loc, heading, text_type, body, key, title, language, _ in rows:
            assert key == f"ipc_definition:{heading}"
            assert title == f"IPC定義 {heading}"
            assert (language, text_type) == ("ja", None)
            assert "\r" not in body
        assert {r[3] for r in rows} == {ipc_code_from_pdf_name(name).canonical}
        assert squeeze(rows[0][5]).startswith(rows[0][3])
        multiline += sum("\n" in r[5] for r in rows)
    assert multiline  # pdfium's \r\n line breaks arrive as \n


def test_empty_pages_are_warnings_with_their_page(
    built: tuple[GeneratedPackage, BuildReport], db: sqlite3.Connection
) -> None:
    pkg, report = built
    assert pkg.expected.document_groups is not None
    expected = {
        (f"{GROUP}/{name}", f"page:{number}")
        for name, chars in pdf_pages(pkg).items()
        for number, count in enumerate(chars, start=1)
        if count == 0
    }
    found = db.execute(
        "SELECT f.path, i.locator FROM build_issue AS i JOIN source_file AS f "
        "ON f.id = i.source_file_id WHERE i.code = ?",
        (IssueCode.PDF_EMPTY_PAGE,),
    ).fetchall()
    assert len(found) == len(expected) == pkg.expected.document_groups.pdf_empty_pages >= 2
    assert set(found) == expected
    assert report.warnings[IssueCode.PDF_EMPTY_PAGE] == len(expected)


def test_first_page_of_the_example_and_the_store(
    built: tuple[GeneratedPackage, BuildReport],
) -> None:
    pkg, report = built
    code = pkg.examples["ipc_definition_code"]
    assert pkg.examples["ipc_definition_pdf"] == f"{GROUP}/G06F___3-048.pdf"
    store = PMGSStore.open(report.output)
    try:
        page = store.get_document(f"ipc_definition:{code}", page=1)
        assert page["kind"] == "ipc_definition"
        assert page["title"] == f"IPC定義 {code}"
        [segment] = page["segments"]
        assert segment["page"] == 1
        assert segment["heading"] == code
        assert squeeze(segment["body"]) == pkg.examples["ipc_definition_first_page"]
        related = page["related_classifications"]
        assert [(r["scheme"], r["edition"], r["code"], r["role"]) for r in related] == [
            ("ipc", "8U", code, "subject")
        ]
        assert related[0]["record_status"] == "canonical"
        # A page after an empty page keeps its number: B60J.pdf page 1 has no text.
        empty_first = pkg.examples["ipc_definition_pdf_with_empty_page"]
        chars = pdf_pages(pkg)[empty_first.rsplit("/", 1)[1]]
        assert chars[0] == 0
        assert chars[1] > 0
        document = store.get_document("ipc_definition:B60J")
        assert [s["page"] for s in document["segments"]] == [2]
        assert store.get_document("ipc_definition:B60J", page=2)["segments"][0]["section"] == 1
        with pytest.raises(PMGSQueryError) as missing:
            store.get_document("ipc_definition:B60J", page=1)
        assert missing.value.code == "DOCUMENT_SELECTOR_NOT_FOUND"
    finally:
        store.close()


# ------------------------------------------------------------------ pool and determinism


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    """A package with 20 definition PDFs plus a 3-page one whose middle page is empty."""
    base = tmp_path_factory.mktemp("small")
    pkg = only_definitions(generate_package(base, scale=0.002, seed=7, with_documents=True))
    lines = ["H99Z（2026.01）【定義】合成データ：一ページ目", "二行目"]
    (pkg.path / GROUP / "H99Z.pdf").write_bytes(
        pdf_document([lines, [], ["H99Z三ページ目"]], title="IPC definition H99Z")
    )
    return pkg


def test_middle_empty_page_and_reference_only_subject(
    small: GeneratedPackage, tmp_path: Path
) -> None:
    report = build_database(small.path, tmp_path / "out.sqlite")
    conn = sqlite3.connect(report.output)
    try:
        rows = conn.execute(
            "SELECT t.sequence_number, t.page, t.body FROM document_text AS t "
            "JOIN document AS d ON d.id = t.document_id "
            "WHERE d.document_key = 'ipc_definition:H99Z' ORDER BY t.sequence_number"
        ).fetchall()
        assert rows == [
            (1, 1, "H99Z（2026.01）【定義】合成データ：一ページ目\n二行目"),
            (2, 3, "H99Z三ページ目"),
        ]
        link = conn.execute(
            "SELECT c.scheme, c.edition, c.code, c.kind, c.status, l.role FROM document_link "
            "AS l JOIN document AS d ON d.id = l.document_id JOIN concept AS c "
            "ON c.id = l.concept_id WHERE d.document_key = 'ipc_definition:H99Z'"
        ).fetchall()
        assert link == [("ipc", "8U", "H99Z", "subclass", "reference_only", "subject")]
        records = conn.execute(
            "SELECT record_count FROM source_file WHERE path = ?", (f"{GROUP}/H99Z.pdf",)
        ).fetchone()
        assert records == (3,)
    finally:
        conn.close()


def test_digest_does_not_follow_the_order_workers_finish(
    small: GeneratedPackage,
    tmp_path: Path,
    hooks: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pdfs = sorted((small.path / GROUP).iterdir())
    input_order = [file_sha256(p) for p in pdfs]
    use_parser(monkeypatch, pool_min_files=len(pdfs) + 1)  # in this process, in input order
    sequential = build_database(small.path, tmp_path / "sequential.sqlite")
    log = tmp_path / "finished.txt"
    extract = functools.partial(hooks.record_order, str(log), input_order[0])
    use_parser(monkeypatch, workers=2, pool_min_files=0, extract=extract)
    pooled = build_database(small.path, tmp_path / "pooled.sqlite")
    finished = log.read_text().split()
    # The test means something only if the workers did finish out of input order.
    assert sorted(finished) == sorted(input_order)
    assert finished.index(input_order[0]) >= 3
    assert finished != input_order
    assert pooled.logical_digest == sequential.logical_digest
    assert pooled.table_counts == sequential.table_counts


def test_a_zip_package_gives_the_workers_bytes(
    small: GeneratedPackage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers never open package paths: from a ZIP, ``absolute`` is the archive itself."""
    archive = make_zip(small.path, tmp_path / "package.zip")
    from_directory = build_database(small.path, tmp_path / "directory.sqlite")
    use_parser(monkeypatch, workers=2, pool_min_files=0)
    from_zip = build_database(archive, tmp_path / "zip.sqlite")
    assert from_zip.logical_digest == from_directory.logical_digest
    assert from_zip.group_counts[GROUP].records == from_directory.group_counts[GROUP].records


def test_a_worker_crash_names_the_file_and_the_rest_is_read(
    small: GeneratedPackage,
    tmp_path: Path,
    hooks: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = small.path / GROUP / "B60J.pdf"
    use_parser(
        monkeypatch,
        workers=2,
        pool_min_files=0,
        extract=functools.partial(hooks.crash_on, file_sha256(target)),
    )
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(small.path, output, strict=True)
    assert_failed_with(failure.value, IssueCode.PDF_UNREADABLE, f"{GROUP}/B60J.pdf", output, "died")


def definition_rows(package: str, **options: Any) -> list[list[object]]:
    """The rows the adapter writes for a package's definition PDFs, read back from SQLite."""
    import sqlite3

    from pmgs_build import take_inventory
    from pmgs_build.build_issues import IssueLog
    from pmgs_build.database.inserts import ConceptRegistry, Loader
    from pmgs_build.source.parsers.context import BuildContext
    from pmgs_build.source.parsers.ipc_definition import parse_ipc_definitions
    from pmgs_core.building import create_schema

    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn)
    loader = Loader(conn)
    ctx = BuildContext(loader, ConceptRegistry(loader), IssueLog(), "2026-03-31")
    files = [f for f in take_inventory(package).files if f.data_group == "REFERENCE/IPC_TEIGI"]
    assert len(files) >= 8
    results = [(s.path, r.records) for s, r in parse_ipc_definitions(ctx, files, **options)]
    loader.flush()
    texts = conn.execute("SELECT * FROM document_text ORDER BY id").fetchall()
    return [[list(row) for row in texts], [list(r) for r in results], len(ctx.log.errors)]


def test_workers_that_cannot_start_fall_back_to_this_process(small: GeneratedPackage) -> None:
    """Workers that cannot start (here: the plain spawn context, whose workers import the
    ``<stdin>`` main module, which is no file) leave the text to this process."""
    script = "\n".join(
        [
            "import json",
            "import multiprocessing",
            "from typing import Any",
            "import pmgs_build.source.parsers.ipc_definition as d",
            "d._WorkerContext = type(multiprocessing.get_context('spawn'))",
            inspect.getsource(definition_rows),
            f"print(json.dumps(definition_rows({str(small.path)!r})))",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-"], input=script, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "extracting in this process" in done.stderr
    in_process = definition_rows(str(small.path), pool_min_files=1000)
    assert in_process[1]  # the files were read
    assert json.loads(done.stdout) == in_process


# ------------------------------------------------------------------ hostile files


@pytest.fixture
def tiny(tmp_path: Path) -> GeneratedPackage:
    pkg = only_definitions(
        generate_package(tmp_path / "src", scale=0.0005, seed=7, with_documents=True)
    )
    assert len(pdf_pages(pkg)) >= 8
    return pkg


@pytest.mark.parametrize("workers", [1, 2])
def test_a_worker_that_hangs_is_killed_and_the_file_timed_out(
    small: GeneratedPackage,
    tmp_path: Path,
    hooks: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    workers: int,
) -> None:
    """The hang never ends by itself (an hour): the build ends only because the worker is
    killed. Every other file is still read (strict: the only error is the hung file's)."""
    target = small.path / GROUP / "B60J.pdf"
    use_parser(
        monkeypatch,
        workers=workers,
        pool_min_files=0,
        extract=functools.partial(hooks.hang_on, file_sha256(target)),
        timeout=5.0,
    )
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(small.path, output, strict=True)
    assert_failed_with(
        failure.value, IssueCode.PDF_TIMEOUT, f"{GROUP}/B60J.pdf", output, "worker was killed"
    )
    assert multiprocessing.active_children() == []


def test_a_hung_file_is_quarantined_and_the_others_are_built(
    small: GeneratedPackage,
    tmp_path: Path,
    hooks: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = small.path / GROUP / "B60J.pdf"
    use_parser(
        monkeypatch,
        workers=2,
        pool_min_files=0,
        extract=functools.partial(hooks.hang_on, file_sha256(target)),
        timeout=5.0,
    )
    report = build_database(small.path, tmp_path / "out.sqlite")
    assert report.quarantined == {GROUP: 1}
    pdfs = len(list((small.path / GROUP).glob("*.pdf")))
    with sqlite3.connect(tmp_path / "out.sqlite") as conn:
        reasons = conn.execute(
            "SELECT q.reason, f.path FROM quarantine AS q JOIN source_file AS f "
            "ON f.id = q.source_file_id"
        ).fetchall()
        documents = conn.execute(
            "SELECT COUNT(*) FROM document WHERE kind = 'ipc_definition'"
        ).fetchone()[0]
    assert reasons == [(IssueCode.PDF_TIMEOUT, f"{GROUP}/B60J.pdf")]
    assert documents == pdfs - 1


@pytest.mark.parametrize("pooled", [True, False], ids=["pool", "in-process"])
def test_an_encrypted_pdf(
    tiny: GeneratedPackage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pooled: bool
) -> None:
    path = corrupt(tiny.path, "pdf_encrypted")
    if not pooled:
        use_parser(monkeypatch, pool_min_files=1000)
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(tiny.path, output, strict=True)
    relative = path.relative_to(tiny.path).as_posix()
    assert_failed_with(failure.value, IssueCode.PDF_ENCRYPTED, relative, output, "encrypted")


@pytest.mark.parametrize("kind", ["pdf_not_a_pdf", "pdf_truncated"])
@pytest.mark.parametrize("pooled", [True, False], ids=["pool", "in-process"])
def test_unreadable_pdf(
    tiny: GeneratedPackage,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    pooled: bool,
) -> None:
    path = corrupt(tiny.path, kind)
    if not pooled:
        use_parser(monkeypatch, pool_min_files=1000)
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(tiny.path, output, strict=True)
    relative = path.relative_to(tiny.path).as_posix()
    assert_failed_with(failure.value, IssueCode.PDF_UNREADABLE, relative, output, "PdfiumError")


def test_a_name_that_spells_no_code(tiny: GeneratedPackage, tmp_path: Path) -> None:
    source = tiny.path / GROUP / "G06F.pdf"
    shutil.copyfile(source, source.with_name("nonsense.pdf"))
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(tiny.path, output, strict=True)
    assert_failed_with(failure.value, IssueCode.PDF_NAME_INVALID, f"{GROUP}/nonsense.pdf", output)


def test_two_names_of_one_code(tiny: GeneratedPackage, tmp_path: Path) -> None:
    padded = tiny.path / GROUP / "G06F___3-048.pdf"
    shutil.copyfile(padded, padded.with_name("G06F3-048.pdf"))
    output = tmp_path / "out.sqlite"
    with pytest.raises(BuildError) as failure:
        build_database(tiny.path, output, strict=True)
    assert_failed_with(
        failure.value, IssueCode.PDF_NAME_INVALID, f"{GROUP}/G06F___3-048.pdf", output
    )


# ------------------------------------------------------------------ small parts


def test_extract_pages_returns_every_page_even_empty_ones() -> None:
    data = pdf_document([["一ページ"], [], ["三ページ", "四行目"]])
    assert [squeeze(t) for t in extract_pages(data)] == ["一ページ", "", "三ページ四行目"]
    assert "\r\n" in extract_pages(data)[2]


def test_available_cores_is_what_this_process_may_use() -> None:
    cores = available_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        assert cores == len(os.sched_getaffinity(0))
