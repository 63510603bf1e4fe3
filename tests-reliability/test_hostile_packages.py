"""Hostile and malformed packages, one table row each, built by the real ``pmgs build``.

Each case damages a copy of one generated package (with the XML, HTML and PDF groups) in its
own way — in the data groups or at the ZIP layer — and states what docs/pmgs-source-format.md
("Irregularities: read, quarantined or fatal", ADR 0009) requires: a fatal code (the build
stops, ``BUILD_FAILED`` with that issue code) or a quarantine reason (the build succeeds and
the ``quarantine`` table holds a row with it). Either way nothing but the finished database
may be left in the output directory, and every case must end within :data:`CASE_TIMEOUT`
with a peak RSS (of ``pmgs`` and its PDF workers) within :data:`RSS_BOUND_MIB`.

The hung PDF is simulated: no real PDF known to hang pdfium was found, so the case sets the
test hook ``PMGS_TEST_PDF_HANG`` (docs/cli.md), whose worker sleeps on the marked file, and
``--pdf-timeout 10``; the worker must be killed and the file quarantined as ``PDF_TIMEOUT``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import sqlite3
import stat
import struct
import subprocess
import sys
import unicodedata
import warnings
import zipfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pmgs_testkit import corrupt, generate_package, make_zip
from pmgs_testkit.kit import console_script, script_environment

RELEASE = "JPPM2026002"
CASE_TIMEOUT = 120.0
RSS_BOUND_MIB = 512
"""Peak RSS of one ``pmgs build`` and its PDF workers. A build of these packages peaks at
40-100 MiB; the bound is generous, it catches input that makes memory grow with a hostile
size rather than with the package."""


@dataclass(frozen=True)
class Case:
    """One hostile input: how to make it, and the outcome the policy requires."""

    name: str
    make: Callable[[Path], Path]  # the package directory (a copy) → the source to build
    fatal: str | None = None
    quarantine: str | None = None
    also: tuple[str, ...] = ()  # further issue codes (errors or warnings) the build must record
    args: tuple[str, ...] = ()  # further options of ``pmgs build``
    env: tuple[tuple[str, str], ...] = ()  # further environment of ``pmgs build``
    finding: str | None = None  # a defect found by this suite, not fixed yet: strict xfail


# ---------------------------------------------------------------------------- directory damage


def _first(package: Path, group: str, pattern: str = "*") -> Path:
    return sorted(p for p in (package / group).glob(pattern) if p.is_file())[0]


def _corrupted(kind: str, group: str | None = None) -> Callable[[Path], Path]:
    def make(package: Path) -> Path:
        corrupt(package, kind, group=group)
        return package

    return make


def _rewrite(group: str, edit: Callable[[bytes], bytes], pattern: str = "*") -> Callable:
    def make(package: Path) -> Path:
        path = _first(package, group, pattern)
        path.write_bytes(edit(path.read_bytes()))
        return package

    return make


def _add_file(relative: str, content: bytes) -> Callable[[Path], Path]:
    def make(package: Path) -> Path:
        (package / relative).write_bytes(content)
        return package

    return make


def _symlink(package: Path) -> Path:
    (package / "FI" / "FI" / "fi_link_20260331.csv").symlink_to("/etc/passwd")
    return package


def _fifo(package: Path) -> Path:
    os.mkfifo(package / "FI" / "FI" / "fi_Y_20260331.csv")
    return package


def _no_copyright(package: Path) -> Path:
    shutil.rmtree(package / "COPYRGHT")
    return package


def _two_copyrights(package: Path) -> Path:
    (package / "COPYRGHT" / "copyright2.txt").write_text("second\n", encoding="utf-8")
    return package


def _xml_doctype(doctype: bytes) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        head, _, rest = data.partition(b"?>")
        return head + b"?>\n" + doctype + rest

    return edit


BILLION_LAUGHS = (
    b'<!DOCTYPE data [<!ENTITY a "lol">'
    + b"".join(
        b'<!ENTITY %s "%s">' % (chr(98 + i).encode(), (b"&" + chr(97 + i).encode() + b";") * 10)
        for i in range(9)
    )
    + b"]>"
)


def _nested_html(data: bytes) -> bytes:
    return b"<html><body>" + b"<div>" * 200_000 + b"x" + b"</div>" * 200_000 + data


def _huge_field(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    return b'"' + b"A" * (200 << 20 >> 4) + b'",1,2,3,4\r\n' + b"".join(lines)


def _budget_blown(data: bytes) -> bytes:
    return b"\r\n".join(line.split(b",")[0] for line in data.splitlines()) + b"\r\n"


def _nul_bytes(data: bytes) -> bytes:
    return data[:40] + b"\x00" * 16 + data[40:]


def _not_utf8_nor_cp932(data: bytes) -> bytes:
    return data + b"\x81\x20\xff\xfe,\xa0\xa0,1,2,3\r\n"


def _truncated_in_quote(data: bytes) -> bytes:
    """Cut the file inside its last quoted field: the quote is never closed."""
    return data[: data.rindex(b'"') + 1] + b"unterminated text"


def _as_cp932(data: bytes) -> bytes:
    """The same CSV as Japanese Windows tools write it (no BOM, CP932)."""
    return data.decode("utf-8-sig").encode("cp932")


def _undecodable_html(data: bytes) -> bytes:
    """Bytes that are neither Shift_JIS nor CP932 inside the declared-Shift_JIS page."""
    return data.replace(b"<table", b"\x85\xff\xfd\xfe<table", 1)


def _unknown_charset(data: bytes) -> bytes:
    return data.replace(b"charset=Shift_JIS", b"charset=x-pmgs-unknown", 1)


HANG_MARKER = "pmgs-hostile-hang-7f3a"


def _hanging_pdf(package: Path) -> Path:
    """The first definition PDF carries the marker the worker hook hangs on (a comment after
    %%EOF: pdfium would read the file as before). ≥ 8 PDFs, so the worker pool is used."""
    pdfs = sorted((package / "REFERENCE" / "IPC_TEIGI").glob("*.pdf"))
    assert len(pdfs) >= 8, "the pool reads 8 files or more; fewer are read in-process"
    with pdfs[0].open("ab") as handle:
        handle.write(f"%{HANG_MARKER}\n".encode())
    return package


# ---------------------------------------------------------------------------- ZIP damage


def _zip_with(
    extra: list[tuple[zipfile.ZipInfo | str, bytes]], *, keep: bool = True
) -> Callable[[Path], Path]:
    """The package zipped as downloaded, plus hostile members."""

    def make(package: Path) -> Path:
        target = package.parent / f"{package.name}.zip"
        if keep:
            make_zip(package, target)
            mode = "a"
        else:
            mode = "w"
        with (
            warnings.catch_warnings(),  # "Duplicate name": wanted here
            zipfile.ZipFile(target, mode, compression=zipfile.ZIP_DEFLATED) as zf,
        ):
            warnings.simplefilter("ignore", UserWarning)
            for info, data in extra:
                zf.writestr(info, data)
        return target

    return make


def _symlink_member() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{RELEASE}/FI/FI/fi_link_20260331.csv")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _zip_bytes(edit: Callable[[bytes], bytes]) -> Callable[[Path], Path]:
    def make(package: Path) -> Path:
        target = package.parent / f"{package.name}.zip"
        make_zip(package, target)
        target.write_bytes(edit(target.read_bytes()))
        return target

    return make


def _count_bomb(package: Path) -> Path:
    target = package.parent / f"{package.name}.zip"
    make_zip(package, target)
    with zipfile.ZipFile(target, "a") as zf:
        for i in range(100_001):
            zf.writestr(f"{RELEASE}/JUDGE/x{i}", b"")
    return target


def _encrypted_member(package: Path) -> Path:
    """The encryption flag set on one member's central-directory entry."""
    target = package.parent / f"{package.name}.zip"
    make_zip(package, target)
    data = bytearray(target.read_bytes())
    name = CSV.encode()
    start = data.find(b"PK\x01\x02")
    while start >= 0:
        (length,) = struct.unpack_from("<H", data, start + 28)
        if bytes(data[start + 46 : start + 46 + length]) == name:
            struct.pack_into("<H", data, start + 8, 0x1)
            target.write_bytes(bytes(data))
            return target
        start = data.find(b"PK\x01\x02", start + 4)
    raise AssertionError(f"{CSV} not in the central directory")


def _overlapping_entries(package: Path) -> Path:
    """1,000 central-directory entries sharing one member's data (the overlapped-entry bomb:
    each alone has an honest ratio, together they declare 1,000 times the bytes)."""
    target = package.parent / f"{package.name}.zip"
    make_zip(package, target)
    with zipfile.ZipFile(target, "a") as zf:
        original = zf.getinfo(CSV)
        for i in range(1000):
            twin = copy.copy(original)
            twin.filename = twin.orig_filename = f"{RELEASE}/JUDGE/twin{i}.csv"
            zf.filelist.append(twin)
            zf.NameToInfo[twin.filename] = twin
        zf._didModify = True  # write the central directory again, with the twins
    return target


def _two_tops(package: Path) -> Path:
    """A second top folder that also holds a data group folder: which release is meant is
    not certain (a folder of other files beside the release is ignored, ADR 0019)."""
    target = package.parent / f"{package.name}.zip"
    make_zip(package, target)
    with zipfile.ZipFile(target, "a") as zf:
        zf.writestr("OTHER/readme.txt", b"a note beside the release")
        zf.writestr("JPPM2026099/FI/FI/fi_A_20260331.csv", b"A,a second release\r\n")
    return target


CSV = f"{RELEASE}/FI/FI/fi_A_20260331.csv"
NFD = unicodedata.normalize("NFD", "ガ")

CASES: list[Case] = [
    # data groups: fatal
    Case("copyright_missing", _no_copyright, fatal="COPYRGHT_MISSING"),
    Case("copyright_multiple", _two_copyrights, fatal="COPYRGHT_MULTIPLE"),
    Case("copyright_empty", _corrupted("empty_copyright"), fatal="COPYRGHT_INVALID"),
    Case(
        "two_reference_dates", _corrupted("two_reference_dates"), fatal="REFERENCE_DATE_AMBIGUOUS"
    ),
    Case(
        "ipc_several_valid", _corrupted("ipc_several_valid"), fatal="IPC_MULTIPLE_VALID_REVISIONS"
    ),
    Case("symlink_in_tree", _symlink, fatal="SOURCE_SYMLINK"),
    Case("fifo_in_tree", _fifo, fatal="SOURCE_NOT_REGULAR_FILE"),
    Case("xml_external_entity", _corrupted("xml_external_entity"), fatal="XML_DOCTYPE_REFUSED"),
    Case(
        "xml_billion_laughs",
        _rewrite("FI/FI_KAISEI_DOC", _xml_doctype(BILLION_LAUGHS), "*.xml"),
        fatal="XML_DOCTYPE_REFUSED",
    ),
    Case(
        "xml_parameter_entity",
        _rewrite(
            "FI/FI_KAISEI_DOC",
            _xml_doctype(b'<!DOCTYPE d [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x"> %p;]>'),
            "*.xml",
        ),
        fatal="XML_DOCTYPE_REFUSED",
    ),
    Case("fi_group_over_budget", _rewrite("FI/FI", _budget_blown), fatal="FORMAT_NOT_RECOGNISED"),
    # data groups: quarantined
    Case("fi_wrong_column_count", _corrupted("wrong_column_count"), quarantine="FI_COLUMN_COUNT"),
    Case(
        "fterm_kaisetsu_wrong_column_count",
        _corrupted("wrong_column_count", "FTERM/FTERM_KAISETSU"),
        quarantine="FTERM_KAISETSU_COLUMN_COUNT",
    ),
    Case(
        "fi_text_unknown_code",
        _corrupted("fi_text_unknown_code"),
        quarantine="FI_TEXT_UNKNOWN_CODE",
    ),
    Case("bad_fi_code", _corrupted("bad_fi_code"), quarantine="CODE_INVALID"),
    Case(
        "concordance_marker",
        _corrupted("bad_concordance_marker"),
        quarantine="CONCORDANCE_MARKER_INVALID",
    ),
    # A whole file quarantined (CSV_ENCODING) is, at this small scale, over its group's budget.
    Case(
        "csv_nul_bytes",
        _rewrite("FI/FI_HB", _nul_bytes),
        fatal="FORMAT_NOT_RECOGNISED",
        also=("CSV_ENCODING",),
    ),
    Case(
        "csv_huge_field",
        _rewrite("FI/FI_HB", _huge_field),
        quarantine="CODE_INVALID",
    ),
    Case(
        "csv_not_utf8_nor_cp932",
        _rewrite("FI/FI_HB", _not_utf8_nor_cp932),
        fatal="FORMAT_NOT_RECOGNISED",
        also=("CSV_ENCODING",),
    ),
    Case("xml_not_well_formed", _corrupted("xml_not_well_formed"), quarantine="XML_MALFORMED"),
    Case(
        "xml_truncated",
        _rewrite("FI/FI_KAISEI_DOC", lambda d: d[: len(d) // 2], "*.xml"),
        quarantine="XML_MALFORMED",
    ),
    Case(
        "xml_nul_bytes",
        _rewrite("FI/FI_KAISEI_DOC", _nul_bytes, "*.xml"),
        quarantine="XML_MALFORMED",
    ),
    Case(
        "xml_invalid_shift_jis",
        _rewrite(
            "FI/FI_KAISEI_DOC", lambda d: d.replace(b"<title>", b"<title>\x85\xff", 1), "*.xml"
        ),
        quarantine="XML_ENCODING",
    ),
    # 200,000 nested <div>s before the table: read in bounded time, the table still found.
    Case("html_deeply_nested", _rewrite("IPC_KAISEI", _nested_html), also=("HTML_RECOVERY_USED",)),
    Case("pdf_truncated", _corrupted("pdf_truncated"), quarantine="PDF_UNREADABLE"),
    Case("pdf_not_a_pdf", _corrupted("pdf_not_a_pdf"), quarantine="PDF_UNREADABLE"),
    Case(
        "pdf_named_after_no_code",
        _add_file("REFERENCE/IPC_TEIGI/not-a-code.pdf", b"%PDF-1.4\n%%EOF\n"),
        quarantine="PDF_NAME_INVALID",
    ),
    # the ZIP layer: fatal
    Case("zip_traversal", _zip_with([(f"{RELEASE}/../evil.csv", b"x")]), fatal="ZIP_MEMBER_UNSAFE"),
    Case("zip_absolute", _zip_with([(f"/{RELEASE}/abs.csv", b"x")]), fatal="ZIP_MEMBER_UNSAFE"),
    # Backslashes are separators (issue 43, ADR 0032): a safe path written with them is read
    # (here a stray file beside the FI groups, listed as such); one that climbs out is refused.
    Case(
        "zip_backslash", _zip_with([(f"{RELEASE}\\FI\\b.csv", b"x")]), also=("UNKNOWN_DATA_GROUP",)
    ),
    Case(
        "zip_backslash_traversal",
        _zip_with([(f"{RELEASE}\\..\\..\\evil.csv", b"x")]),
        fatal="ZIP_MEMBER_UNSAFE",
    ),
    Case("zip_drive_letter", _zip_with([("C:/evil.csv", b"x")]), fatal="ZIP_MEMBER_UNSAFE"),
    Case(
        "zip_symlink_member",
        _zip_with([(_symlink_member(), b"/etc/passwd")]),
        fatal="ZIP_MEMBER_UNSAFE",
    ),
    Case("zip_duplicate_name", _zip_with([(CSV, b"dup")]), fatal="ZIP_LAYOUT_INVALID"),
    Case(
        "zip_duplicate_case",
        _zip_with([(CSV.replace("fi_A", "FI_A"), b"dup")]),
        fatal="ZIP_LAYOUT_INVALID",
    ),
    Case(
        "zip_duplicate_unicode_normalisation",
        _zip_with(
            [
                (f"{RELEASE}/JUDGE/{unicodedata.normalize('NFC', 'ガ')}.txt", b"a"),
                (f"{RELEASE}/JUDGE/{NFD}.txt", b"b"),
            ]
        ),
        fatal="ZIP_LAYOUT_INVALID",
    ),
    Case(
        "zip_bomb_by_ratio",
        _zip_with([(f"{RELEASE}/JUDGE/zeros.csv", b"\0" * (64 << 20))]),
        fatal="ZIP_TOO_LARGE",
    ),
    Case("zip_bomb_by_count", _count_bomb, fatal="ZIP_TOO_LARGE"),
    Case("zip_truncated", _zip_bytes(lambda d: d[: len(d) // 2]), fatal="ZIP_INVALID"),
    Case("zip_random_bytes", _zip_bytes(lambda d: os.urandom(len(d))), fatal="ZIP_INVALID"),
    Case("zip_two_top_releases", _two_tops, fatal="RELEASE_FOLDER_AMBIGUOUS"),
    # added with the time limit of PDF workers, disk-full handling and more encodings
    Case("pdf_encrypted", _corrupted("pdf_encrypted"), quarantine="PDF_ENCRYPTED"),
    Case(
        "pdf_hangs_its_worker",
        _hanging_pdf,
        quarantine="PDF_TIMEOUT",
        args=("--pdf-timeout", "10"),
        env=(("PMGS_TEST_PDF_HANG", HANG_MARKER),),
    ),
    Case(
        "csv_truncated_in_a_quote",
        _rewrite("FI/FI_HB", _truncated_in_quote),
        quarantine="CSV_MALFORMED",
    ),
    Case("csv_shift_jis", _rewrite("FI/FI_HB", _as_cp932), also=("CSV_CP932_FALLBACK",)),
    Case(
        "html_undecodable",
        _rewrite("IPC_KAISEI", _undecodable_html),
        quarantine="HTML_UNREADABLE",
    ),
    Case(
        "html_unknown_charset",
        _rewrite("IPC_KAISEI", _unknown_charset),
        quarantine="HTML_UNREADABLE",
    ),
    Case(
        "zip_dot_component", _zip_with([(f"{RELEASE}/FI/./x.csv", b"x")]), fatal="ZIP_MEMBER_UNSAFE"
    ),
    Case("zip_encrypted_member", _encrypted_member, fatal="ZIP_INVALID"),
    Case("zip_overlapping_entries", _overlapping_entries, fatal="ZIP_TOO_LARGE"),
]


# ---------------------------------------------------------------------------- the test


_LAUNCHER = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as report:
    report.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code if code >= 0 else 128 - code)
"""
"""Runs ``pmgs`` and writes the peak RSS (KiB) of it and its waited-for children (the PDF
workers). Measured through this small interpreter, not from the test process: a child forked
from pytest starts with pytest's own high-water mark, which would hide the build's."""


def _pmgs(
    *args: str | Path, env: tuple[tuple[str, str], ...] = (), rss_file: Path
) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run the console script to completion; also return its peak RSS in KiB."""
    environment = script_environment(dict(env))
    process = subprocess.Popen(
        [sys.executable, "-c", _LAUNCHER, str(rss_file), console_script(), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
        start_new_session=True,  # a timeout kills pmgs and its workers too
    )
    try:
        out, err = process.communicate(timeout=CASE_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    result = subprocess.CompletedProcess(
        process.args, process.returncode, out.decode("utf-8"), err.decode("utf-8", "replace")
    )
    return result, int(rss_file.read_text())


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    return generate_package(root, scale=0.001, seed=7, release=RELEASE, with_documents=True).path


@pytest.fixture(scope="module")
def outcomes(figures: Any) -> dict[str, Any]:
    section: dict[str, Any] = {"cases": len(CASES), "as_required": 0, "results": {}}
    figures.sections["hostile_packages"] = section
    return section


def test_the_corpus_is_large_enough() -> None:
    assert len({case.name for case in CASES}) == len(CASES) >= 30


PARAMS = [
    pytest.param(
        case,
        id=case.name,
        marks=[pytest.mark.xfail(strict=True, reason=case.finding)] if case.finding else [],
    )
    for case in CASES
]


@pytest.mark.parametrize("case", PARAMS)
def test_hostile_package(
    case: Case, pristine: Path, tmp_path: Path, outcomes: dict[str, Any]
) -> None:
    package = tmp_path / "src" / RELEASE
    shutil.copytree(pristine, package, symlinks=True)
    source = case.make(package)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    output = out_dir / "ref.sqlite"
    result, rss_kib = _pmgs(
        "build", source, output, "--json", *case.args, env=case.env, rss_file=tmp_path / "rss"
    )
    outcomes.setdefault("peak_rss_mib", {})[case.name] = round(rss_kib / 1024, 1)
    left = sorted(p.name for p in out_dir.iterdir())
    if result.returncode == 0:
        with closing(sqlite3.connect(f"{output.as_uri()}?mode=ro", uri=True)) as conn:
            quarantined = {r for (r,) in conn.execute("SELECT reason FROM quarantine")}
            issues = {c for (c,) in conn.execute("SELECT code FROM build_issue")}
        reasons = sorted(quarantined | issues)
        got = f"built, quarantined {sorted(quarantined)}, issues {sorted(issues)}"
    else:
        error = json.loads(result.stdout)["error"]
        reasons = sorted({i["code"] for i in error["details"].get("issues", [])})
        got = f"{error['code']} {reasons}"
    outcomes["results"][case.name] = got
    if case.fatal is not None:
        assert result.returncode != 0, f"expected {case.fatal}: {got}"
        assert case.fatal in reasons, got
        assert left == [], f"left in the output directory: {left}"
    else:
        assert result.returncode == 0, f"expected a build: {got}"
        assert left == ["ref.sqlite"], f"left in the output directory: {left}"
        if case.quarantine is not None:
            assert case.quarantine in quarantined, got
    assert set(case.also) <= set(reasons), got
    assert rss_kib / 1024 <= RSS_BOUND_MIB, f"peak RSS {rss_kib / 1024:.0f} MiB; {got}"
    outcomes["as_required"] += 1
