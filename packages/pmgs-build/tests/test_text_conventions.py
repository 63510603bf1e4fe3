"""CSV text as DOS-era and Windows tools leave it: read, counted, never quarantined (issue 43).

Each fixture is the handmade package with one file's bytes rewritten here by hand: an
end-of-file mark (0x1A), NUL padding, record ends mixing CRLF, LF and CR, a second BOM, a
BOM where a joined file began. Each must build the database the plain package builds: the
same logical digest once the provenance that must differ is set aside (the rewritten file's
size and hash, the manifest that covers them, and the one warning that counts the
convention), and exactly that warning, naming the file.
"""

from __future__ import annotations

import io
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pmgs_build import BuildReport, build_database, logical_digest
from pmgs_build.source.parsers import text_conventions
from pmgs_build.source.parsers.text_conventions import Conventions, TailStripped, record_lines

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
FI_B = "FI/FI/fi_B_20260331.csv"  # 7 records, LF, no BOM
FI_G = "FI/FI/fi_G_20260331.csv"  # 5 records, LF, with a BOM
FI_TEXT = "FI/FI_TEXT/fiText_B_20260331.csv"  # 9 line ends; the 5th inside quotes
COPYRGHT = "COPYRGHT/COPYRGHT.txt"  # one line, the attribution
CONVENTION_CODES = ("CSV_EOF_MARKER", "CSV_NUL_PADDING", "CSV_LINE_ENDS_MIXED", "CSV_STRAY_BOM")


def _content_digest(database: Path, scratch: Path) -> str:
    """The logical digest of a copy of ``database`` whose provenance of bytes is blanked:
    file sizes and hashes, the manifest hash, the build counts, and the warnings that count
    conventions (the other build issues renumbered, as they would be without them)."""
    copy = scratch / f"blanked-{database.name}"
    shutil.copyfile(database, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE source_file SET bytes = 0, sha256 = ''")
        conn.execute("UPDATE release SET source_manifest_sha256 = ''")
        # build_counts sums bytes and build_issue rows; every count in it is also a row
        # the digest still covers (source_file.record_count, the content tables)
        conn.execute(
            "UPDATE metadata SET value = '' WHERE key IN ('source_manifest_sha256', 'build_counts')"
        )
        kept = conn.execute(
            "SELECT severity, code, message, source_file_id, locator FROM build_issue "
            f"WHERE code NOT IN ({','.join('?' * len(CONVENTION_CODES))}) ORDER BY id",
            CONVENTION_CODES,
        ).fetchall()
        conn.execute("DELETE FROM build_issue")  # renumbered: the warnings took ids
        conn.executemany(
            "INSERT INTO build_issue VALUES (?, ?, ?, ?, ?, ?)",
            [(number, *row) for number, row in enumerate(kept, start=1)],
        )
        return logical_digest(conn)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildReport, str]:
    scratch = tmp_path_factory.mktemp("plain")
    report = build_database(HANDMADE, scratch / "plain.sqlite")
    return report, _content_digest(scratch / "plain.sqlite", scratch)


def _variant(tmp_path: Path, path: str, rewrite: Callable[[bytes], bytes]) -> Path:
    root = tmp_path / "src" / "JPPM2026001"
    shutil.copytree(HANDMADE, root)
    target = root / path
    original = target.read_bytes()
    target.write_bytes(rewrite(original))
    assert target.read_bytes() != original
    return root


def _warnings(database: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(database) as conn:
        rows = conn.execute(
            "SELECT i.code, i.message, f.path FROM build_issue i JOIN source_file f "
            f"ON f.id = i.source_file_id WHERE i.code IN ({','.join('?' * 4)}) ORDER BY i.id",
            CONVENTION_CODES,
        ).fetchall()
    return [(str(code), str(message), str(path)) for code, message, path in rows]


def _ends(data: bytes, ends: list[bytes]) -> bytes:
    lines = data.split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == len(ends)
    return b"".join(line + end for line, end in zip(lines, ends, strict=False))


CR, LF, CRLF = b"\r", b"\n", b"\r\n"

CASES: dict[str, tuple[str, Callable[[bytes], bytes], list[tuple[str, str]]]] = {
    "eof_mark": (
        FI_B,
        lambda data: data + b"\x1a",
        [("CSV_EOF_MARKER", "ends in 1 end-of-file mark bytes (0x1A); left out")],
    ),
    "eof_mark_without_last_line_end": (
        FI_B,
        lambda data: data.rstrip(b"\n") + b"\x1a",
        [("CSV_EOF_MARKER", "ends in 1 end-of-file mark bytes (0x1A); left out")],
    ),
    "nul_padding": (
        FI_TEXT,
        lambda data: data + b"\x00" * 300,
        [("CSV_NUL_PADDING", "ends in 300 NUL padding bytes; left out")],
    ),
    "eof_mark_then_padding": (
        FI_TEXT,
        lambda data: data + b"\x1a" + b"\x00" * 15,
        [
            ("CSV_EOF_MARKER", "ends in 1 end-of-file mark bytes (0x1A); left out"),
            ("CSV_NUL_PADDING", "ends in 15 NUL padding bytes; left out"),
        ],
    ),
    "mixed_line_ends": (
        FI_TEXT,
        # the 5th line end is inside a quoted cell: it stays LF and is not a record end
        lambda data: _ends(data, [CRLF, LF, CR, CRLF, LF, CR, CRLF, LF, CR]),
        [
            (
                "CSV_LINE_ENDS_MIXED",
                "records end in more than one way (crlf 3, lf 2, cr 3); each read as a line end",
            )
        ],
    ),
    "lone_cr_and_crlf": (
        FI_B,
        lambda data: _ends(data, [CR, CR, CR, CRLF, CR, CR, CR]),
        [
            (
                "CSV_LINE_ENDS_MIXED",
                "records end in more than one way (crlf 1, cr 6); each read as a line end",
            )
        ],
    ),
    "copyright_eof_mark_and_padding": (
        COPYRGHT,
        lambda data: data + b"\x1a" + b"\x00" * 3,
        [
            ("CSV_EOF_MARKER", "ends in 1 end-of-file mark bytes (0x1A); left out"),
            ("CSV_NUL_PADDING", "ends in 3 NUL padding bytes; left out"),
        ],
    ),
    "second_bom": (
        FI_G,
        lambda data: b"\xef\xbb\xbf" + data,
        [("CSV_STRAY_BOM", "1 byte-order marks at the start of records removed")],
    ),
    "bom_of_a_joined_file": (
        FI_B,
        lambda data: data.replace(b"\nB60J   5/    00    ,", b"\n\xef\xbb\xbfB60J   5/    00    ,"),
        [("CSV_STRAY_BOM", "1 byte-order marks at the start of records removed")],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_convention_builds_the_plain_database_and_is_counted(
    case: str, tmp_path: Path, plain: tuple[BuildReport, str]
) -> None:
    path, rewrite, expected = CASES[case]
    base, base_digest = plain
    root = _variant(tmp_path, path, rewrite)
    report = build_database(root, tmp_path / "db.sqlite")
    assert report.quarantine_count == 0
    assert _warnings(tmp_path / "db.sqlite") == [(code, msg, path) for code, msg in expected]
    for code in CONVENTION_CODES:
        assert report.warnings.get(code, 0) == sum(1 for c, _ in expected if c == code)
    assert report.logical_digest != base.logical_digest  # the file's hash is provenance
    assert _content_digest(tmp_path / "db.sqlite", tmp_path) == base_digest
    strict = build_database(root, tmp_path / "strict.sqlite", strict=True)  # never quarantine
    assert strict.logical_digest == report.logical_digest


def test_the_plain_package_has_none_of_them(plain: tuple[BuildReport, str]) -> None:
    report, _ = plain
    assert not set(report.warnings) & set(CONVENTION_CODES)


# -- the two pieces, on bytes and lines written here -------------------------------------


@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 16])
def test_only_the_run_at_the_very_end_is_left_out(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text_conventions, "_CHUNK", chunk)
    seen = Conventions()
    data = b"a\x1a\x00b,c\r\n\x00\x1a\x00"
    with io.BufferedReader(TailStripped(io.BytesIO(data), seen)) as stream:
        assert stream.read() == b"a\x1a\x00b,c\r\n"
    assert seen.tail == b"\x00\x1a\x00"


def test_quoted_newlines_and_bom_like_text_inside_cells_are_kept() -> None:
    seen = Conventions()
    lines = ['a,"x\r\n', '\ufeffy"\n', "\ufeff\ufeffb,1\r\n", 'c,"\ufeff"\r\n']
    assert list(record_lines(lines, seen)) == [
        'a,"x\r\n',
        '\ufeffy"\n',
        "b,1\r\n",
        'c,"\ufeff"\r\n',
    ]
    assert seen.boms == 2
    assert seen.ends == {"crlf": 2, "lf": 1, "cr": 0}
    assert seen.mixed_ends() == "crlf 2, lf 1"
    assert Conventions(ends={"crlf": 0, "lf": 4, "cr": 0}).mixed_ends() is None
