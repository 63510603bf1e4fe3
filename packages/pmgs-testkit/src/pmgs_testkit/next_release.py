"""A *next release* of a generated package, with every change written down first as a plan.

``pmgs check`` and ``pmgs diff`` compare releases, so their tests need two releases whose
differences are known without asking the code under test. :func:`plan_next_release` reads a
generated package (with documents) and chooses, by fixed rules, the codes to change; the
result (:class:`ReleasePlan`) is the oracle. :func:`write_next_release` then writes the next
release as a copy of the base with exactly those edits, in the shapes the real package uses:

* an FI code abolished with one transfer target, and one with several: its rows leave
  ``FI/FI``, the texts, the handbook, ``FI_THEME`` and the concordance; the subclass's
  ``FI_KAISEI_DOC`` XML gains one ``<infor>`` with ``attr="del"`` per target (the reader takes
  one ``<trans>`` per element, so several targets are several elements), and
  ``FI_KAISEI_LINK`` a row naming the XML;
  the several targets are written in the package's fixed-width layout (``G06F   3/    00``), as
  the real package writes some ``<trans>``, the single one canonically;
* with ``with_chains=True``, two more abolished pairs: a chain A → B → (the one-target
  code) → its present main group, and two codes that transfer to each other (a cycle), for
  the chain following of ``check``;
* an FI code retitled (``chg`` with old and new title) and an FI code added (``new``);
* an F-term theme abolished (its theme rows, F-terms, explanations, additional codes and
  ``FI_THEME`` links leave the package);
* one concordance row removed and one added.

The plan also lists the consequences (links that leave with an abolished code or theme), read
from the base files here, so that a diff must report exactly the plan and nothing else.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Final

from pmgs_core import parse_code
from pmgs_testkit.expected import GeneratedPackage

__all__ = [
    "AbolishedCode",
    "AddedCode",
    "ReleasePlan",
    "RetitledCode",
    "plan_next_release",
    "read_csv",
    "write_next_release",
]

NEXT_RELEASE: Final = "JPPM2026003"
NEXT_REFERENCE_DATE: Final = date(2026, 9, 30)
REVISION_DATE: Final = "20260701"
"""The ``<date>`` of every planned revision entry: after the base release, before the next."""
NEW_TITLE: Final = "合成データ：改正後の表示装置"
"""The Japanese title the retitled code carries in the next release in place of its old
one; marked synthetic like every generated classification text."""
ADDED_TITLE: Final = "合成データ：新設の冷却装置"
ADDED_FILE_SYMBOL: Final = "Y"
"""The added code is an existing group with this file symbol (``<group>@Y``)."""


@dataclass(frozen=True, slots=True)
class AbolishedCode:
    """An FI code that leaves ``FI/FI``; ``targets`` (canonical) in the order the XML lists
    them, ``target_texts`` as the XML writes them (default: the canonical codes)."""

    code: str
    title: str
    targets: tuple[str, ...]
    file: str  # FI/FI_KAISEI_DOC/<subclass>.xml
    target_texts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.target_texts:
            object.__setattr__(self, "target_texts", self.targets)


@dataclass(frozen=True, slots=True)
class RetitledCode:
    code: str
    old_title: str
    new_title: str
    file: str


@dataclass(frozen=True, slots=True)
class AddedCode:
    code: str
    parent: str
    title: str
    file: str


@dataclass(frozen=True, slots=True)
class ReleasePlan:
    """Everything the next release changes, as a diff of the two releases must report it.

    Codes are canonical; links are ``(from code, to code)`` pairs (FI → theme for
    ``theme_links_*``, FI → IPC 8U for ``concordance_*``).
    """

    base_release: str
    release: str
    reference_date: date
    revision_date: str
    abolished: tuple[AbolishedCode, ...]
    retitled: tuple[RetitledCode, ...]
    added: tuple[AddedCode, ...]
    abolished_theme: str
    abolished_fterm_codes: tuple[str, ...]  # the theme, its viewpoints and terms
    theme_links_removed: tuple[tuple[str, str], ...]
    concordance_removed: tuple[tuple[str, str], ...]
    concordance_added: tuple[tuple[str, str], ...]
    fi_removed: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "fi_removed", tuple(sorted(a.code for a in self.abolished)))


def read_csv(path: Path) -> tuple[bool, list[list[str]]]:
    """(had a BOM, records) of one package CSV; quirk rows keep their extra cells."""
    text = path.read_text("utf-8")
    bom = text.startswith("\ufeff")
    return bom, list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))


def _fi(cell: str) -> str:
    return parse_code("fi", cell).canonical


def _fi_rows(root: Path) -> list[tuple[str, int, str]]:
    """(canonical code, level, file name) of every FI/FI row, files in name order."""
    rows = []
    for path in sorted((root / "FI" / "FI").glob("fi_*.csv")):
        for cells in read_csv(path)[1]:
            rows.append((_fi(cells[0]), int(cells[4]), path.name))
    return rows


def _mentioned(root: Path) -> set[str]:
    """Codes the revision XML or the link files already name (left alone by the plan)."""
    found: set[str] = set()
    for path in (root / "FI" / "FI_KAISEI_DOC").glob("*.xml"):
        text = path.read_bytes().decode("cp932")
        for tag in ("FI", "trans"):
            for piece in text.split(f"<{tag}")[1:]:
                value = piece.split(">", 1)[1].split("<", 1)[0].strip()
                if value:
                    found.add(value)
    for path in (root / "FI" / "FI_KAISEI_LINK").glob("*.csv"):
        found.update(_fi(cells[0]) for cells in read_csv(path)[1])
    return found


def _candidates(package: GeneratedPackage) -> tuple[list[str], list[tuple[str, int, str]]]:
    """Plain leaf subgroups nobody else names, in file order, and all FI rows."""
    rows = _fi_rows(package.path)
    avoid = _mentioned(package.path) | set(package.examples.values())
    leaves = []
    for index, (code, level, name) in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else None
        if following is not None and following[2] == name and following[1] > level:
            continue
        parsed = parse_code("fi", code)
        if parsed.kind != "subgroup" or parsed.development_code or parsed.file_symbol:
            continue
        if code not in avoid:
            leaves.append(code)
    return leaves, rows


def _texts(root: Path, codes: set[str]) -> dict[str, list[str]]:
    """The ja FI_TEXT bodies of some codes, in file order."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "FI" / "FI_TEXT").glob("*.csv")):
        for cells in read_csv(path)[1]:
            code = _fi(cells[0])
            if code in codes:
                found.setdefault(code, []).append(cells[6])
    return found


def _xml_file(code: str) -> str:
    subclass = parse_code("fi", code)
    head = f"{subclass.section}{subclass.class_}{subclass.subclass}"
    return f"FI/FI_KAISEI_DOC/{head}.xml"


def _theme(package: GeneratedPackage) -> tuple[str, tuple[str, ...]]:
    """The last theme of THEME that no example names, and its F-term codes."""
    _, rows = read_csv(next((package.path / "FTERM" / "THEME").glob("*.csv")))
    named = set(package.examples.values()) | {package.examples.get("fterm_large_theme", "")}
    named |= {value[:5] for value in package.examples.values() if len(value) >= 5}
    themes = [r[0] for r in rows if len(r[0]) == 5 and r[0] not in named]
    theme = themes[-1]
    codes = [theme]
    for path in sorted((package.path / "FTERM" / "FTERM").glob(f"fterm_{theme[:2]}_*.csv")):
        for cells in read_csv(path)[1]:
            code = cells[0].strip()
            if code.startswith(theme):
                codes.append(code[:7] if code.endswith("00") else code)
    return theme, tuple(sorted(codes))


def _links(root: Path, group: str, pattern: str) -> list[tuple[str, str, str]]:
    """(file name, from, to) rows of FI_THEME (theme = cols 2+3) or the FI→IPC concordance."""
    found = []
    for path in sorted((root / group).glob(pattern)):
        for cells in read_csv(path)[1]:
            if group == "FI/FI_THEME":
                found.append((path.name, _fi(cells[0]), cells[2] + cells[3]))
            elif cells[0] == "1" and cells[2] == "8":
                right = parse_code("ipc", cells[3]).canonical
                found.append((path.name, _fi(cells[1]), right))
    return found


def plan_next_release(package: GeneratedPackage, *, with_chains: bool = False) -> ReleasePlan:
    """Choose the changes of the next release of ``package`` by fixed rules (no randomness).

    The package must have been generated ``with_documents=True`` (the revision XML is where
    the changes are recorded). Chosen codes are plain FI leaf subgroups of the last sections
    that no example, revision entry or link names, so that each change stands alone.
    ``with_chains`` adds a chain (A → B → the one-target code → its present main group) and a
    cycle (C → D, D → C) to ``abolished``, in the order A, B, C, D after the first two.
    """
    if not (package.path / "FI" / "FI_KAISEI_DOC").is_dir():
        raise ValueError("the base package needs its documents (with_documents=True)")
    leaves, rows = _candidates(package)
    used = 8 if with_chains else 4
    if len(leaves) < used + 3:
        raise ValueError("the base package has too few FI leaf codes for a next release")
    one, several, retitle, under = leaves[-1], leaves[-2], leaves[-3], leaves[-4]
    chain_a, chain_b, cycle_c, cycle_d = leaves[-8:-4] if with_chains else ("", "", "", "")
    chosen = set(leaves[-used:])
    main_groups = [code for code, _, _ in rows if code.endswith("/00") and code not in chosen]
    titles = _texts(package.path, chosen)
    theme, fterm_codes = _theme(package)
    spread = tuple(main_groups[-4:-1])
    abolished: tuple[AbolishedCode, ...] = (
        AbolishedCode(one, titles[one][0], (main_groups[-1],), _xml_file(one)),
        AbolishedCode(
            several,
            titles[several][0],
            spread,
            _xml_file(several),
            tuple(parse_code("fi", code).fixed_width() for code in spread),
        ),
    )
    if with_chains:
        links = ((chain_a, chain_b), (chain_b, one), (cycle_c, cycle_d))
        abolished += tuple(
            AbolishedCode(code, titles[code][0], (to,), _xml_file(code)) for code, to in links
        )
        abolished += (AbolishedCode(cycle_d, titles[cycle_d][0], (cycle_c,), _xml_file(cycle_d)),)
    added = AddedCode(f"{under}@{ADDED_FILE_SYMBOL}", under, ADDED_TITLE, _xml_file(under))
    retitled = RetitledCode(retitle, titles[retitle][0], NEW_TITLE, _xml_file(retitle))
    gone = {a.code for a in abolished}
    theme_links = {
        (fi, to)
        for _, fi, to in _links(package.path, "FI/FI_THEME", "fiTheme_*.csv")
        if fi in gone or to == theme
    }
    concordance = _links(package.path, "CONCORDANCE", "con_FItoIPC8U_*.csv")
    pairs = {(fi, ipc) for _, fi, ipc in concordance}
    removed = {(fi, ipc) for _, fi, ipc in concordance if fi in gone}
    kept = [(fi, ipc) for _, fi, ipc in concordance if fi in leaves[:-used] and fi != retitle]
    removed.add(kept[-1])
    rights = sorted({ipc for _, _, ipc in concordance if int(ipc.split("/")[0][4:]) < 8000})
    new_pair = next((retitle, ipc) for ipc in rights if (retitle, ipc) not in pairs)
    return ReleasePlan(
        base_release=package.release,
        release=NEXT_RELEASE,
        reference_date=NEXT_REFERENCE_DATE,
        revision_date=REVISION_DATE,
        abolished=abolished,
        retitled=(retitled,),
        added=(added,),
        abolished_theme=theme,
        abolished_fterm_codes=fterm_codes,
        theme_links_removed=tuple(sorted(theme_links)),
        concordance_removed=tuple(sorted(removed)),
        concordance_added=(new_pair,),
    )


def write_next_release(package: GeneratedPackage, parent_dir: Path, plan: ReleasePlan) -> Path:
    """Write ``parent_dir/<plan.release>/``: the base package with the plan's edits.

    Files the plan does not touch are copied byte for byte (CSV names take the new reference
    date); edited CSVs keep their BOM, CRLF records and quoting rules.
    """
    from pmgs_testkit._next_release_edits import apply_plan

    return apply_plan(package, Path(parent_dir), plan)
