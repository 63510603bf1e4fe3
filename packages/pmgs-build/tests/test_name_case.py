"""Names whose letter case a tool changed: data groups and files are matched in any case, and
the name as found is what the database cites (issue 43).

The handmade package is copied under the names below, written out by hand the way tools
spell them (an FAT tool's upper case, a Unix tool's lower case, a Windows user's mixture).
The case changes were chosen so that the files sort in the same order (file ids follow
path order), so the database must be the plain one but for ``source_file.path``: the same
logical digest once those paths are blanked, and every path exactly as found.
"""

from __future__ import annotations

import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from pmgs_build import BuildReport, build_database, logical_digest

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"

FOUND = {
    "CONCORDANCE/con_FItoIPC8U_B_20260331.csv": "concordance/CON_FITOIPC8U_B_20260331.CSV",
    "CONCORDANCE/con_IPC7toIPC8U_B_20260331.csv": "concordance/Con_IPC7toIPC8U_B_20260331.Csv",
    "COPYRGHT/COPYRGHT.txt": "copyrght/Copyrght.TXT",
    "FI/FI/fi_B_20260331.csv": "fi/fi/FI_B_20260331.CSV",
    "FI/FI/fi_G_20260331.csv": "fi/fi/Fi_G_20260331.csv",
    "FI/FI/fi_Z_20260331.csv": "fi/fi/fi_z_20260331.csv",
    "FI/FI_HB/fiHB_B_20260331.csv": "fi/fi_Hb/FIHB_B_20260331.csv",
    "FI/FI_HB_E/fiHBE_B_20260331.csv": "fi/fi_hb_e/fihbe_b_20260331.csv",
    "FI/FI_KAISEI_DOC/B60J.xml": "fi/fi_kaisei_doc/b60j.XML",
    "FI/FI_KAISEI_LINK/fiLink_B_20260331.csv": "fi/fi_kaisei_link/FILINK_B_20260331.CSV",
    "FI/FI_TEXT/fiText_B_20260331.csv": "fi/fi_text/FITEXT_B_20260331.csv",
    "FI/FI_TEXT/fiText_G_20260331.csv": "fi/fi_text/fitext_g_20260331.csv",
    "FI/FI_TEXT_E/fiTextE_B_20260331.csv": "fi/fi_text_e/FiTextE_B_20260331.csv",
    "FI/FI_THEME/fiTheme_B_20260331.csv": "fi/fi_theme/FITHEME_B_20260331.CSV",
    "FI/FI_THEME/fiTheme_G_20260331.csv": "fi/fi_theme/FITHEME_G_20260331.CSV",
    "FTERM/FTERM/fterm_3D_20260331.csv": "fterm/fterm/FTERM_3D_20260331.CSV",
    "FTERM/FTERM/fterm_5E_20260331.csv": "fterm/fterm/fterm_5e_20260331.csv",
    "FTERM/FTERM_E/ftermE_3D_20260331.csv": "fterm/fterm_E/FTERME_3D_20260331.csv",
    "FTERM/FTERM_E/ftermE_5E_20260331.csv": "fterm/fterm_E/fterme_5e_20260331.csv",
    "FTERM/FTERM_KAISETSU/ftermKAISETSU_3D_20260331.csv": (
        "fterm/fterm_kaisetsu/ftermkaisetsu_3d_20260331.csv"
    ),
    "FTERM/FTERM_KAISETSU_E/ftermKAISETSUE_3D_20260331.csv": (
        "fterm/fterm_kaisetsu_e/FTERMKAISETSUE_3D_20260331.CSV"
    ),
    "FTERM/THEME/theme_20260331.csv": "fterm/theme/THEME_20260331.CSV",
    "FTERM/THEME_E/themeE_20260331.csv": "fterm/theme_e/Themee_20260331.csv",
    # IPC7E_TEXT stays upper: 'E' sorts before '_' and 'e' after, which would reorder
    "IPC/IPC4_TEXT/ipc4_B_20260331.csv": "ipc/IPC4_TEXT/IPC4_B_20260331.CSV",
    "IPC/IPC5_TEXT/ipc5_B_20260331.csv": "ipc/IPC5_TEXT/ipc5_b_20260331.csv",
    "IPC/IPC6_TEXT/ipc6_B_20260331.csv": "ipc/IPC6_TEXT/Ipc6_B_20260331.csv",
    "IPC/IPC7E_TEXT/ipc7E_B_20260331.csv": "ipc/IPC7E_TEXT/IPC7E_B_20260331.CSV",
    "IPC/IPC7_TEXT/ipc7_B_20260331.csv": "ipc/IPC7_TEXT/ipc7_b_20260331.csv",
    "IPC/IPC8B_TEXT/ipc8B_B_20260331.csv": "ipc/IPC8B_TEXT/IPC8B_B_20260331.CSV",
    "IPC/IPC8U_TEXT/ipc8U_B_20260331.csv": "ipc/IPC8U_TEXT/ipc8u_b_20260331.csv",
    "JUDGE/judge_20260331.csv": "judge/JUDGE_20260331.CSV",
}


def _blanked_digest(database: Path, scratch: Path) -> str:
    """The logical digest of a copy of ``database`` without its file paths (and the manifest
    hash and build counts, which cover them)."""
    copy = scratch / f"blanked-{database.name}"
    shutil.copyfile(database, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE source_file SET path = 'p' || id")
        conn.execute("UPDATE release SET source_manifest_sha256 = ''")
        conn.execute(
            "UPDATE metadata SET value = '' WHERE key IN ('source_manifest_sha256', 'build_counts')"
        )
        return logical_digest(conn)


def _paths(database: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(database) as conn:
        rows = conn.execute("SELECT path, data_group, parser FROM source_file ORDER BY id")
        return [(str(p), str(g), None if a is None else str(a)) for p, g, a in rows]


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildReport, Path]:
    database = tmp_path_factory.mktemp("plain") / "plain.sqlite"
    return build_database(HANDMADE, database), database


def _renamed(target: Path) -> Path:
    for original, found in FOUND.items():
        path = target / found
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((HANDMADE / original).read_bytes())
    return target


def test_the_fixture_covers_every_file_and_keeps_the_order() -> None:
    files = sorted(p.relative_to(HANDMADE).as_posix() for p in HANDMADE.rglob("*") if p.is_file())
    assert sorted(FOUND) == files
    assert [FOUND[f] for f in files] == sorted(FOUND.values())
    assert all(FOUND[f] != f and FOUND[f].casefold() == f.casefold() for f in files)


@pytest.mark.parametrize("form", ["directory", "zip"])
def test_names_in_another_case_build_the_plain_database(
    form: str, tmp_path: Path, plain: tuple[BuildReport, Path]
) -> None:
    base, base_db = plain
    root = _renamed(tmp_path / "src" / "JPPM2026001")
    source = root
    if form == "zip":
        source = tmp_path / "upper.zip"
        with zipfile.ZipFile(source, "w") as archive:
            for found in sorted(FOUND.values()):
                archive.write(root / found, f"JPPM2026001/{found}")
    report = build_database(source, tmp_path / "db.sqlite")
    assert report.warnings == base.warnings
    assert report.table_counts == base.table_counts
    assert _blanked_digest(tmp_path / "db.sqlite", tmp_path) == _blanked_digest(base_db, tmp_path)
    found = _paths(tmp_path / "db.sqlite")
    expected = _paths(base_db)
    assert [path for path, _, _ in found] == sorted(FOUND.values())  # as found, not folded
    assert [(g, a) for _, g, a in found] == [(g, a) for _, g, a in expected]
