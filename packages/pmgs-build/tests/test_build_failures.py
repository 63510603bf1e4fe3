"""The builder fails closed: every malformed input is quarantined or stops the build.

Each case copies the hand-made package, damages one file, and checks that a strict build
raises BuildError with the expected code, that no database (and no temporary file) is left
behind, and that other files beside the output are untouched; and that a default build
either stops with the same code (a fatal irregularity) or keeps the damaged record in
quarantine, or, past the error budget, stops with ``FORMAT_NOT_RECOGNISED``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from pmgs_build import (
    ALL_ISSUE_CODES,
    QUARANTINE_CODES,
    BuildError,
    IssueCode,
    ProgressEvent,
    build_database,
)

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"

Mutation = Callable[[Path], None]


def append(relative: str, text: str) -> Mutation:
    def mutate(root: Path) -> None:
        with (root / relative).open("a", encoding="utf-8", newline="") as handle:
            handle.write(text)

    return mutate


def replace(relative: str, old: str, new: str) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / relative
        content = path.read_text(encoding="utf-8")
        assert old in content, (relative, old)
        path.write_text(content.replace(old, new, 1), encoding="utf-8", newline="")

    return mutate


def append_bytes(relative: str, data: bytes) -> Mutation:
    def mutate(root: Path) -> None:
        with (root / relative).open("ab") as handle:
            handle.write(data)

    return mutate


def write(relative: str, text: str) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")

    return mutate


def remove(relative: str) -> Mutation:
    def mutate(root: Path) -> None:
        (root / relative).unlink()

    return mutate


def rename(relative: str, new_name: str) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / relative
        path.rename(path.with_name(new_name))

    return mutate


FI = "FI/FI/fi_B_20260331.csv"
FI_TEXT = "FI/FI_TEXT/fiText_B_20260331.csv"
FI_TEXT_E = "FI/FI_TEXT_E/fiTextE_B_20260331.csv"
FI_HB = "FI/FI_HB/fiHB_B_20260331.csv"
FI_HB_E = "FI/FI_HB_E/fiHBE_B_20260331.csv"
FI_THEME = "FI/FI_THEME/fiTheme_B_20260331.csv"
FI_LINK = "FI/FI_KAISEI_LINK/fiLink_B_20260331.csv"
THEME = "FTERM/THEME/theme_20260331.csv"
THEME_E = "FTERM/THEME_E/themeE_20260331.csv"
FTERM = "FTERM/FTERM/fterm_3D_20260331.csv"
FTERM_E = "FTERM/FTERM_E/ftermE_3D_20260331.csv"
KAISETSU = "FTERM/FTERM_KAISETSU/ftermKAISETSU_3D_20260331.csv"
KAISETSU_E = "FTERM/FTERM_KAISETSU_E/ftermKAISETSUE_3D_20260331.csv"
IPC8U = "IPC/IPC8U_TEXT/ipc8U_B_20260331.csv"
IPC8B = "IPC/IPC8B_TEXT/ipc8B_B_20260331.csv"
CONCORDANCE = "CONCORDANCE/con_FItoIPC8U_B_20260331.csv"
JUDGE = "JUDGE/judge_20260331.csv"


# One column-count case per CSV group (ja and en files separately), then every other code.
CASES: dict[str, tuple[Mutation, str]] = {
    "FI/FI columns": (append(FI, "B61                ,8,0,0\n"), IssueCode.FI_COLUMN_COUNT),
    "FI/FI_TEXT columns": (
        append(FI_TEXT, "B60J               ,1,1,0,0,車両の窓\n"),
        IssueCode.FI_TEXT_COLUMN_COUNT,
    ),
    "FI/FI_TEXT_E columns": (
        append(FI_TEXT_E, "B60J               ,1,1,0,0,0,Windows,extra\n"),
        IssueCode.FI_TEXT_COLUMN_COUNT,
    ),
    "FI/FI_HB columns": (
        append(FI_HB, "B60J               ,1,1,説明\n"),
        IssueCode.FI_HB_COLUMN_COUNT,
    ),
    "FI/FI_HB_E columns": (
        append(FI_HB_E, "B60J               ,1,1,0,a,b\n"),
        IssueCode.FI_HB_COLUMN_COUNT,
    ),
    "FI/FI_THEME columns": (
        append(FI_THEME, "B60J               ,3,3D,127\n"),
        IssueCode.FI_THEME_COLUMN_COUNT,
    ),
    "FI/FI_KAISEI_LINK columns": (
        append(FI_LINK, "B60J               \n"),
        IssueCode.FI_KAISEI_LINK_COLUMN_COUNT,
    ),
    "FTERM/THEME columns": (
        append(THEME, "3D128,5,3D,0,00005,,扉の錠\n"),
        IssueCode.THEME_COLUMN_COUNT,
    ),
    "FTERM/THEME_E columns": (
        append(THEME_E, "3D127,2,3D,0,00002,,Doors,,extra\n"),
        IssueCode.THEME_COLUMN_COUNT,
    ),
    "FTERM/FTERM columns": (
        append(FTERM, "3D127BB02 ,7,1,ヒンジ, 蝶番,\n"),
        IssueCode.FTERM_COLUMN_COUNT,
    ),
    "FTERM/FTERM_E columns": (append(FTERM_E, "3D127BB01 ,6,1\n"), IssueCode.FTERM_COLUMN_COUNT),
    "FTERM/FTERM_KAISETSU columns": (
        append(KAISETSU, "3D127AA02 ,4,2,説明,余分\n"),
        IssueCode.FTERM_KAISETSU_COLUMN_COUNT,
    ),
    "FTERM/FTERM_KAISETSU_E columns": (
        append(KAISETSU_E, "3D127AA02 ,4,2\n"),
        IssueCode.FTERM_KAISETSU_COLUMN_COUNT,
    ),
    "IPC/IPC8U_TEXT columns": (
        append(IPC8U, "B60J   5/    06,(2006.01),1,1,05,0,0,20060101,99991231,扉\n"),
        IssueCode.IPC_COLUMN_COUNT,
    ),
    "IPC/IPC8B_TEXT columns": (
        append(IPC8B, "B60J   5/    06,(2006.01),1,1,05,0,0,0,扉,余分\n"),
        IssueCode.IPC_COLUMN_COUNT,
    ),
    **{
        f"IPC/IPC{edition}_TEXT columns": (
            append(
                f"IPC/IPC{edition}_TEXT/ipc{edition}_B_20260331.csv", "B60            ,1,1,02\n"
            ),
            IssueCode.IPC_COLUMN_COUNT,
        )
        for edition in ("4", "5", "6", "7", "7E")
    },
    "CONCORDANCE columns": (
        append(CONCORDANCE, "1,B60J   5/    04    ,8\n"),
        IssueCode.CONCORDANCE_COLUMN_COUNT,
    ),
    "JUDGE columns": (append(JUDGE, "03,取下げ,余分\n"), IssueCode.JUDGE_COLUMN_COUNT),
    # CSV framing
    "invalid UTF-8": (append_bytes(FI_TEXT, b"B60 ,1,1,0,0,0,\xff\xfe\n"), IssueCode.CSV_ENCODING),
    "unterminated quote": (append(FI_HB, 'B60J   ,3,1,0,"open\n'), IssueCode.CSV_MALFORMED),
    # values
    "unreadable FI code": (
        append(FI, "B60J   5/   00501B  ,8,0,0,06\n"),
        IssueCode.CODE_INVALID,
    ),
    "unreadable F-term code": (append(FTERM, "3D12AA01 ,7,1,ラベル,\n"), IssueCode.CODE_INVALID),
    "theme cell in an F-term file": (
        append(FTERM, "3D127     ,7,1,ラベル,\n"),
        IssueCode.CODE_INVALID,
    ),
    "unreadable theme of FI_THEME": (
        append(FI_THEME, "B60J               ,3,3D,12A,0\n"),
        IssueCode.CODE_INVALID,
    ),
    "unreadable IPC code": (
        append("IPC/IPC7_TEXT/ipc7_B_20260331.csv", "B6OJ           ,1,1,03,0,x\n"),
        IssueCode.CODE_INVALID,
    ),
    "duplicate FI code": (append(FI, "B60J               ,8,0,0,03\n"), IssueCode.DUPLICATE_CODE),
    "duplicate F-term": (append(FTERM, "3D127BB01 ,7,1,レール,\n"), IssueCode.DUPLICATE_CODE),
    "duplicate theme": (
        append(THEME, "3D127,5,3D,0,00005,,車両の扉,\n"),
        IssueCode.DUPLICATE_CODE,
    ),
    "FI level not a number": (
        append(FI, "B61                ,8,0,0,x2\n"),
        IssueCode.LEVEL_INVALID,
    ),
    "F-term sequence not a number": (
        append(FTERM, "3D127BB02 ,seven,1,ヒンジ,\n"),
        IssueCode.SEQUENCE_INVALID,
    ),
    "FI text for an unknown code": (
        append(FI_TEXT, "B61J               ,1,1,0,0,0,未定義\n"),
        IssueCode.FI_TEXT_UNKNOWN_CODE,
    ),
    "English theme unknown": (
        append(THEME_E, "3D999,9,3D,0,00009,,Unknown,\n"),
        IssueCode.THEME_TRANSLATION_UNKNOWN_CODE,
    ),
    "English F-term unknown": (
        append(FTERM_E, "3D127BB02 ,7,1,Hinge,\n"),
        IssueCode.FTERM_TRANSLATION_UNKNOWN_CODE,
    ),
    "English F-term sequence differs": (
        replace(FTERM_E, "3D127AA03 ,4,1,Safety,", "3D127AA03 ,9,1,Safety,"),
        IssueCode.FTERM_TRANSLATION_SEQUENCE_MISMATCH,
    ),
    "IPC line sequence zero": (
        append(IPC8U, "B60J   5/    06,(2006.01),0,1,05,0,0,20060101,99991231,0,扉\n"),
        IssueCode.IPC_TEXT_LINE_INVALID,
    ),
    "IPC line sequence missing": (
        append("IPC/IPC4_TEXT/ipc4_B_20260331.csv", "B60            ,,1,02,0,車両一般\n"),
        IssueCode.IPC_TEXT_LINE_INVALID,
    ),
    "IPC line sequence not an integer": (
        append("IPC/IPC7E_TEXT/ipc7E_B_20260331.csv", "B60            ,1.5,1,02,0,VEHICLES\n"),
        IssueCode.IPC_TEXT_LINE_INVALID,
    ),
    "IPC version": (
        append(IPC8U, "B60J   5/    06,(2006.13),1,1,05,0,0,20060101,99991231,0,扉\n"),
        IssueCode.IPC_VERSION_INVALID,
    ),
    "IPC validity date": (
        append(IPC8U, "B60J   5/    06,(2006.01),1,1,05,0,0,20060132,99991231,0,扉\n"),
        IssueCode.IPC_VALIDITY_INVALID,
    ),
    "IPC validity ends before it starts": (
        append(IPC8U, "B60J   5/    06,(2006.01),1,1,05,0,0,20100101,20091231,0,扉\n"),
        IssueCode.IPC_VALIDITY_INVALID,
    ),
    "IPC revision lines disagree": (
        append(IPC8U, "B60J   5/    04,(2006.01),2,1,06,0,0,20060101,99991231,0,二行目\n"),
        IssueCode.IPC_REVISION_INCONSISTENT,
    ),
    "two IPC 8U revisions valid at the reference date": (
        replace(IPC8U, "20060101,20151231", "20060101,20260331"),
        IssueCode.IPC_MULTIPLE_VALID_REVISIONS,
    ),
    "two IPC 8B versions": (
        append(IPC8B, "B60J   5/    00,(2006.01),1,1,04,0,0,0,扉（旧）\n"),
        IssueCode.IPC_MULTIPLE_VALID_REVISIONS,
    ),
    "concordance marker": (
        append(CONCORDANCE, "2,B60J   5/    04    ,8,B60J   5/    04\n"),
        IssueCode.CONCORDANCE_MARKER_INVALID,
    ),
    "second JUDGE file": (
        write("JUDGE/judge2_20260331.csv", "09,その他\n"),
        IssueCode.JUDGE_MULTIPLE_FILES,
    ),
    # package level
    "no COPYRGHT": (remove("COPYRGHT/COPYRGHT.txt"), IssueCode.COPYRGHT_MISSING),
    "two COPYRGHT files": (
        write("COPYRGHT/COPYRGHT2.txt", "(C) JPO\n"),
        IssueCode.COPYRGHT_MULTIPLE,
    ),
    "empty COPYRGHT": (write("COPYRGHT/COPYRGHT.txt", "\n  \n"), IssueCode.COPYRGHT_INVALID),
    "two-line COPYRGHT": (
        write("COPYRGHT/COPYRGHT.txt", "(C) JPO\nmore\n"),
        IssueCode.COPYRGHT_INVALID,
    ),
    "two reference dates": (
        rename(FTERM, "fterm_3D_20260401.csv"),
        IssueCode.REFERENCE_DATE_AMBIGUOUS,
    ),
    "impossible reference date": (
        lambda root: (
            [
                p.rename(p.with_name(p.name.replace("20260331", "20260231")))
                for p in root.rglob("*_20260331.csv")
            ]
            and None
        ),
        IssueCode.REFERENCE_DATE_INVALID,
    ),
    "no reference date": (
        lambda root: (
            [
                p.rename(p.with_name(p.name.replace("_20260331", "")))
                for p in root.rglob("*_20260331.csv")
            ]
            and None
        ),
        IssueCode.REFERENCE_DATE_MISSING,
    ),
}


def test_every_issue_code_in_the_cases_is_declared() -> None:
    assert {code for _, code in CASES.values()} <= ALL_ISSUE_CODES


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "JPPM2026001"
    shutil.copytree(HANDMADE, root)
    return root


def _assert_nothing_left(out_dir: Path, before: dict[str, bytes]) -> None:
    after = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    assert after == before, "the output directory changed"


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_input_fails_with_its_code_and_leaves_nothing(tmp_path: Path, case: str) -> None:
    mutate, code = CASES[case]
    root = _package(tmp_path)
    mutate(root)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "older.sqlite").write_bytes(b"an older database")
    before = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    with pytest.raises(BuildError) as raised:
        build_database(root, out_dir / "new.sqlite", strict=True)
    assert raised.value.code == code, [str(i) for i in raised.value.issues]
    assert all(issue.severity == "error" for issue in raised.value.issues)
    _assert_nothing_left(out_dir, before)


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_input_is_quarantined_unless_fatal(tmp_path: Path, case: str) -> None:
    mutate, code = CASES[case]
    root = _package(tmp_path)
    mutate(root)
    output = tmp_path / "new.sqlite"
    if code not in QUARANTINE_CODES:
        with pytest.raises(BuildError) as raised:
            build_database(root, output)
        assert raised.value.code == code
        assert not output.exists()
        return
    stopped: BuildError | None = None
    try:
        report = build_database(root, output)
    except BuildError as error:  # the hand-made groups are small: a bad row can be 1 of 3
        stopped = error
    if stopped is not None:
        assert stopped.code == IssueCode.FORMAT_NOT_RECOGNISED, str(stopped)
        assert code in {issue.code for issue in stopped.issues}, str(stopped)
        assert not output.exists()
        return
    with closing(sqlite3.connect(output)) as conn:
        reasons = [row[0] for row in conn.execute("SELECT reason FROM quarantine")]
        found = conn.execute(
            "SELECT count(*) FROM document_text t JOIN document d ON d.id = t.document_id "
            "WHERE d.kind = 'quarantine' AND t.text_type = 'quarantine'"
        ).fetchone()[0]
    assert code in reasons
    assert report.quarantine_count == len(reasons) == sum(report.quarantined.values())
    assert found == len(reasons)  # every quarantined record findable as evidence


def test_errors_name_the_file_and_the_logical_row(tmp_path: Path) -> None:
    root = _package(tmp_path)
    append(FI, "B61                ,8,0,0\n")(root)
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "out.sqlite", strict=True)
    issue = raised.value.issues[0]
    assert (issue.source_path, issue.locator) == (FI, "row:8")
    assert "4 columns" in issue.message
    assert "FI_COLUMN_COUNT" in str(raised.value)


def test_several_errors_are_reported_together(tmp_path: Path) -> None:
    root = _package(tmp_path)
    append(FI, "B61                ,8,0,0\nB62                ,9,0,0\n")(root)
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "out.sqlite", strict=True)
    assert [i.locator for i in raised.value.issues] == ["row:8", "row:9"]


def test_existing_output_is_refused_and_untouched(tmp_path: Path) -> None:
    output = tmp_path / "existing.sqlite"
    output.write_bytes(b"keep me")
    with pytest.raises(BuildError) as raised:
        build_database(HANDMADE, output)
    assert raised.value.code == IssueCode.OUTPUT_EXISTS
    assert output.read_bytes() == b"keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["existing.sqlite"]


def test_missing_output_directory(tmp_path: Path) -> None:
    with pytest.raises(BuildError) as raised:
        build_database(HANDMADE, tmp_path / "nowhere" / "db.sqlite")
    assert raised.value.code == IssueCode.OUTPUT_DIRECTORY_MISSING


def test_output_inside_the_source_is_refused(tmp_path: Path) -> None:
    root = _package(tmp_path)
    with pytest.raises(BuildError) as raised:
        build_database(root, root / "db.sqlite")
    assert raised.value.code == IssueCode.OUTPUT_INSIDE_SOURCE
    assert not (root / "db.sqlite").exists()


def test_interrupt_removes_the_temporary_file(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()

    def interrupt(event: ProgressEvent) -> None:
        if event.phase == "parse" and event.data_group == "FTERM/FTERM":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_database(HANDMADE, out_dir / "db.sqlite", progress=interrupt)
    assert list(out_dir.iterdir()) == []


def test_symlink_in_the_package_is_refused(tmp_path: Path) -> None:
    root = _package(tmp_path)
    outside = tmp_path / "outside.csv"
    outside.write_text("01,x\n", encoding="utf-8")
    os.symlink(outside, root / "JUDGE" / "linked_20260331.csv")
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "db.sqlite")
    assert raised.value.code == IssueCode.SOURCE_SYMLINK
    assert raised.value.issues[0].source_path == "JUDGE/linked_20260331.csv"
    assert not (tmp_path / "db.sqlite").exists()


def test_release_id_must_be_jppm_digits(tmp_path: Path) -> None:
    root = tmp_path / "package"
    shutil.copytree(HANDMADE, root)
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "db.sqlite")
    assert raised.value.code == IssueCode.RELEASE_ID_INVALID
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "db.sqlite", release="JPPM20x")
    assert raised.value.code == IssueCode.RELEASE_ID_INVALID
    report = build_database(root, tmp_path / "db.sqlite", release="JPPM2026009")
    assert report.release == "JPPM2026009"


def test_source_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(BuildError) as raised:
        build_database(tmp_path / "JPPM2026001", tmp_path / "db.sqlite")
    assert raised.value.code == IssueCode.SOURCE_NOT_DIRECTORY


def test_build_error_pickles_with_its_issues(tmp_path: Path) -> None:
    import pickle

    root = _package(tmp_path)
    append(FI, "B61                ,8,0,0\n")(root)
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "out.sqlite", strict=True)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert copy.code == raised.value.code
    assert copy.issues == raised.value.issues


def test_blank_record_and_unknown_file_are_warnings(tmp_path: Path) -> None:
    root = _package(tmp_path)
    append(JUDGE, "\n03,取下げ\n")(root)
    (root / "README.txt").write_text("not part of the format", encoding="utf-8")
    report = build_database(root, tmp_path / "db.sqlite")
    assert report.warnings["CSV_BLANK_ROW"] == 1
    assert report.warnings["UNKNOWN_DATA_GROUP"] == 1
    assert report.group_counts["JUDGE"].records == 4  # the blank record keeps its number
    import sqlite3

    conn = sqlite3.connect(tmp_path / "db.sqlite")
    try:
        rows = conn.execute(
            "SELECT t.heading, t.locator FROM document_text t JOIN document d "
            "ON d.id = t.document_id WHERE d.document_key = 'judge' ORDER BY t.sequence_number"
        ).fetchall()
        assert rows == [("01", "row:1"), ("02", "row:2"), ("03", "row:4")]
    finally:
        conn.close()


@pytest.mark.skipif(os.name != "posix", reason="stale files are recognised by POSIX pids")
def test_a_killed_builds_temporary_file_is_removed_by_the_next_build(tmp_path: Path) -> None:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()  # its pid now names no process (a killed build's, say)
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        output = tmp_path / "out.sqlite"
        dead = tmp_path / f".out.sqlite.tmp-{finished.pid}"
        alive = tmp_path / f".out.sqlite.tmp-{running.pid}"
        other = tmp_path / f".other.sqlite.tmp-{finished.pid}"
        for path in (dead, alive, other):
            path.write_bytes(b"half a database")
        build_database(HANDMADE, output)
        assert output.is_file()
        assert not dead.exists()
        assert alive.read_bytes() == b"half a database"  # a build still running: untouched
        assert other.exists()  # another output's files are not this build's business
    finally:
        running.kill()
        running.wait()
