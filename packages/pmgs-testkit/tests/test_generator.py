"""The synthetic package generator is faithful to docs/pmgs-source-format.md and to itself.

Every builder test trusts these packages, so the checks here read the files back with the
csv module (never with the generator's own code) and compare against the format page and
against the counts the generator claims in ``GeneratedPackage``.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import pytest

from pmgs_core import parse_code
from pmgs_testkit import (
    CORRUPTION_KINDS,
    CSV_COLUMNS,
    DATA_GROUPS,
    NOT_TRANSLATED,
    REAL_ROWS,
    GeneratedPackage,
    corrupt,
    generate_package,
)
from pmgs_testkit.kit import tree_sha256

DATE = "20260331"
NAME_PATTERNS = {
    "CONCORDANCE": r"con_(FI|IPC7|IPC4)toIPC8U_([A-H]|ALL)_{d}\.csv",
    "FI/FI": r"fi_[A-HZ]_{d}\.csv",
    "FI/FI_TEXT": r"fiText_[A-HZ]_{d}\.csv",
    "FI/FI_TEXT_E": r"fiTextE_[A-HZ]_{d}\.csv",
    "FI/FI_HB": r"fiHB_[A-H]_{d}\.csv",
    "FI/FI_HB_E": r"fiHBE_[A-H]_{d}\.csv",
    "FI/FI_THEME": r"fiTheme_[A-H]_{d}\.csv",
    "FI/FI_KAISEI_LINK": r"fiLink_[A-H]_{d}\.csv",
    "FTERM/THEME": r"theme_{d}\.csv",
    "FTERM/THEME_E": r"themeE_{d}\.csv",
    "FTERM/FTERM": r"fterm_[2-5][A-Z]_{d}\.csv",
    "FTERM/FTERM_E": r"ftermE_[2-5][A-Z]_{d}\.csv",
    "FTERM/FTERM_KAISETSU": r"ftermKAISETSU_[2-5][A-Z]_{d}\.csv",
    "FTERM/FTERM_KAISETSU_E": r"ftermKAISETSUE_[2-5][A-Z]_{d}\.csv",
    "IPC/IPC4_TEXT": r"ipc4_[A-H]_{d}\.csv",
    "IPC/IPC5_TEXT": r"ipc5_[A-H]_{d}\.csv",
    "IPC/IPC6_TEXT": r"ipc6_[A-H]_{d}\.csv",
    "IPC/IPC7_TEXT": r"ipc7_[A-H]_{d}\.csv",
    "IPC/IPC7E_TEXT": r"ipc7E_[A-H]_{d}\.csv",
    "IPC/IPC8B_TEXT": r"ipc8B_[A-H]_{d}\.csv",
    "IPC/IPC8U_TEXT": r"ipc8U_[A-H]_{d}\.csv",
    "JUDGE": r"judge_{d}\.csv",
    "COPYRGHT": r"COPYRGHT\.txt",
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    return generate_package(tmp_path_factory.mktemp("pkg"), scale=0.0005, seed=0)


@pytest.fixture(scope="module")
def package_1pct(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    return generate_package(tmp_path_factory.mktemp("pkg1pct"), scale=0.01, seed=3)


def files_of(pkg: GeneratedPackage, group: str) -> list[Path]:
    return sorted(p for p in (pkg.path / group).iterdir() if p.is_file())


def records(path: Path) -> list[list[str]]:
    text = path.read_text(encoding="utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def group_records(pkg: GeneratedPackage, group: str) -> list[list[str]]:
    return [row for path in files_of(pkg, group) for row in records(path)]


def repaired(row: list[str], columns: int) -> list[str]:
    """The repair of docs/pmgs-source-format.md: fixed first and last columns, middle joined."""
    if len(row) == columns:
        return row
    if columns == 5:
        return [*row[:3], ",".join(row[3:-1]), row[-1]]
    return [row[0], ",".join(row[1:])]


# ------------------------------------------------------------------ determinism


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    first = generate_package(tmp_path / "a", scale=0.001, seed=7)
    second = generate_package(tmp_path / "b", scale=0.001, seed=7)
    assert tree_sha256(first.path) == tree_sha256(second.path)
    assert first.expected == second.expected
    assert first.examples == second.examples


def test_different_seed_gives_different_files(tmp_path: Path) -> None:
    first = generate_package(tmp_path / "a", scale=0.001, seed=1)
    second = generate_package(tmp_path / "b", scale=0.001, seed=2)
    one, two = tree_sha256(first.path), tree_sha256(second.path)
    assert one != two
    assert sum(one[name] != two.get(name) for name in one) > len(one) // 2


def test_refuses_to_overwrite_a_package(tmp_path: Path) -> None:
    generate_package(tmp_path, scale=0.0005)
    with pytest.raises(FileExistsError):
        generate_package(tmp_path, scale=0.0005)


@pytest.mark.parametrize(
    "kwargs",
    [{"scale": 0.0}, {"release": "PM2026"}, {"reference_date": date(2005, 1, 1)}],
)
def test_rejects_bad_arguments(tmp_path: Path, kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"."):
        generate_package(tmp_path, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------ layout


def test_every_group_is_written_with_real_file_names(package: GeneratedPackage) -> None:
    assert package.path.name == "JPPM2026002"
    assert {p.name for p in package.path.iterdir()} == {
        "CONCORDANCE",
        "FI",
        "FTERM",
        "IPC",
        "JUDGE",
        "COPYRGHT",
    }
    for group in DATA_GROUPS:
        names = [p.name for p in files_of(package, group)]
        assert names, group
        assert len(names) == package.files[group]
        pattern = re.compile(NAME_PATTERNS[group].format(d=DATE))
        assert all(pattern.fullmatch(name) for name in names), (group, names)
    assert package.files["FI/FI"] == 9
    assert package.files["FI/FI_HB"] == 8
    assert package.files["CONCORDANCE"] == 17
    assert sum(package.files[g] for g in DATA_GROUPS if g.startswith("IPC/")) == 56
    assert package.files["FTERM/FTERM_KAISETSU"] == package.files["FTERM/FTERM"] - 1


def test_reference_date_is_in_every_csv_name(tmp_path: Path) -> None:
    pkg = generate_package(
        tmp_path, scale=0.0005, release="JPPM2025001", reference_date=date(2025, 9, 30)
    )
    assert pkg.path.name == "JPPM2025001"
    csvs = list(pkg.path.rglob("*.csv"))
    assert csvs
    assert all(p.stem.endswith("_20250930") for p in csvs)


def test_utf8_with_and_without_bom_and_crlf_records(package: GeneratedPackage) -> None:
    boms = 0
    csvs = sorted(package.path.rglob("*.csv"))
    for path in csvs:
        data = path.read_bytes()
        data.decode("utf-8")  # strict
        boms += data.startswith(b"\xef\xbb\xbf")
        assert data.endswith(b"\r\n")
    assert 0 < boms < len(csvs)
    assert len(package.bom_files) == boms


def test_column_counts_and_row_counts(package: GeneratedPackage) -> None:
    for group, columns in CSV_COLUMNS.items():
        rows = group_records(package, group)
        assert len(rows) == package.rows[group], group
        wide = [r for r in rows if len(r) != columns]
        allowed = package.expected.repaired_rows.get(group, 0)
        assert len(wide) == allowed, group
        assert all(len(r) > columns for r in wide), group


def test_no_header_rows(package: GeneratedPackage) -> None:
    for group in ("FI/FI", "FTERM/FTERM", "IPC/IPC8U_TEXT", "CONCORDANCE"):
        for path in files_of(package, group):
            first = records(path)[0]
            assert first[0].strip()[:1].isalnum()
            assert not any(cell.lower() in {"code", "fi", "sequence"} for cell in first)


def test_copyright_is_one_synthetic_line(package: GeneratedPackage) -> None:
    (path,) = files_of(package, "COPYRGHT")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert "Synthetic" in lines[0]
    assert "合成データ" in lines[0]


# ------------------------------------------------------------------ codes and hierarchy


def test_codes_are_fixed_width_and_parse(package: GeneratedPackage) -> None:
    for row in group_records(package, "FI/FI"):
        assert len(row[0]) == 19
        assert parse_code("fi", row[0]).fixed_width() == row[0]
    for row in group_records(package, "IPC/IPC8U_TEXT"):
        assert len(row[0]) == 15
        assert parse_code("ipc", row[0]).fixed_width() == row[0]
    for row in group_records(package, "FTERM/FTERM"):
        assert len(row[0]) == 10
        assert parse_code("fterm", row[0]).fixed_width() == row[0]
    for row in group_records(package, "CONCORDANCE"):
        assert len(row[1]) == (19 if row[0] == "1" else 15)
        assert len(row[3]) == 15


def test_fi_levels_build_a_consistent_tree(package: GeneratedPackage) -> None:
    """The parent by level order is always a real ancestor (same subclass, same main group)."""
    for path in files_of(package, "FI/FI"):
        stack: list[tuple[int, str]] = []
        for row in records(path):
            level = int(row[4])
            code = parse_code("fi", row[0])
            while stack and stack[-1][0] >= level:
                stack.pop()
            if path.name.startswith("fi_Z_"):
                assert code.kind == "facet"
                assert level == 1
            elif stack:
                parent = parse_code("fi", stack[-1][1])
                assert code.section == parent.section
                if parent.kind in {"subclass", "main_group", "subgroup"}:
                    assert code.subclass == parent.subclass
                    assert code.class_ == parent.class_
                if parent.kind in {"main_group", "subgroup"}:
                    assert code.main_group == parent.main_group
            else:
                assert code.kind == "section"
            stack.append((level, row[0]))


def test_cross_references_resolve(package: GeneratedPackage) -> None:
    fi_codes = {r[0] for r in group_records(package, "FI/FI")}
    for group in ("FI/FI_TEXT", "FI/FI_TEXT_E", "FI/FI_HB", "FI/FI_HB_E", "FI/FI_THEME"):
        assert {r[0] for r in group_records(package, group)} <= fi_codes, group
    assert {r[0] for r in group_records(package, "FI/FI_KAISEI_LINK")} <= fi_codes
    themes = {r[0] for r in group_records(package, "FTERM/THEME") if len(r[0]) == 5}
    themes_e = {r[0] for r in group_records(package, "FTERM/THEME_E") if len(r[0]) == 5}
    assert themes == themes_e
    assert {r[2] + r[3] for r in group_records(package, "FI/FI_THEME")} <= themes
    assert {r[0][:5] for r in group_records(package, "FTERM/FTERM")} == themes
    assert {r[0][:5] for r in group_records(package, "FTERM/FTERM_KAISETSU")} <= themes


def test_fterm_translation_matches_structure_except_planned_quirks(
    package: GeneratedPackage,
) -> None:
    ja = {r[0]: r for r in group_records(package, "FTERM/FTERM")}
    en_rows = [repaired(r, 5) for r in group_records(package, "FTERM/FTERM_E")]
    assert len(en_rows) == len(ja)
    depth_differences = 0
    for row in en_rows:
        assert row[0] in ja
        assert row[1] == ja[row[0]][1]
        depth_differences += row[2] != ja[row[0]][2]
    expected = package.expected.warnings
    assert depth_differences == expected["FTERM_TRANSLATION_DEPTH_MISMATCH"] >= 2
    theme_ja = {r[0]: r[1] for r in group_records(package, "FTERM/THEME")}
    theme_en = {r[0]: r[1] for r in group_records(package, "FTERM/THEME_E")}
    sequence_differences = sum(theme_ja[c] != theme_en[c] for c in theme_ja)
    assert sequence_differences == expected["THEME_TRANSLATION_SEQUENCE_MISMATCH"] >= 2


def test_fterm_viewpoints_have_headings_and_deeper_terms(package: GeneratedPackage) -> None:
    rows = group_records(package, "FTERM/FTERM")
    headings = {r[0][:7] for r in rows if r[0][7:9] == "00"}
    assert all(r[2] == "0" for r in rows if r[0][7:9] == "00")
    terms = [r for r in rows if r[0][7:9] != "00"]
    assert {r[0][:7] for r in terms} <= headings
    assert all(int(r[2]) >= 1 for r in terms)
    assert max(int(r[2]) for r in terms) >= 3


# ------------------------------------------------------------------ quirks and examples


def test_every_quirk_is_present_at_tiny_scale(package: GeneratedPackage) -> None:
    ex = package.examples
    for name in (
        "ipc_two_versions_old_expired",
        "ipc_no_valid_revision",
        "fi_with_development_code_and_file_symbol",
        "fi_facet",
        "fterm_large_theme",
        "fterm_reference_only",
        "concordance_reference_only",
        "concordance_reference_only_fi",
        "injected_instruction_text",
        "two_char_word",
        "common_phrase",
        "theme_group_header",
        "fterm_comma_row",
        "fi_kaisei_link_comma_row",
    ):
        assert ex.get(name), name
    assert ex["fi_with_development_code_and_file_symbol"] == "B60J5/00,501@B"
    assert ex["ipc_two_versions_old_expired"] == "G06F3/048"
    assert package.expected.repaired_rows["FTERM/FTERM_E"] >= 1
    assert package.expected.repaired_rows["FI/FI_KAISEI_LINK"] >= 1
    assert package.expected.skipped_theme_rows["FTERM/THEME"] >= 1
    assert sum(package.expected.not_translated.values()) >= 3
    assert package.expected.ipc8u_several_versions >= 2
    assert package.expected.ipc8u_without_valid_revision >= 2
    facet_rows = records(package.path / "FI" / "FI" / f"fi_Z_{DATE}.csv")
    assert facet_rows
    assert all(re.fullmatch(r"Z[A-Z]{2} {16}", r[0]) for r in facet_rows)
    header = [r for r in group_records(package, "FTERM/THEME") if len(r[0]) != 5]
    assert header
    assert all(re.fullmatch(r"[2-5][A-Z]", r[0]) for r in header)


def test_not_translated_cells_are_counted(package: GeneratedPackage) -> None:
    for group, count in package.expected.not_translated.items():
        cells = sum(row.count(NOT_TRANSLATED) for row in group_records(package, group))
        assert cells == count, group


def test_multiline_cells_exist(package: GeneratedPackage) -> None:
    for group in ("FI/FI_HB", "FTERM/FTERM_KAISETSU"):
        assert any("\n" in row[-1] for row in group_records(package, group)), group


def test_ipc8u_versions_and_validity(package: GeneratedPackage) -> None:
    versions: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for row in group_records(package, "IPC/IPC8U_TEXT"):
        assert re.fullmatch(r"\((19|20)\d{2}\.\d{2}\)", row[1])
        assert int(row[2]) >= 1
        versions[row[0].replace(" ", "")][row[1]] = (row[7], row[8])
    assert len(versions) == package.expected.canonical_concepts[("ipc", "8U")]
    assert sum(len(v) for v in versions.values()) == package.expected.ipc8u_revisions
    day = DATE
    valid = {
        code: [v for v, (f, t) in vs.items() if f <= day <= t] for code, vs in versions.items()
    }
    assert all(len(v) <= 1 for v in valid.values())
    assert sum(not v for v in valid.values()) == package.expected.ipc8u_without_valid_revision
    assert sum(len(v) > 1 for v in versions.values()) == package.expected.ipc8u_several_versions
    two = versions[package.examples["ipc_two_versions_old_expired"]]
    assert len(two) == 2
    assert len(valid[package.examples["ipc_two_versions_old_expired"]]) == 1
    assert "99991231" in {t for _, t in two.values()}
    assert not valid[package.examples["ipc_no_valid_revision"]]


def test_reference_only_codes(package: GeneratedPackage) -> None:
    fterms = {r[0].strip() for r in group_records(package, "FTERM/FTERM")}
    explained = {r[0].strip() for r in group_records(package, "FTERM/FTERM_KAISETSU")}
    missing = {c for c in explained if len(c) > 5} - fterms
    assert len(missing) == package.expected.reference_only[("fterm", "")]
    assert package.examples["fterm_reference_only"] in missing
    fi_codes = {r[0] for r in group_records(package, "FI/FI")}
    ipc_codes = {r[0] for r in group_records(package, "IPC/IPC8U_TEXT")}
    concordance = group_records(package, "CONCORDANCE")
    assert len(concordance) == package.expected.relations["concordance"]
    left = {r[1] for r in concordance if r[0] == "1"} - fi_codes
    right = {r[3] for r in concordance} - ipc_codes
    assert len(left) == package.expected.reference_only[("fi", "")]
    assert len(right) == package.expected.reference_only[("ipc", "8U")]
    pairs = [tuple(r) for r in concordance]
    assert len(pairs) == len(set(pairs))


def test_injected_text_appears_exactly_once(package: GeneratedPackage) -> None:
    text = package.examples["injected_instruction_text"]
    assert "rm -rf /" in text
    hits = sum(
        p.read_text(encoding="utf-8-sig").count("rm -rf") for p in package.path.rglob("*.csv")
    )
    assert hits == 1
    (row,) = [r for r in group_records(package, "FTERM/FTERM_KAISETSU") if r[3] == text]
    assert row[0].strip() == package.examples["injected_instruction_code"]


def test_common_words_are_frequent(package: GeneratedPackage) -> None:
    texts = [r[-1] for r in group_records(package, "FI/FI_TEXT")]
    texts += [r[3] for r in group_records(package, "FTERM/FTERM")]
    assert sum(package.examples["two_char_word"] in t for t in texts) >= 10
    assert sum(package.examples["common_phrase"] in t for t in texts) >= 10
    assert all(t.startswith("合成データ") for t in texts)
    for word in ("樹脂", "車両", "制御", "装置"):
        assert any(word in t for t in texts), word


def test_expected_counts_match_the_files(package: GeneratedPackage) -> None:
    exp = package.expected
    assert exp.canonical_concepts[("fi", "")] == package.rows["FI/FI"]
    themes = sum(1 for r in group_records(package, "FTERM/THEME") if len(r[0]) == 5)
    assert exp.canonical_concepts[("fterm", "")] == themes + package.rows["FTERM/FTERM"]
    assert exp.texts["FI/FI_TEXT"] == package.rows["FI/FI_TEXT"]
    assert (
        exp.texts["FI/FI_TEXT_E"]
        == package.rows["FI/FI_TEXT_E"] - exp.not_translated["FI/FI_TEXT_E"]
    )
    for edition in ("4", "5", "6", "7", "7E", "8B"):
        codes = {r[0] for r in group_records(package, f"IPC/IPC{edition}_TEXT")}
        assert len(codes) == exp.canonical_concepts[("ipc", edition)], edition
    handbook = {r[0] for r in group_records(package, "FI/FI_HB")}
    handbook_e = {r[0] for r in group_records(package, "FI/FI_HB_E")}
    assert exp.documents["fi_handbook"] == len(handbook) + len(handbook_e)
    explained = {r[0][:5] for r in group_records(package, "FTERM/FTERM_KAISETSU")}
    assert exp.documents["fterm_explanation"] == 2 * len(explained)
    assert (
        exp.document_segments["fi_handbook"]
        == package.rows["FI/FI_HB"] + package.rows["FI/FI_HB_E"]
    )
    assert exp.relations["theme"] == package.rows["FI/FI_THEME"]
    assert exp.documents["judge"] == 1


def test_without_quirks_nothing_needs_repair_or_warns(tmp_path: Path) -> None:
    pkg = generate_package(tmp_path, scale=0.0005, with_quirks=False)
    assert set(pkg.expected.warnings.values()) == {0}
    assert set(pkg.expected.repaired_rows.values()) == {0}
    for group, columns in CSV_COLUMNS.items():
        assert all(len(r) == columns for r in group_records(pkg, group)), group


# ------------------------------------------------------------------ scale


def test_scale_is_roughly_proportional(package_1pct: GeneratedPackage) -> None:
    for group, real in REAL_ROWS.items():
        if real < 10_000:
            continue
        assert package_1pct.rows[group] == pytest.approx(real * 0.01, rel=0.2), group


def test_large_theme_at_one_percent(package_1pct: GeneratedPackage) -> None:
    theme = package_1pct.examples["fterm_large_theme"]
    per_theme = Counter(r[0][:5] for r in group_records(package_1pct, "FTERM/FTERM"))
    assert per_theme[theme] > 200


# ------------------------------------------------------------------ corruption


@pytest.mark.parametrize("kind", sorted(CORRUPTION_KINDS))
def test_each_corruption_changes_one_file(tmp_path: Path, kind: str) -> None:
    pkg = generate_package(tmp_path, scale=0.0005)
    before = tree_sha256(pkg.path)
    changed = corrupt(pkg.path, kind)
    after = tree_sha256(pkg.path)
    different = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert different
    assert str(changed.relative_to(pkg.path)) in different
    assert len({Path(k).parent for k in different}) == 1


def test_corruption_effects(tmp_path: Path) -> None:
    pkg = generate_package(tmp_path, scale=0.0005)
    path = corrupt(pkg.path, "shift_jis", group="FTERM/FTERM_KAISETSU")
    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")
    path = corrupt(pkg.path, "wrong_column_count", group="IPC/IPC8B_TEXT")
    assert len(records(path)[0]) == 8
    path = corrupt(pkg.path, "two_reference_dates")
    assert path.name.endswith("_20260401.csv")
    with pytest.raises(ValueError, match="unknown corruption"):
        corrupt(pkg.path, "nonsense")
