"""The file edits that turn a copy of a generated package into the planned next release.

Each data group gets one small row filter or insertion; nothing here decides *what* changes
(that is :func:`pmgs_testkit.next_release.plan_next_release`), so the plan stays the
only oracle. CSVs are rewritten with the generator's own conventions (BOM kept as found, CRLF
records, minimal quoting); a CSV left without records is removed, as a group file of a
theme group that no longer exists would be.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Callable
from html import escape
from pathlib import Path

from pmgs_core import parse_code
from pmgs_testkit.expected import GeneratedPackage
from pmgs_testkit.next_release import ReleasePlan, read_csv

__all__ = ["apply_plan"]

Rows = list[list[str]]
_ADDED_TITLE_EN = "Synthetic: newly created cooling apparatus"


def _fixed(scheme: str, code: str) -> str:
    return parse_code(scheme, code).fixed_width()


def _fi(cell: str) -> str:
    return parse_code("fi", cell).canonical


def _edit_csv(path: Path, transform: Callable[[Rows], Rows]) -> None:
    bom, rows = read_csv(path)
    edited = transform(rows)
    if edited == rows:
        return
    if not edited:
        path.unlink()
        return
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows(edited)
    path.write_bytes((("\ufeff" if bom else "") + buffer.getvalue()).encode("utf-8"))


def _each(root: Path, group: str, transform: Callable[[Rows], Rows]) -> None:
    directory = root / group
    for path in sorted(directory.glob("*.csv")) if directory.is_dir() else []:
        _edit_csv(path, transform)


def _copy(package: GeneratedPackage, root: Path, plan: ReleasePlan) -> None:
    old = f"_{package.reference_date:%Y%m%d}.csv"
    new = f"_{plan.reference_date:%Y%m%d}.csv"
    for source in sorted(package.path.rglob("*")):
        relative = source.relative_to(package.path)
        target = root / relative.parent / relative.name.replace(old, new)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def _fi_codes(plan: ReleasePlan, gone: set[str]) -> Callable[[Rows], Rows]:
    added = {a.parent: a for a in plan.added}

    def transform(rows: Rows) -> Rows:
        result: Rows = []
        for cells in rows:
            code = _fi(cells[0])
            if code in gone:
                continue
            result.append(cells)
            if code in added:
                level = f"{int(cells[4]) + 1:02d}"
                result.append([_fixed("fi", added[code].code), cells[1], "1", "0", level])
        return result

    return transform


def _fi_texts(plan: ReleasePlan, gone: set[str], language: str) -> Callable[[Rows], Rows]:
    added = {a.parent: a for a in plan.added}
    retitled = {r.code: r for r in plan.retitled} if language == "ja" else {}

    def transform(rows: Rows) -> Rows:
        result: Rows = []
        for index, cells in enumerate(rows):
            code = _fi(cells[0])
            if code in gone:
                continue
            retitle = code in retitled and cells[1] == "1"
            result.append([*cells[:6], retitled[code].new_title] if retitle else cells)
            following = _fi(rows[index + 1][0]) if index + 1 < len(rows) else None
            if code in added and following != code:
                title = added[code].title if language == "ja" else _ADDED_TITLE_EN
                result.append([_fixed("fi", added[code].code), "1", "1", "0", "0", "0", title])
        return result

    return transform


def _drop(predicate: Callable[[list[str]], bool]) -> Callable[[Rows], Rows]:
    return lambda rows: [cells for cells in rows if not predicate(cells)]


def _append(rows_to_add: Rows) -> Callable[[Rows], Rows]:
    return lambda rows: [*rows, *rows_to_add]


def _edit_fi(root: Path, plan: ReleasePlan) -> None:
    gone = set(plan.fi_removed)
    theme = plan.abolished_theme
    _each(root, "FI/FI", _fi_codes(plan, gone))
    _each(root, "FI/FI_TEXT", _fi_texts(plan, gone, "ja"))
    _each(root, "FI/FI_TEXT_E", _fi_texts(plan, gone, "en"))
    for group in ("FI/FI_HB", "FI/FI_HB_E"):
        _each(root, group, _drop(lambda cells: _fi(cells[0]) in gone))
    _each(
        root,
        "FI/FI_THEME",
        _drop(lambda cells: _fi(cells[0]) in gone or cells[2] + cells[3] == theme),
    )
    note = f" {plan.revision_date[:4]}年{int(plan.revision_date[4:6])}月改正（合成データ）"
    linked = [(a.code, a.file) for a in plan.abolished] + [(r.code, r.file) for r in plan.retitled]
    for code, file in linked:
        path = next((root / "FI" / "FI_KAISEI_LINK").glob(f"fiLink_{code[0]}_*.csv"))
        row = [_fixed("fi", code), Path(file).name + note]
        _edit_csv(path, _append([row]))


def _edit_concordance(root: Path, plan: ReleasePlan) -> None:
    removed = set(plan.concordance_removed)

    def is_removed(cells: list[str]) -> bool:
        if cells[0] != "1" or cells[2] != "8":
            return False
        return (_fi(cells[1]), parse_code("ipc", cells[3]).canonical) in removed

    _each(root, "CONCORDANCE", _drop(is_removed))
    for fi, ipc in plan.concordance_added:
        path = next((root / "CONCORDANCE").glob(f"con_FItoIPC8U_{fi[0]}_*.csv"))
        _edit_csv(path, _append([["1", _fixed("fi", fi), "8", _fixed("ipc", ipc)]]))


def _edit_fterm(root: Path, plan: ReleasePlan) -> None:
    theme = plan.abolished_theme
    for group in ("FTERM/THEME", "FTERM/THEME_E"):
        _each(root, group, _drop(lambda cells: cells[0] == theme))
    for group in ("FTERM/FTERM", "FTERM/FTERM_E", "FTERM/FTERM_KAISETSU", "FTERM/FTERM_KAISETSU_E"):
        _each(root, group, _drop(lambda cells: cells[0].strip().startswith(theme)))
    row = re.compile(rf"<tr><td>{theme}</td>.*?</tr>\r?\n")
    for group in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E"):
        for path in sorted((root / group).glob("*.html")) if (root / group).is_dir() else []:
            text = path.read_bytes().decode("utf-8")
            path.write_bytes(row.sub("", text).encode("utf-8"))


def _infor(attr: str, code: str, fields: tuple[str, str, str, str], day: str) -> list[str]:
    title, old, new, trans = (escape(value) for value in fields)
    return [
        "<infor>",
        f'<FI attr="{attr}">{code}</FI>',
        f"<title>{title}</title>",
        f"<oldtitle>{old}</oldtitle>",
        f"<newtitle>{new}</newtitle>",
        f"<trans>{trans}</trans>",
        f"<date>{day}</date>",
        "</infor>",
    ]


def _edit_revision_xml(root: Path, plan: ReleasePlan) -> None:
    day = plan.revision_date
    entries: dict[str, list[str]] = {}
    for gone in plan.abolished:
        for target in gone.target_texts:
            lines = _infor("del", gone.code, (gone.title, gone.title, "", target), day)
            entries.setdefault(gone.file, []).extend(lines)
    for changed in plan.retitled:
        fields = (changed.new_title, changed.old_title, changed.new_title, "")
        entries.setdefault(changed.file, []).extend(_infor("chg", changed.code, fields, day))
    for added in plan.added:
        fields = (added.title, "", added.title, "")
        entries.setdefault(added.file, []).extend(_infor("new", added.code, fields, day))
    for name, lines in entries.items():
        path = root / name
        data = path.read_bytes()
        try:
            text, codec = data.decode("shift_jis"), "shift_jis"
        except UnicodeDecodeError:
            text, codec = data.decode("cp932"), "cp932"
        block = "\r\n".join(lines) + "\r\n"
        path.write_bytes(text.replace("</data>", block + "</data>", 1).encode(codec))


def apply_plan(package: GeneratedPackage, parent_dir: Path, plan: ReleasePlan) -> Path:
    """Copy the base package to ``parent_dir/<release>`` and apply every planned edit."""
    root = parent_dir / plan.release
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    _copy(package, root, plan)
    _edit_fi(root, plan)
    _edit_concordance(root, plan)
    _edit_fterm(root, plan)
    _edit_revision_xml(root, plan)
    return root
