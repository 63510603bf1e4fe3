"""Synthetic PMGS packages: every CSV data group of ``docs/pmgs-source-format.md``.

Nobody on the project may hold the real package, so the builder is developed and tested
against packages written here. They follow the real layout (directory and file names, column
counts, fixed-width codes, UTF-8 with and without BOM, CRLF records, quoted multi-line cells)
and reproduce the irregularities measured on the real release, at a chosen fraction of its size.

How the data hangs together (and why it can be streamed):

* One IPC "base tree" per section (section, classes, subclasses, main groups, dotted
  subgroups) is generated from its own random stream. The FI table is that tree plus FI-only
  extensions (development codes ``,501`` and file symbols ``@B``) under each group; the IPC
  editions are the same tree with a few subgroups left out per older edition. FI, FI texts,
  handbook, themes, revision links, the IPC editions and the concordance of a section are
  written in one pass over that tree, each group drawing from its own random stream, so that
  every group is consistent with the others and nothing is kept in memory but the theme list.
* F-term themes are planned up front (a few thousand small records at full scale); each theme
  group file is then written in one pass producing ja and en rows side by side.
* Every count the builder should reproduce is tallied while writing, so
  :class:`ExpectedCounts` is exact, not estimated.

All randomness comes from ``random.Random`` seeded with strings derived from ``seed``; no clock,
no hash randomisation, fixed iteration order: the same arguments give byte-identical files.
"""

from __future__ import annotations

import math
import random
import re
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Final, NamedTuple

from pmgs_build.testing._output import LINE_END, CsvFile, Output
from pmgs_build.testing.documents import DOCUMENT_GROUPS, DocumentCounts, DocumentWriter
from pmgs_build.testing.vocabulary import (
    COMMON_PHRASE,
    INJECTED_INSTRUCTION,
    SYNTHETIC_MARK_EN,
    SYNTHETIC_MARK_JA,
    TWO_CHAR_WORD,
    TextMaker,
)
from pmgs_core import ClassificationCode, Kind

__all__ = [
    "CSV_COLUMNS",
    "DATA_GROUPS",
    "NOT_TRANSLATED",
    "REAL_FILES",
    "REAL_ROWS",
    "ExpectedCounts",
    "GeneratedPackage",
    "generate_package",
]

NOT_TRANSLATED: Final = "(Not Translated)"

DATA_GROUPS: Final = (
    "CONCORDANCE",
    "FI/FI",
    "FI/FI_TEXT",
    "FI/FI_TEXT_E",
    "FI/FI_HB",
    "FI/FI_HB_E",
    "FI/FI_THEME",
    "FI/FI_KAISEI_LINK",
    "FTERM/THEME",
    "FTERM/THEME_E",
    "FTERM/FTERM",
    "FTERM/FTERM_E",
    "FTERM/FTERM_KAISETSU",
    "FTERM/FTERM_KAISETSU_E",
    "IPC/IPC4_TEXT",
    "IPC/IPC5_TEXT",
    "IPC/IPC6_TEXT",
    "IPC/IPC7_TEXT",
    "IPC/IPC7E_TEXT",
    "IPC/IPC8B_TEXT",
    "IPC/IPC8U_TEXT",
    "JUDGE",
    "COPYRGHT",
)
"""The data groups always written (CSV and COPYRGHT), as relative directories. The XML, HTML
and PDF groups (:data:`~pmgs_build.testing.DOCUMENT_GROUPS`: ``FI/FI_KAISEI_DOC``,
``FTERM/ADD_CODE(_E)``, ``IPC_KAISEI``, ``REFERENCE/IPC_TEIGI``) are added by
``generate_package(..., with_documents=True)``."""

CSV_COLUMNS: Final[dict[str, int]] = {
    "CONCORDANCE": 4,
    "FI/FI": 5,
    "FI/FI_TEXT": 7,
    "FI/FI_TEXT_E": 7,
    "FI/FI_HB": 5,
    "FI/FI_HB_E": 5,
    "FI/FI_THEME": 5,
    "FI/FI_KAISEI_LINK": 2,
    "FTERM/THEME": 8,
    "FTERM/THEME_E": 8,
    "FTERM/FTERM": 5,
    "FTERM/FTERM_E": 5,
    "FTERM/FTERM_KAISETSU": 4,
    "FTERM/FTERM_KAISETSU_E": 4,
    "IPC/IPC4_TEXT": 6,
    "IPC/IPC5_TEXT": 6,
    "IPC/IPC6_TEXT": 6,
    "IPC/IPC7_TEXT": 6,
    "IPC/IPC7E_TEXT": 6,
    "IPC/IPC8B_TEXT": 9,
    "IPC/IPC8U_TEXT": 11,
    "JUDGE": 2,
}
"""Columns per record of each CSV group (the repaired rows of ``FTERM/FTERM_E`` and
``FI/FI_KAISEI_LINK`` have more before repair)."""

REAL_ROWS: Final[dict[str, int]] = {
    "CONCORDANCE": 500_577,
    "FI/FI": 190_384,
    "FI/FI_TEXT": 192_688,
    "FI/FI_TEXT_E": 192_827,
    "FI/FI_HB": 323_264,
    "FI/FI_HB_E": 323_364,
    "FI/FI_THEME": 187_597,
    "FI/FI_KAISEI_LINK": 636,
    "FTERM/THEME": 2_973,
    "FTERM/THEME_E": 2_973,
    "FTERM/FTERM": 411_383,
    "FTERM/FTERM_E": 411_383,
    "FTERM/FTERM_KAISETSU": 506_558,
    "FTERM/FTERM_KAISETSU_E": 507_014,
    # The format page gives "71-80 k each" for the older editions; these are picks in range.
    "IPC/IPC4_TEXT": 71_204,
    "IPC/IPC5_TEXT": 73_511,
    "IPC/IPC6_TEXT": 75_862,
    "IPC/IPC7_TEXT": 77_930,
    "IPC/IPC7E_TEXT": 79_648,
    "IPC/IPC8B_TEXT": 71_516,
    "IPC/IPC8U_TEXT": 86_497,
    "JUDGE": 92,
}
"""Logical rows per group of the real release (the targets of ``scale=1.0``)."""

REAL_FILES: Final[dict[str, int]] = {
    "CONCORDANCE": 17,
    "FI/FI": 9,
    "FI/FI_TEXT": 9,
    "FI/FI_TEXT_E": 9,
    "FI/FI_HB": 8,
    "FI/FI_HB_E": 8,
    "FI/FI_THEME": 8,
    "FI/FI_KAISEI_LINK": 8,
    "FTERM/THEME": 1,
    "FTERM/THEME_E": 1,
    "FTERM/FTERM": 41,
    "FTERM/FTERM_E": 41,
    "FTERM/FTERM_KAISETSU": 40,
    "FTERM/FTERM_KAISETSU_E": 40,
    "IPC/IPC4_TEXT": 8,
    "IPC/IPC5_TEXT": 8,
    "IPC/IPC6_TEXT": 8,
    "IPC/IPC7_TEXT": 8,
    "IPC/IPC7E_TEXT": 8,
    "IPC/IPC8B_TEXT": 8,
    "IPC/IPC8U_TEXT": 8,
    "JUDGE": 1,
    "COPYRGHT": 1,
}
"""Files per group of the real release; reproduced at every scale except the F-term groups,
which have one file per theme group and so fewer files when there are fewer than 41 themes."""

SECTIONS: Final = "ABCDEFGH"
_SECTION_WEIGHTS: Final = (0.14, 0.19, 0.15, 0.03, 0.04, 0.12, 0.17, 0.16)
_SUBCLASS_LETTERS: Final = "BCDFGHJKLMNPQRSTUVWXY"
_THEME_GROUPS: Final = [
    "2B",
    "2C",
    "2D",
    "2E",
    "2F",
    "2G",
    "2H",
    "2K",
    "3B",
    "3C",
    "3D",
    "3E",
    "3F",
    "3G",
    "3H",
    "3J",
    "3K",
    "3L",
    "4B",
    "4C",
    "4D",
    "4E",
    "4F",
    "4G",
    "4H",
    "4J",
    "4K",
    "4L",
    "4M",
    "5B",
    "5C",
    "5D",
    "5E",
    "5F",
    "5G",
    "5H",
    "5J",
    "5K",
    "5L",
    "5M",
    "5N",
]
_IPC_BASE_CODES: Final = 72_000
"""Codes of the IPC base tree at full scale (sections to subgroups, about IPC 8's size)."""
_CODES_PER_SUBCLASS: Final = 112
_FACETS: Final = 600
_THEMES: Final = 2_932
_IPC_OLD_EDITIONS: Final = ("4", "5", "6", "7", "7E")
_EDITION_DROP: Final[dict[str, float]] = {"4": 0.14, "5": 0.10, "6": 0.07, "7": 0.04}
"""Share of subgroups missing from an older edition (7E is 7 in English: same codes)."""
_P_MULTI_VERSION: Final = 1_624 / 70_000
_P_NO_VALID: Final = 2_395 / 70_000
_CONCORDANCE_SHARE: Final = {"FI": 0.62, "IPC7": 0.28, "IPC4": 0.10}
_LARGE_THEME: Final = "4C083"
_LARGE_THEME_ROWS: Final = 240
_TEXT_NOTE_JA: Final = "\n（注）合成データの補足行。"
_TEXT_NOTE_EN: Final = "\n(Note) synthetic supplementary line."

# Codes that every package contains, whatever the scale and seed, so that tests and the
# embedded sample can name them: (subclass, main group) -> [(subgroup, dots)] and FI
# extensions per group -> [(development code, file symbol)].
_FORCED_CLASSES: Final[dict[str, tuple[int, str]]] = {"B": (60, "J"), "G": (6, "F")}
_FORCED_GROUPS: Final[dict[str, tuple[int, tuple[tuple[str, int], ...]]]] = {
    "B60J": (5, (("02", 0), ("04", 0), ("06", 1))),
    "G06F": (
        3,
        (("02", 0), ("04", 0), ("041", 1), ("042", 1), ("048", 1), ("0482", 2), ("06", 0)),
    ),
}
_FORCED_FI_EXTENSIONS: Final[dict[str, tuple[tuple[str | None, str | None], ...]]] = {
    "B60J5/00": ((None, "A"), ("501", None), ("501", "A"), ("501", "B")),
    "B60J5/02": (("101", None),),
    "G06F3/048": ((None, "A"), (None, "B")),
}
_FORCED_IPC_STATE: Final[dict[str, str]] = {
    "G06F3/048": "multi",
    "G06F3/041": "expired2",
    "G06F3/042": "expired",
}

_FORCED_EXAMPLES: Final[dict[str, str]] = {
    "B60J5/00,501@B": "fi_with_development_code_and_file_symbol",
    "B60J5/02,101": "fi_with_development_code",
    "B60J5/00@A": "fi_with_file_symbol",
    "G06F3/048": "ipc_two_versions_old_expired",
    "G06F3/041": "ipc_no_valid_revision_two_versions",
    "G06F3/042": "ipc_no_valid_revision",
}


@dataclass(frozen=True)
class ExpectedCounts:
    """What a correct build of the package must report, computed the way docs/database.md does.

    Keys ``(scheme, edition)`` use edition ``''`` for FI and F-term and ``4``, ``5``, ``6``,
    ``7``, ``7E``, ``8B``, ``8U`` for IPC.

    * ``canonical_concepts``: distinct codes defined by a code table: FI = rows of ``FI/FI``;
      F-term = themes (rows of ``THEME`` whose col 0 is a theme code) + viewpoints (number
      ``00`` rows) + terms; IPC = distinct codes of each edition's text files (for 8U several
      versions of one code are one concept).
    * ``reference_only``: distinct codes that only a relation or explanation names:
      ``(fterm, '')`` from ``FTERM_KAISETSU(_E)`` column 0, ``(ipc, '8U')`` from concordance
      right-hand codes, ``(fi, '')`` from concordance left-hand codes.
    * ``parents``: concepts that get a ``parent`` relation (FI and IPC: every row after the
      first row of lower level in its file, once per concept; F-term: viewpoints and terms).
    * ``texts``: text rows per data group (``FI/FI_TEXT``: one per record; ``THEME``: title
      plus non-empty remarks; ``FTERM``: label per record; IPC: one per record). English
      ``(Not Translated)`` cells are not texts and are counted in ``not_translated``.
    * ``texts_by_language``: the same summed over ja and en groups.
    * ``documents``: per document kind (``fi_handbook``: distinct (language, code) in the
      handbook files; ``fterm_explanation``: distinct (language, theme); ``judge``: 1).
    * ``document_segments``: segments per kind (one per record).
    * ``relations``: ``theme`` (``FI/FI_THEME`` records), ``concordance`` (records), ``parent``
      (sum of ``parents``).
    * ``warnings``: build warnings the package must cause, by issue code
      (``FTERM_TRANSLATION_DEPTH_MISMATCH``: en depth differs from ja;
      ``THEME_TRANSLATION_SEQUENCE_MISMATCH``: ``THEME_E`` col 1 differs from ``THEME``).
    * ``skipped_theme_rows``: rows of ``THEME`` / ``THEME_E`` whose col 0 is no theme.
    * ``repaired_rows``: records with unquoted commas (extra columns) per group.
    * ``not_translated``: ``(Not Translated)`` English cells per group.
    * ``ipc8u_revisions``: (code, version) pairs of ``IPC8U_TEXT``;
      ``ipc8u_several_versions``: codes with more than one version;
      ``ipc8u_without_valid_revision``: codes none of whose versions is valid on the reference
      date (a lookup without a version must say "not valid at release").
    * ``document_groups``: ``None`` unless the package was written ``with_documents``; then the
      counts of the XML/HTML/PDF groups (:class:`~pmgs_build.testing.DocumentCounts`), and the
      fields above include them: ``documents`` / ``document_segments`` get ``fi_revision``
      (XML files / ``infor`` elements), ``fterm_additional_code`` (ADD_CODE(_E) files / table
      data rows), ``ipc_revision`` (IPC_KAISEI files / data rows), ``ipc_definition`` (PDFs /
      pages *with* text: a page without text is a warning, not a segment, and the other pages
      keep their page numbers); ``relations['amended_to']`` = non-empty ``<trans>`` + IPC_KAISEI
      rows; ``reference_only[('fi', '')]`` adds the deleted FI codes named only by revision
      XML; ``warnings`` gets ``HTML_RECOVERY_USED`` (files), ``PDF_EMPTY_PAGE`` (pages) and
      ``XML_CP932_FALLBACK`` (the one CP932-only XML file, with quirks).
    """

    canonical_concepts: dict[tuple[str, str], int]
    reference_only: dict[tuple[str, str], int]
    parents: dict[tuple[str, str], int]
    texts: dict[str, int]
    texts_by_language: dict[str, int]
    documents: dict[str, int]
    document_segments: dict[str, int]
    relations: dict[str, int]
    warnings: dict[str, int]
    skipped_theme_rows: dict[str, int]
    repaired_rows: dict[str, int]
    not_translated: dict[str, int]
    ipc8u_revisions: int
    ipc8u_several_versions: int
    ipc8u_without_valid_revision: int
    document_groups: DocumentCounts | None = None


@dataclass(frozen=True)
class GeneratedPackage:
    """A package written by :func:`generate_package` and what is known about it.

    * ``path``: the release directory (``parent_dir/<release>``).
    * ``files``: files per data group (``DATA_GROUPS`` names, plus ``DOCUMENT_GROUPS`` when
      written ``with_documents``: there ``rows`` counts ``infor`` elements, HTML table data
      rows and PDF pages, and the ``.xsl`` counts as a file with no rows).
    * ``rows``: logical records per data group. **No CSV of the package has a header row**
      (none is documented for the real files), so every record is data and ``rows`` equals
      what a CSV reader returns; a record with a quoted multi-line cell counts once, a record
      with unquoted extra commas counts once. ``COPYRGHT`` counts its one line.
    * ``expected``: see :class:`ExpectedCounts`.
    * ``examples``: named codes and strings worth asserting on (canonical notation), e.g.
      ``ipc_two_versions_old_expired``, ``ipc_no_valid_revision``,
      ``fi_with_development_code_and_file_symbol``, ``fterm_large_theme``,
      ``fterm_reference_only``, ``concordance_reference_only``, ``injected_instruction_text``
      (the hostile text itself; its document key is ``injected_instruction_document`` and its
      code ``injected_instruction_code``), ``two_char_word``, ``common_phrase``.
    """

    path: Path
    release: str
    reference_date: date
    scale: float
    seed: int
    with_quirks: bool
    files: dict[str, int]
    rows: dict[str, int]
    expected: ExpectedCounts
    examples: dict[str, str]
    bom_files: tuple[str, ...] = field(default=())


class _Theme(NamedTuple):
    code: str
    group: str
    number: str
    size: int
    position: int


class _Base(NamedTuple):
    """One code of the IPC base tree with its hierarchy level (section = 1)."""

    level: int
    code: ClassificationCode


def _scaled(real: float, scale: float, minimum: int) -> int:
    return max(minimum, round(real * scale))


def _draw(rng: random.Random, mean: float) -> int:
    """A count with the given mean: floor(mean) plus one with probability frac(mean)."""
    whole = math.floor(mean)
    return whole + (1 if rng.random() < mean - whole else 0)


def _ipc(section: str, class_: int | None = None, letter: str | None = None) -> ClassificationCode:
    kind: Kind = "section" if class_ is None else "class" if letter is None else "subclass"
    return ClassificationCode(
        scheme="ipc",
        kind=kind,
        section=section,
        class_=None if class_ is None else f"{class_:02d}",
        subclass=letter,
    )


def _ipc_group(subclass: ClassificationCode, main: int, sub: str) -> ClassificationCode:
    return ClassificationCode(
        scheme="ipc",
        kind="main_group" if sub == "00" else "subgroup",
        section=subclass.section,
        class_=subclass.class_,
        subclass=subclass.subclass,
        main_group=str(main),
        subgroup=sub,
    )


def _as_fi(
    code: ClassificationCode, dev: str | None = None, sym: str | None = None
) -> ClassificationCode:
    return ClassificationCode(
        scheme="fi",
        kind=code.kind,
        section=code.section,
        class_=code.class_,
        subclass=code.subclass,
        main_group=code.main_group,
        subgroup=code.subgroup,
        development_code=dev,
        file_symbol=sym,
    )


@dataclass
class _Plan:
    """Sizes and choices made before writing, all derived from (scale, seed, with_quirks)."""

    scale: float
    seed: int
    with_quirks: bool
    reference_date: date
    section_budget: dict[str, int]
    fi_extension_mean: float
    ipc_groups: int
    facets: int
    themes: list[_Theme]
    theme_groups: list[str]
    kaisetsu_groups: list[str]
    theme_seq_mismatch: frozenset[int]
    depth_mismatch: frozenset[int]
    comma_rows: frozenset[int]
    link_comma_rows: int
    compact: bool = False
    with_documents: bool = False

    @property
    def date_token(self) -> str:
        return self.reference_date.strftime("%Y%m%d")

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"pmgs-synthetic:{self.seed}:{purpose}")  # noqa: S311 - test data

    @classmethod
    def make(
        cls,
        scale: float,
        seed: int,
        with_quirks: bool,
        reference_date: date,
        *,
        compact: bool = False,
        with_documents: bool = False,
    ) -> _Plan:
        """Plan a package; ``compact`` lowers the minimum sizes (the embedded sample)."""
        rng = random.Random(f"pmgs-synthetic:{seed}:plan")  # noqa: S311 - test data
        min_section = 4 if compact else 8
        ipc_total = _scaled(_IPC_BASE_CODES, scale, 8 * min_section)
        budget = {
            s: max(min_section, round(ipc_total * w))
            for s, w in zip(SECTIONS, _SECTION_WEIGHTS, strict=True)
        }
        structural = sum(
            1 + _classes_for(_subclasses_for(b)) + _subclasses_for(b) for b in budget.values()
        )
        groups = max(1, sum(budget.values()) - structural)
        facets = min(26 * 26 - 1, _scaled(_FACETS, scale, 3))
        fi_target = _scaled(REAL_ROWS["FI/FI"], scale, 1) - facets
        fi_extension_mean = max(0.5, (fi_target - sum(budget.values())) / groups)

        theme_count = _scaled(_THEMES, scale, 4 if compact else 8)
        group_count = min(len(_THEME_GROUPS), theme_count)
        chosen = set(rng.sample([g for g in _THEME_GROUPS if g != "4C"], group_count - 1))
        theme_groups = [g for g in _THEME_GROUPS if g in chosen or g == "4C"]
        per_group = [theme_count // group_count] * group_count
        for i in rng.sample(range(group_count), theme_count % group_count):
            per_group[i] += 1
        fterm_target = _scaled(REAL_ROWS["FTERM/FTERM"], scale, 1)
        mean_size = max(10.0 if compact else 6.0, fterm_target / theme_count)
        themes: list[_Theme] = []
        for group, count in zip(theme_groups, per_group, strict=True):
            numbers = sorted(rng.sample(range(1, 1000), count))
            if group == "4C" and 83 not in numbers:
                numbers[0 if count == 1 else rng.randrange(count)] = 83
                numbers.sort()
            for number in numbers:
                code = f"{group}{number:03d}"
                size = max(6, round(mean_size * rng.uniform(0.4, 1.6)))
                if code == _LARGE_THEME:
                    size = max(size, 24 if compact else _LARGE_THEME_ROWS)
                themes.append(_Theme(code, group, f"{number:03d}", size, len(themes)))
        # One theme group has no explanation file in the real release (40 of 41).
        excluded = next(g for g in reversed(theme_groups) if g != "4C") if group_count > 1 else ""
        kaisetsu_groups = [g for g in theme_groups if g != excluded]

        def pick(real: int) -> frozenset[int]:
            if not with_quirks:
                return frozenset()
            count = min(len(themes), _scaled(real, scale, 2))
            return frozenset(rng.sample(range(len(themes)), count))

        return cls(
            scale=scale,
            seed=seed,
            with_quirks=with_quirks,
            reference_date=reference_date,
            section_budget=budget,
            fi_extension_mean=fi_extension_mean,
            ipc_groups=groups,
            facets=facets,
            themes=themes,
            theme_groups=theme_groups,
            kaisetsu_groups=kaisetsu_groups,
            theme_seq_mismatch=pick(49),
            depth_mismatch=pick(7),
            comma_rows=pick(13),
            link_comma_rows=_scaled(2, scale, 2) if with_quirks else 0,
            compact=compact,
            with_documents=with_documents,
        )


def _subclasses_for(budget: int) -> int:
    return max(1, round(budget / _CODES_PER_SUBCLASS))


def _classes_for(subclasses: int) -> int:
    return min(60, max(1, math.ceil(subclasses / 4)))


def _subgroups(rng: random.Random, count: int) -> list[tuple[str, int]]:
    """Subgroup numbers and dot depths of one main group, in IPC order (``/02``, ``/021``…)."""
    out: list[tuple[str, int]] = []
    value, depth = 0, 0
    while len(out) < count and value < 96:
        value += 2
        out.append((f"{value:02d}", depth))
        if len(out) < count and rng.random() < 0.25:
            for digit in sorted(rng.sample(range(1, 10), rng.randint(1, 3))):
                if len(out) >= count:
                    break
                out.append((f"{value:02d}{digit}", depth + 1))
        depth = rng.randint(0, min(depth + 1, 2))
    return out


def _iter_tree(plan: _Plan, section: str) -> Iterator[_Base]:
    """The IPC base tree of one section, regenerated identically from the seed on each call."""
    rng = plan.rng(f"tree:{section}")
    budget = plan.section_budget[section]
    n_sub = _subclasses_for(budget)
    n_cls = _classes_for(n_sub)
    yield _Base(1, _ipc(section))
    class_numbers = sorted(rng.sample(range(1, 100), n_cls))
    forced_class = _FORCED_CLASSES.get(section)
    if forced_class is not None and forced_class[0] not in class_numbers:
        class_numbers[rng.randrange(n_cls)] = forced_class[0]
        class_numbers.sort()
    per_class = [1] * n_cls
    for _ in range(n_sub - n_cls):
        per_class[rng.randrange(n_cls)] += 1
    remaining = budget - 1 - n_cls - n_sub
    per_subclass = max(3, remaining // n_sub)
    for number, letters_count in zip(class_numbers, per_class, strict=True):
        yield _Base(2, _ipc(section, number))
        letters = sorted(rng.sample(_SUBCLASS_LETTERS, min(letters_count, len(_SUBCLASS_LETTERS))))
        if (
            forced_class is not None
            and number == forced_class[0]
            and forced_class[1] not in letters
        ):
            letters[rng.randrange(len(letters))] = forced_class[1]
            letters.sort()
        for letter in letters:
            subclass = _ipc(section, number, letter)
            yield _Base(3, subclass)
            yield from _iter_groups(rng, subclass, per_subclass)


def _iter_groups(rng: random.Random, subclass: ClassificationCode, budget: int) -> Iterator[_Base]:
    forced = _FORCED_GROUPS.get(subclass.canonical)
    main = 1
    left = budget
    while left > 0 or forced is not None:
        if forced is not None and (left <= 0 or main >= forced[0]):
            main = forced[0]
            subgroups = list(forced[1])
            forced = None
        else:
            subgroups = _subgroups(rng, min(max(left - 1, 0), rng.randint(2, 14)))
        yield _Base(4, _ipc_group(subclass, main, "00"))
        for sub, dots in subgroups:
            yield _Base(5 + dots, _ipc_group(subclass, main, sub))
        left -= 1 + len(subgroups)
        main += rng.choice((1, 1, 2, 3, 5))


def _fi_extensions(
    rng: random.Random, code: ClassificationCode, mean: float
) -> list[tuple[str | None, str | None]]:
    """FI-only subdivisions of an IPC group: file symbols, development codes and both."""
    forced = _FORCED_FI_EXTENSIONS.get(code.canonical)
    if forced is not None:
        return list(forced)
    count = min(30, round(rng.expovariate(1 / mean)))
    out: list[tuple[str | None, str | None]] = []
    direct = min(count, rng.choice((0, 0, 1, 2)))
    out.extend((None, chr(65 + i)) for i in range(direct))
    dev = rng.choice((101, 501, 701))
    while len(out) < count:
        out.append((f"{dev:03d}", None))
        for i in range(min(count - len(out), rng.choice((0, 0, 1, 2)))):
            out.append((f"{dev:03d}", chr(65 + i)))
        dev += 1
    return out


class _Writer:
    """Writes one package; holds the tallies that become :class:`ExpectedCounts`."""

    def __init__(self, root: Path, plan: _Plan) -> None:
        self.plan = plan
        self.out = Output(root, plan.seed)
        self.texts: Counter[str] = Counter()
        self.not_translated: Counter[str] = Counter()
        self.concepts: Counter[tuple[str, str]] = Counter()
        self.parents: Counter[tuple[str, str]] = Counter()
        self.reference_only: Counter[tuple[str, str]] = Counter()
        self.documents: Counter[str] = Counter()
        self.segments: Counter[str] = Counter()
        self.warnings: Counter[str] = Counter()
        self.repaired: Counter[str] = Counter()
        self.skipped_theme_rows: Counter[str] = Counter()
        self.relations: Counter[str] = Counter()
        self.ipc8u_revisions = 0
        self.ipc8u_multi = 0
        self.ipc8u_no_valid = 0
        self.newline_cells = 0
        self.examples: dict[str, str] = {
            "two_char_word": TWO_CHAR_WORD,
            "common_phrase": COMMON_PHRASE,
        }
        self.maker = TextMaker(plan.rng("text"))
        self.docs: DocumentWriter | None = None
        if plan.with_documents:
            self.docs = _document_writer(self.out, plan)

    def example(self, name: str, value: str) -> None:
        self.examples.setdefault(name, value)

    # ----------------------------------------------------------------- F-term

    def write_themes(self) -> None:
        plan = self.plan
        rng = plan.rng("themes")
        name = plan.date_token
        with (
            self.out.open("FTERM/THEME", f"theme_{name}.csv") as ja,
            self.out.open("FTERM/THEME_E", f"themeE_{name}.csv") as en,
        ):
            sequence = 0
            group = ""
            for theme in plan.themes:
                if theme.group != group:
                    group = theme.group
                    sequence += 1
                    # A bare group header: not a theme, the builder skips and counts it.
                    head = [group, str(sequence), group, "0", f"{sequence:05d}", ""]
                    ja.row([*head, f"{SYNTHETIC_MARK_JA}テーマグループ{group}", ""])
                    en.row([*head, f"{SYNTHETIC_MARK_EN}theme group {group}", ""])
                    self.skipped_theme_rows["FTERM/THEME"] += 1
                    self.skipped_theme_rows["FTERM/THEME_E"] += 1
                    self.example("theme_group_header", group)
                sequence += 1
                title_ja, title_en = self.maker.title()
                remarks = rng.random() < 0.2
                remark_ja = f"{SYNTHETIC_MARK_JA}備考：{title_ja[6:]}と併用" if remarks else ""
                remark_en = (
                    f"{SYNTHETIC_MARK_EN}remark: used with {title_en[11:]}" if remarks else ""
                )
                coverage = f"{rng.choice(SECTIONS)}{rng.randint(1, 99):02d}{rng.choice('BCDFGHJK')}"
                coverage += f"{rng.randint(1, 40)}/00-{rng.randint(41, 99)}/99"
                cells = [theme.code, str(sequence), theme.group, "0", f"{sequence:05d}", coverage]
                ja.row([*cells, title_ja, remark_ja])
                self.texts["FTERM/THEME"] += 1 + (1 if remarks else 0)
                en_cells = list(cells)
                if theme.position in plan.theme_seq_mismatch:
                    en_cells[1] = str(sequence + 1)
                    self.warnings["THEME_TRANSLATION_SEQUENCE_MISMATCH"] += 1
                    self.example("fterm_theme_sequence_mismatch", theme.code)
                if rng.random() < 0.01 or self.not_translated["FTERM/THEME_E"] < 1:
                    en.row([*en_cells, NOT_TRANSLATED, ""])
                    self.not_translated["FTERM/THEME_E"] += 1
                    self.example("fterm_theme_not_translated", theme.code)
                else:
                    en.row([*en_cells, title_en, remark_en])
                    self.texts["FTERM/THEME_E"] += 1 + (1 if remarks else 0)
                self.concepts[("fterm", "")] += 1

    def write_fterms(self) -> None:
        plan = self.plan
        fterm_rows = sum(t.size for t in plan.themes)
        explained = sum(t.size for t in plan.themes if t.group in plan.kaisetsu_groups)
        ref_rate = _scaled(400, plan.scale, 2) / max(1, len(plan.themes))
        explained_themes = sum(1 for t in plan.themes if t.group in plan.kaisetsu_groups)
        target = REAL_ROWS["FTERM/FTERM_KAISETSU"] * plan.scale * explained / fterm_rows
        # Viewpoint headings (about 1 row in 22) get no explanation; themes get 1.5 lines.
        kaisetsu_mean = max(0.3, (target - 1.5 * explained_themes) / (explained * 0.955))
        en_extra = REAL_ROWS["FTERM/FTERM_KAISETSU_E"] / REAL_ROWS["FTERM/FTERM_KAISETSU"] - 1
        token = plan.date_token
        for group in plan.theme_groups:
            themes = [t for t in plan.themes if t.group == group]
            rng = plan.rng(f"fterm:{group}")
            with (
                self.out.open("FTERM/FTERM", f"fterm_{group}_{token}.csv") as ja,
                self.out.open("FTERM/FTERM_E", f"ftermE_{group}_{token}.csv") as en,
            ):
                if group in plan.kaisetsu_groups:
                    with (
                        self.out.open(
                            "FTERM/FTERM_KAISETSU", f"ftermKAISETSU_{group}_{token}.csv"
                        ) as kja,
                        self.out.open(
                            "FTERM/FTERM_KAISETSU_E", f"ftermKAISETSUE_{group}_{token}.csv"
                        ) as ken,
                    ):
                        for theme in themes:
                            self._write_theme_terms(
                                rng,
                                theme,
                                ja=ja,
                                en=en,
                                kaisetsu=(kja, ken),
                                kaisetsu_mean=kaisetsu_mean,
                                en_extra=en_extra,
                                ref_rate=ref_rate,
                            )
                else:
                    for theme in themes:
                        self._write_theme_terms(
                            rng,
                            theme,
                            ja=ja,
                            en=en,
                            kaisetsu=None,
                            kaisetsu_mean=0.0,
                            en_extra=0.0,
                            ref_rate=0.0,
                        )

    def _write_theme_terms(
        self,
        rng: random.Random,
        theme: _Theme,
        *,
        ja: CsvFile,
        en: CsvFile,
        kaisetsu: tuple[CsvFile, CsvFile] | None,
        kaisetsu_mean: float,
        en_extra: float,
        ref_rate: float,
    ) -> None:
        plan = self.plan
        if theme.code == _LARGE_THEME:
            self.example("fterm_large_theme", theme.code)
        ex_seq = 0
        kja: CsvFile | None = None
        ken: CsvFile | None = None
        if kaisetsu is not None:
            kja, ken = kaisetsu
            self.documents["fterm_explanation"] += 2
            for _ in range(rng.randint(1, 2)):
                ex_seq += 1
                self._explain(
                    kja, ken, theme.code, seq=str(ex_seq), text_type="1", rng=rng, en_extra=0.0
                )

        def explain_term(code: str) -> None:
            nonlocal ex_seq
            if kja is None or ken is None:
                return
            lines = _draw(rng, kaisetsu_mean)
            if code == f"{_LARGE_THEME}AA01":
                lines = max(lines, 1)
            for _ in range(lines):
                ex_seq += 1
                injected = (
                    code == f"{_LARGE_THEME}AA01"
                    and "injected_instruction_text" not in self.examples
                )
                self._explain(
                    kja,
                    ken,
                    code,
                    seq=str(ex_seq),
                    text_type="2",
                    rng=rng,
                    en_extra=en_extra,
                    injected=injected,
                )

        seq = 0
        remaining = theme.size
        viewpoint_index = 0
        term_index = 0
        first_viewpoint = ""
        while remaining > 0:
            viewpoint = chr(65 + viewpoint_index // 26) + chr(65 + viewpoint_index % 26)
            first_viewpoint = first_viewpoint or viewpoint
            n_terms = max(0, min(remaining - 1, rng.randint(3, 40)))
            seq += 1
            code = f"{theme.code}{viewpoint}00"
            head_ja, head_en = self.maker.viewpoint(viewpoint_index)
            cells = [code.ljust(10), str(seq), "0"]
            ja.row([*cells, head_ja, ""])
            en.row([*cells, head_en, ""])
            self.texts["FTERM/FTERM"] += 1
            self.texts["FTERM/FTERM_E"] += 1
            self.concepts[("fterm", "")] += 1
            self.parents[("fterm", "")] += 1
            self.example("fterm_viewpoint", code[:7])
            depth = 1
            for number in range(1, n_terms + 1):
                seq += 1
                term_index += 1
                code = f"{theme.code}{viewpoint}{number:02d}"
                label_ja, label_en = self.maker.title()
                coverage = ""
                if rng.random() < 0.1:
                    coverage = f"{theme.group[0]}{rng.randint(1, 99):02d}B{rng.randint(1, 99)}/00"
                    coverage = coverage.replace("0B", "1B")
                ja.row([code.ljust(10), str(seq), str(depth), label_ja, coverage])
                self.texts["FTERM/FTERM"] += 1
                self.concepts[("fterm", "")] += 1
                self.parents[("fterm", "")] += 1
                self.example("fterm_term", code)
                en_depth = depth
                if theme.position in plan.depth_mismatch and term_index == 1:
                    en_depth = depth + 1
                    self.warnings["FTERM_TRANSLATION_DEPTH_MISMATCH"] += 1
                    self.example("fterm_depth_mismatch", code)
                en_cells = [code.ljust(10), str(seq), str(en_depth)]
                if theme.position in plan.comma_rows and term_index == 2:
                    # The label has an unquoted comma: the record gets 6 columns.
                    word = label_en.removeprefix(SYNTHETIC_MARK_EN)
                    en.raw([*en_cells, f"{SYNTHETIC_MARK_EN}holder", f" {word}", coverage])
                    self.repaired["FTERM/FTERM_E"] += 1
                    self.texts["FTERM/FTERM_E"] += 1
                    self.example("fterm_comma_row", code)
                elif rng.random() < 0.005 or (
                    self.not_translated["FTERM/FTERM_E"] < 2 and number == 3
                ):
                    en.row([*en_cells, NOT_TRANSLATED, coverage])
                    self.not_translated["FTERM/FTERM_E"] += 1
                    self.example("fterm_not_translated", code)
                else:
                    en.row([*en_cells, label_en, coverage])
                    self.texts["FTERM/FTERM_E"] += 1
                explain_term(code)
                depth = rng.randint(1, min(depth + 1, 4))
            remaining -= 1 + n_terms
            viewpoint_index += 1
        if (
            kja is not None
            and ken is not None
            and (rng.random() < ref_rate or theme.code == _LARGE_THEME)
        ):
            # An explanation of a term the F-term table does not define: reference-only.
            code = f"{theme.code}{first_viewpoint}99"
            ex_seq += 1
            self._explain(kja, ken, code, seq=str(ex_seq), text_type="2", rng=rng, en_extra=0.0)
            self.reference_only[("fterm", "")] += 1
            self.example("fterm_reference_only", code)

    def _explain(
        self,
        kja: CsvFile,
        ken: CsvFile,
        code: str,
        *,
        seq: str,
        text_type: str,
        rng: random.Random,
        en_extra: float,
        injected: bool = False,
    ) -> None:
        text_ja, text_en = self.maker.sentence()
        if rng.random() < 0.01 or kja.rows == 0:
            text_ja += _TEXT_NOTE_JA
            text_en += _TEXT_NOTE_EN
            self.newline_cells += 2
        if injected:
            text_ja = INJECTED_INSTRUCTION
            theme = code[:5]
            self.examples["injected_instruction_text"] = INJECTED_INSTRUCTION
            self.examples["injected_instruction_code"] = code
            self.examples["injected_instruction_document"] = f"fterm_explanation:ja:{theme}"
        cell = code.ljust(10)
        kja.row([cell, seq, text_type, text_ja])
        ken.row([cell, seq, text_type, text_en])
        self.segments["fterm_explanation"] += 2
        if en_extra and rng.random() < en_extra:
            # English sometimes has one more line than Japanese (as in the real release).
            ken.row([cell, seq + "1", text_type, f"{SYNTHETIC_MARK_EN}additional English line."])
            self.segments["fterm_explanation"] += 1

    # --------------------------------------------------------- FI, IPC, concordance

    def write_classification(self) -> None:
        plan = self.plan
        token = plan.date_token
        budget_total = sum(plan.section_budget.values())
        groups_est = plan.ipc_groups
        # FI rows that are groups (the ones with handbook, theme, link and concordance rows);
        # never below what the tree itself will produce, which matters at tiny scales.
        fi_group_est = max(
            plan.ipc_groups * (1 + plan.fi_extension_mean),
            _scaled(REAL_ROWS["FI/FI"], plan.scale, 1)
            - plan.facets
            - (budget_total - plan.ipc_groups),
        )
        concordance = REAL_ROWS["CONCORDANCE"] * plan.scale
        self.concordance_mean = {
            "FI": max(1.0, concordance * _CONCORDANCE_SHARE["FI"] / fi_group_est),
            "IPC7": max(1.0, concordance * _CONCORDANCE_SHARE["IPC7"] / (groups_est * 0.97)),
            "IPC4": max(0.5, concordance * _CONCORDANCE_SHARE["IPC4"] / (groups_est * 0.9)),
        }
        self.hb_mean = max(1.0, REAL_ROWS["FI/FI_HB"] * plan.scale / (fi_group_est * 0.85))
        self.theme_rate = REAL_ROWS["FI/FI_THEME"] / REAL_ROWS["FI/FI"]
        self.link_rate = REAL_ROWS["FI/FI_KAISEI_LINK"] * plan.scale / fi_group_est
        self.text_extra = {
            "ja": REAL_ROWS["FI/FI_TEXT"] / REAL_ROWS["FI/FI"] - 1,
            "en": REAL_ROWS["FI/FI_TEXT_E"] / REAL_ROWS["FI/FI"] - 1,
        }
        self.ipc_extra: dict[str, float] = {}
        for edition in _IPC_OLD_EDITIONS:
            drop = _EDITION_DROP[edition.removesuffix("E")]
            items = budget_total * (1 - drop * 0.8)
            self.ipc_extra[edition] = max(
                0.0, REAL_ROWS[f"IPC/IPC{edition}_TEXT"] * plan.scale / items - 1
            )
        revisions = budget_total * (1 + _P_MULTI_VERSION)
        self.ipc_extra["8U"] = max(0.0, REAL_ROWS["IPC/IPC8U_TEXT"] * plan.scale / revisions - 1)
        current = budget_total * (1 - _P_NO_VALID)
        self.ipc_extra["8B"] = max(0.0, REAL_ROWS["IPC/IPC8B_TEXT"] * plan.scale / current - 1)
        self.ref_ipc = _scaled(400, plan.scale, 2)
        self.ref_fi = _scaled(200, plan.scale, 2)
        self.ref_counter = 0
        with self.out.open("CONCORDANCE", f"con_IPC4toIPC8U_ALL_{token}.csv") as con4:
            for index, section in enumerate(SECTIONS):
                self._write_section(section, index, con4)

    def _write_section(self, section: str, index: int, con4: CsvFile) -> None:
        plan = self.plan
        t = plan.date_token
        o = self.out
        files = {
            "fi": o.open("FI/FI", f"fi_{section}_{t}.csv"),
            "text": o.open("FI/FI_TEXT", f"fiText_{section}_{t}.csv"),
            "text_e": o.open("FI/FI_TEXT_E", f"fiTextE_{section}_{t}.csv"),
            "hb": o.open("FI/FI_HB", f"fiHB_{section}_{t}.csv"),
            "hb_e": o.open("FI/FI_HB_E", f"fiHBE_{section}_{t}.csv"),
            "theme": o.open("FI/FI_THEME", f"fiTheme_{section}_{t}.csv"),
            "link": o.open("FI/FI_KAISEI_LINK", f"fiLink_{section}_{t}.csv"),
            "con_fi": o.open("CONCORDANCE", f"con_FItoIPC8U_{section}_{t}.csv"),
            "con_7": o.open("CONCORDANCE", f"con_IPC7toIPC8U_{section}_{t}.csv"),
        }
        for edition in (*_IPC_OLD_EDITIONS, "8B", "8U"):
            files[edition] = o.open(f"IPC/IPC{edition}_TEXT", f"ipc{edition}_{section}_{t}.csv")
        rngs = {
            name: plan.rng(f"{name}:{section}")
            for name in ("fiext", "fi", "hb", "theme", "link", "con", "ipc", "8u")
        }
        fi_min_level = [99]
        ipc_min_level = dict.fromkeys((*_IPC_OLD_EDITIONS, "8B", "8U"), 99)
        subclass_theme = plan.themes[0]
        recent: deque[ClassificationCode] = deque(maxlen=8)
        last_subclass = _ipc(section)
        fi_seq = 0
        theme_seq = 0
        first_link = True
        # What the revision XML of the current subclass needs (documents only): its FI group
        # codes and the codes FI_KAISEI_LINK points at; written when the subclass ends.
        subclass_fi: list[ClassificationCode] = []
        subclass_links: list[ClassificationCode] = []
        docs = self.docs
        try:
            for base in _iter_tree(plan, section):
                code = base.code
                if code.kind == "subclass":
                    subclass_theme = plan.themes[rngs["theme"].randrange(len(plan.themes))]
                    recent.clear()
                    if docs is not None and last_subclass.kind == "subclass":
                        docs.fi_subclass(last_subclass, subclass_fi, subclass_links)
                    subclass_fi, subclass_links = [], []
                    last_subclass = code
                self._write_ipc(
                    base, files, rngs, min_level=ipc_min_level, con4=con4, recent=recent
                )
                is_group = code.kind in {"main_group", "subgroup"}
                nodes = [(base.level, _as_fi(code))]
                if is_group:
                    for dev, sym in _fi_extensions(rngs["fiext"], code, plan.fi_extension_mean):
                        level = base.level + (2 if dev is not None and sym is not None else 1)
                        nodes.append((level, _as_fi(code, dev, sym)))
                for level, fi in nodes:
                    fi_seq += 1
                    self._write_fi_row(
                        files, rngs, fi, level=level, fi_seq=fi_seq, min_level=fi_min_level
                    )
                    if not is_group:
                        continue
                    subclass_fi.append(fi)
                    self._write_handbook(files, rngs["hb"], fi)
                    if rngs["theme"].random() < self.theme_rate:
                        theme_seq += 1
                        theme = subclass_theme
                        if rngs["theme"].random() < 0.1:
                            theme = plan.themes[rngs["theme"].randrange(len(plan.themes))]
                        files["theme"].row(
                            [fi.fixed_width(), str(theme_seq), theme.group, theme.number, "0"]
                        )
                        self.relations["theme"] += 1
                    if rngs["link"].random() < self.link_rate or (
                        first_link and code.kind == "main_group"
                    ):
                        first_link = False
                        self._write_link(files["link"], rngs["link"], fi)
                        subclass_links.append(fi)
                    self._write_fi_concordance(files["con_fi"], rngs["con"], fi, code, recent)
                if is_group:
                    recent.append(code)
            self._write_reference_only(files["con_fi"], index, last_subclass, recent)
            if docs is not None and last_subclass.kind == "subclass":
                docs.fi_subclass(last_subclass, subclass_fi, subclass_links)
        finally:
            for file in files.values():
                file.close()

    def _write_fi_row(
        self,
        files: dict[str, CsvFile],
        rngs: dict[str, random.Random],
        fi: ClassificationCode,
        *,
        level: int,
        fi_seq: int,
        min_level: list[int],
    ) -> None:
        rng = rngs["fi"]
        cell = fi.fixed_width()
        marker = "1" if fi.development_code or fi.file_symbol else "0"
        files["fi"].row([cell, str(fi_seq), marker, "0", f"{level:02d}"])
        self.concepts[("fi", "")] += 1
        if level > min_level[0]:
            self.parents[("fi", "")] += 1
        min_level[0] = min(min_level[0], level)
        if fi.canonical in _FORCED_EXAMPLES:
            self.examples[_FORCED_EXAMPLES[fi.canonical]] = fi.canonical
        if fi.development_code and fi.file_symbol:
            self.example("fi_with_development_code_and_file_symbol", fi.canonical)
        elif fi.development_code:
            self.example("fi_with_development_code", fi.canonical)
        elif fi.file_symbol:
            self.example("fi_with_file_symbol", fi.canonical)
        self._write_fi_text(files, rng, cell)

    def _write_fi_text(self, files: dict[str, CsvFile], rng: random.Random, cell: str) -> None:
        title_ja, title_en = self.maker.title()
        lines = [(title_ja, title_en)]
        if rng.random() < self.text_extra["ja"]:
            lines.append(self.maker.title())
        for line, (ja, en) in enumerate(lines, start=1):
            files["text"].row([cell, str(line), "1", "0", "0", "0", ja])
            self.texts["FI/FI_TEXT"] += 1
            if rng.random() < 0.005 or self.not_translated["FI/FI_TEXT_E"] < 1:
                files["text_e"].row([cell, str(line), "1", "0", "0", "0", NOT_TRANSLATED])
                self.not_translated["FI/FI_TEXT_E"] += 1
                self.example("fi_text_not_translated", cell.strip())
            else:
                files["text_e"].row([cell, str(line), "1", "0", "0", "0", en])
                self.texts["FI/FI_TEXT_E"] += 1
        if rng.random() < self.text_extra["en"] - self.text_extra["ja"]:
            extra = f"{SYNTHETIC_MARK_EN}supplementary English title line"
            files["text_e"].row([cell, str(len(lines) + 1), "1", "0", "0", "0", extra])
            self.texts["FI/FI_TEXT_E"] += 1

    def _write_handbook(
        self, files: dict[str, CsvFile], rng: random.Random, fi: ClassificationCode
    ) -> None:
        lines = 0 if rng.random() < 0.15 else _draw(rng, self.hb_mean)
        if lines == 0:
            return
        cell = fi.fixed_width()
        self.documents["fi_handbook"] += 2
        for line in range(1, lines + 1):
            ja, en = self.maker.sentence()
            if rng.random() < 0.01 or files["hb"].rows == 0:
                ja += _TEXT_NOTE_JA
                en += _TEXT_NOTE_EN
                self.newline_cells += 2
                self.example("fi_handbook_multiline", fi.canonical)
            kind = "1" if line == 1 else "2"
            files["hb"].row([cell, str(line), kind, "0", ja])
            files["hb_e"].row([cell, str(line), kind, "0", en])
            self.segments["fi_handbook"] += 2
        if rng.random() < 0.0003:
            files["hb_e"].row(
                [cell, str(lines + 1), "2", "0", f"{SYNTHETIC_MARK_EN}additional English note."]
            )
            self.segments["fi_handbook"] += 1

    def _write_link(self, link: CsvFile, rng: random.Random, fi: ClassificationCode) -> None:
        subclass = fi.canonical[:4]
        year = rng.randint(2010, self.plan.reference_date.year - 1)
        description = f"{subclass}.xml {year}年{rng.randint(1, 12)}月改正（合成データ）"
        if self.repaired["FI/FI_KAISEI_LINK"] < self.plan.link_comma_rows:
            link.raw([fi.fixed_width(), description, " 訂正を含む"])
            self.repaired["FI/FI_KAISEI_LINK"] += 1
            self.example("fi_kaisei_link_comma_row", fi.canonical)
        else:
            link.row([fi.fixed_width(), description])

    def _write_fi_concordance(
        self,
        con: CsvFile,
        rng: random.Random,
        fi: ClassificationCode,
        ipc: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        count = _draw(rng, self.concordance_mean["FI"])
        if count == 0:
            return
        targets = [ipc]
        others = [c for c in recent if c is not ipc]
        if count > 1 and others:
            targets.extend(rng.sample(others, min(count - 1, len(others))))
        left = fi.fixed_width()
        for target in targets:
            con.row(["1", left, "8", target.fixed_width()])
            self.relations["concordance"] += 1

    def _write_reference_only(
        self,
        con: CsvFile,
        index: int,
        subclass: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        """Concordance rows naming codes no table defines (main groups 8000+ never exist)."""
        n_ipc = self.ref_ipc // 8 + (1 if index < self.ref_ipc % 8 else 0)
        n_fi = self.ref_fi // 8 + (1 if index < self.ref_fi % 8 else 0)
        existing = recent[-1] if recent else _ipc_group(subclass, 1, "00")
        for _ in range(n_ipc):
            self.ref_counter += 1
            ghost = _ipc_group(subclass, 8000 + self.ref_counter, "00")
            con.row(["1", _as_fi(existing).fixed_width(), "8", ghost.fixed_width()])
            self.reference_only[("ipc", "8U")] += 1
            self.relations["concordance"] += 1
            self.example("concordance_reference_only", ghost.canonical)
        for _ in range(n_fi):
            self.ref_counter += 1
            ghost_fi = _as_fi(_ipc_group(subclass, 8000 + self.ref_counter, "00"), "901")
            con.row(["1", ghost_fi.fixed_width(), "8", existing.fixed_width()])
            self.reference_only[("fi", "")] += 1
            self.relations["concordance"] += 1
            self.example("concordance_reference_only_fi", ghost_fi.canonical)

    def _write_ipc(
        self,
        base: _Base,
        files: dict[str, CsvFile],
        rngs: dict[str, random.Random],
        *,
        min_level: dict[str, int],
        con4: CsvFile,
        recent: deque[ClassificationCode],
    ) -> None:
        code = base.code
        rng = rngs["ipc"]
        cell = code.fixed_width()
        level = f"{base.level:02d}"

        def tally(edition: str) -> None:
            self.concepts[("ipc", edition)] += 1
            if base.level > min_level[edition]:
                self.parents[("ipc", edition)] += 1
            min_level[edition] = min(min_level[edition], base.level)

        # Older editions: 4, 5, 6 in Japanese; 7 and 7E share codes and line structure.
        for edition in ("4", "5", "6", "7"):
            if not _in_edition(edition, code):
                continue
            lines = 1 + _draw(rng, self.ipc_extra[edition])
            for line in range(1, lines + 1):
                ja, en = self.maker.title()
                files[edition].row([cell, str(line), "1", level, "0", ja])
                self.texts[f"IPC/IPC{edition}_TEXT"] += 1
                if edition == "7":
                    files["7E"].row([cell, str(line), "1", level, "0", en])
                    self.texts["IPC/IPC7E_TEXT"] += 1
            tally(edition)
            if edition == "7":
                if rng.random() < self.ipc_extra["7E"] - self.ipc_extra["7"]:
                    extra = f"{SYNTHETIC_MARK_EN}supplementary English line"
                    files["7E"].row([cell, str(lines + 1), "1", level, "0", extra])
                    self.texts["IPC/IPC7E_TEXT"] += 1
                tally("7E")
                self._write_ipc_concordance(files["con_7"], rng, "7", code, recent)
            if edition == "4":
                self._write_ipc_concordance(con4, rng, "4", code, recent)
        self._write_ipc8(base, files, rngs["8u"], tally)

    def _write_ipc_concordance(
        self,
        con: CsvFile,
        rng: random.Random,
        edition: str,
        code: ClassificationCode,
        recent: deque[ClassificationCode],
    ) -> None:
        """Older-edition code -> IPC 8 codes: itself, sometimes also siblings of its subclass."""
        if code.kind not in {"main_group", "subgroup"}:
            return
        count = _draw(rng, self.concordance_mean[f"IPC{edition}"])
        if count == 0:
            return
        targets = [code]
        others = [c for c in recent if c is not code]
        if count > 1 and others:
            targets.extend(rng.sample(others, min(count - 1, len(others))))
        cell = code.fixed_width()
        for target in targets:
            con.row([edition, cell, "8", target.fixed_width()])
            self.relations["concordance"] += 1

    def _write_ipc8(
        self,
        base: _Base,
        files: dict[str, CsvFile],
        rng: random.Random,
        tally: Callable[[str], None],
    ) -> None:
        code = base.code
        cell = code.fixed_width()
        level = f"{base.level:02d}"
        ref = self.plan.reference_date
        last_year = ref.year - 1
        state = _FORCED_IPC_STATE.get(code.canonical)
        if state is not None:
            self.examples[_FORCED_EXAMPLES[code.canonical]] = code.canonical
        if state is None:
            state = "single"
            if code.kind in {"main_group", "subgroup"}:
                draw = rng.random()
                if draw < _P_MULTI_VERSION:
                    state = "multi"
                elif draw < _P_MULTI_VERSION + _P_NO_VALID:
                    state = "expired" if rng.random() < 0.7 else "expired2"
        # (version, valid_from, valid_to) per revision, oldest first.
        revisions: list[tuple[str, str, str]]
        if state == "multi":
            year = rng.randint(2009, last_year)
            revisions = [
                ("2006.01", "20060101", f"{year - 1}1231"),
                (f"{year}.01", f"{year}0101", "99991231"),
            ]
            self.ipc8u_multi += 1
            self.example("ipc_two_versions_old_expired", code.canonical)
        elif state == "expired":
            year = rng.randint(2008, last_year)
            revisions = [("2006.01", "20060101", f"{year}1231")]
            self.ipc8u_no_valid += 1
            self.example("ipc_no_valid_revision", code.canonical)
        elif state == "expired2":
            year = rng.randint(2009, last_year)
            revisions = [
                ("2006.01", "20060101", "20081231"),
                ("2009.01", "20090101", f"{year}1231"),
            ]
            self.ipc8u_multi += 1
            self.ipc8u_no_valid += 1
            self.example("ipc_no_valid_revision_two_versions", code.canonical)
        else:
            version = "2006.01" if rng.random() < 0.8 else f"{rng.randint(2007, last_year)}.01"
            revisions = [(version, version.replace(".", "") + "01", "99991231")]
        if self.docs is not None:
            self.docs.ipc_code(code, revisions)
        for version, valid_from, valid_to in revisions:
            self.ipc8u_revisions += 1
            lines = 1 + _draw(rng, self.ipc_extra["8U"])
            for line in range(1, lines + 1):
                ja, _ = self.maker.title()
                files["8U"].row(
                    [
                        cell,
                        f"({version})",
                        str(line),
                        "1",
                        level,
                        "0",
                        "0",
                        valid_from,
                        valid_to,
                        "0",
                        ja,
                    ]
                )
                self.texts["IPC/IPC8U_TEXT"] += 1
        tally("8U")
        current = revisions[-1]
        if current[2] == "99991231":
            lines = 1 + _draw(rng, self.ipc_extra["8B"])
            for line in range(1, lines + 1):
                ja, _ = self.maker.title()
                files["8B"].row([cell, f"({current[0]})", str(line), "1", level, "0", "0", "0", ja])
                self.texts["IPC/IPC8B_TEXT"] += 1
            tally("8B")

    # ------------------------------------------------------------- the rest

    def write_facets(self) -> None:
        """The ninth FI file: broad facets (``ZAA``…), roots of their own (level 01)."""
        plan = self.plan
        rng = plan.rng("facets")
        t = plan.date_token
        names = sorted(rng.sample(range(26 * 26), plan.facets))
        with (
            self.out.open("FI/FI", f"fi_Z_{t}.csv") as fi,
            self.out.open("FI/FI_TEXT", f"fiText_Z_{t}.csv") as text,
            self.out.open("FI/FI_TEXT_E", f"fiTextE_Z_{t}.csv") as text_e,
        ):
            files = {"fi": fi, "text": text, "text_e": text_e}
            min_level = [99]
            for seq, index in enumerate(names, start=1):
                facet = f"Z{chr(65 + index // 26)}{chr(65 + index % 26)}"
                code = ClassificationCode(scheme="fi", kind="facet", facet=facet)
                self.example("fi_facet", code.canonical)
                self._write_fi_row(
                    files, {"fi": rng}, code, level=1, fi_seq=seq, min_level=min_level
                )

    def write_judge(self) -> None:
        count = _scaled(REAL_ROWS["JUDGE"], self.plan.scale, 4)
        with self.out.open("JUDGE", f"judge_{self.plan.date_token}.csv") as judge:
            for key in range(1, count + 1):
                ja, _ = self.maker.title()
                judge.row([f"{key:02d}", f"判定区分{key:02d}：{ja}"])
                self.segments["judge"] += 1
        self.documents["judge"] = 1

    def write_copyright(self) -> None:
        line = (
            "Synthetic test data generated by pmgs; not JPO data. "
            "合成データ：特許庁の実データではありません。"
        )
        self.examples["copyright"] = line
        self.out.write_text("COPYRGHT", "COPYRGHT.txt", line + LINE_END)

    def finish_documents(self) -> None:
        """Write the document groups that need the whole pass and fold their tallies in."""
        docs = self.docs
        if docs is None:
            return
        docs.finish()
        counts = docs.counts()
        self.documents["fi_revision"] = counts.fi_revision_files
        self.segments["fi_revision"] = counts.fi_revision_entries
        additional = counts.additional_code_rows
        self.documents["fterm_additional_code"] = (
            self.out.files["FTERM/ADD_CODE"] + self.out.files["FTERM/ADD_CODE_E"]
        )
        self.segments["fterm_additional_code"] = sum(additional.values())
        self.documents["ipc_revision"] = counts.ipc_revision_files
        self.segments["ipc_revision"] = counts.ipc_revision_edges
        self.documents["ipc_definition"] = counts.pdf_files
        self.segments["ipc_definition"] = counts.pdf_pages - counts.pdf_empty_pages
        self.relations["amended_to"] = counts.fi_revision_amended_to + counts.ipc_revision_edges
        self.reference_only[("fi", "")] += counts.fi_revision_historical_codes
        self.warnings["HTML_RECOVERY_USED"] = len(counts.html_recovery_files)
        self.warnings["PDF_EMPTY_PAGE"] = counts.pdf_empty_pages
        self.warnings["XML_CP932_FALLBACK"] = counts.cp932_files
        for name, value in docs.examples.items():
            self.examples.setdefault(name, value)

    def result(self, root: Path) -> GeneratedPackage:
        plan = self.plan
        texts = dict(self.texts)
        by_language: Counter[str] = Counter()
        for group, count in texts.items():
            english = group.endswith("_E") or group == "IPC/IPC7E_TEXT"
            by_language["en" if english else "ja"] += count
        relations = dict(self.relations)
        relations["parent"] = sum(self.parents.values())
        expected = ExpectedCounts(
            canonical_concepts=dict(self.concepts),
            reference_only=dict(self.reference_only),
            parents=dict(self.parents),
            texts=texts,
            texts_by_language=dict(by_language),
            documents=dict(self.documents),
            document_segments=dict(self.segments),
            relations=relations,
            warnings={
                "FTERM_TRANSLATION_DEPTH_MISMATCH": self.warnings[
                    "FTERM_TRANSLATION_DEPTH_MISMATCH"
                ],
                "THEME_TRANSLATION_SEQUENCE_MISMATCH": self.warnings[
                    "THEME_TRANSLATION_SEQUENCE_MISMATCH"
                ],
                **(
                    {}
                    if self.docs is None
                    else {
                        "HTML_RECOVERY_USED": self.warnings["HTML_RECOVERY_USED"],
                        "PDF_EMPTY_PAGE": self.warnings["PDF_EMPTY_PAGE"],
                        "XML_CP932_FALLBACK": self.warnings["XML_CP932_FALLBACK"],
                    }
                ),
            },
            skipped_theme_rows=dict(self.skipped_theme_rows),
            repaired_rows={
                "FTERM/FTERM_E": self.repaired["FTERM/FTERM_E"],
                "FI/FI_KAISEI_LINK": self.repaired["FI/FI_KAISEI_LINK"],
            },
            not_translated=dict(self.not_translated),
            ipc8u_revisions=self.ipc8u_revisions,
            ipc8u_several_versions=self.ipc8u_multi,
            ipc8u_without_valid_revision=self.ipc8u_no_valid,
            document_groups=None if self.docs is None else self.docs.counts(),
        )
        groups = DATA_GROUPS if self.docs is None else (*DATA_GROUPS, *DOCUMENT_GROUPS)
        return GeneratedPackage(
            path=root,
            release=root.name,
            reference_date=plan.reference_date,
            scale=plan.scale,
            seed=plan.seed,
            with_quirks=plan.with_quirks,
            files={g: self.out.files[g] for g in groups},
            rows={g: self.out.rows[g] for g in groups},
            expected=expected,
            examples=dict(sorted(self.examples.items())),
            bom_files=tuple(sorted(self.out.bom_files)),
        )


def _in_edition(edition: str, code: ClassificationCode) -> bool:
    """Whether an older IPC edition has ``code``: only some subgroups are missing, by hash."""
    if code.kind != "subgroup":
        return True
    drop = _EDITION_DROP[edition]
    return zlib.crc32(f"{edition}:{code.canonical}".encode()) % 1000 >= drop * 1000


_RELEASE_RE: Final = re.compile(r"JPPM[0-9]+")


def generate_package(
    parent_dir: Path,
    *,
    scale: float = 0.001,
    seed: int = 0,
    release: str = "JPPM2026002",
    reference_date: date = date(2026, 3, 31),
    with_quirks: bool = True,
    with_documents: bool = False,
) -> GeneratedPackage:
    """Write a synthetic PMGS package to ``parent_dir/<release>/`` and describe it.

    ``scale`` is the fraction of the real release's rows (1.0 ≈ the real sizes, see
    :data:`REAL_ROWS`); small scales keep minimum sizes so that every feature and quirk is
    present (8 themes, one theme ``4C083`` with more than 200 F-term rows, every section,
    2 of each irregularity). ``with_quirks=False`` leaves out the irregularities that cause
    warnings or need repair (unquoted commas, ja/en depth and theme sequence differences), so a
    build of it must report zero warnings. The reference date appears as ``_YYYYMMDD`` in every
    CSV name and bounds the IPC validity windows; it must be in 2012 or later.

    ``with_documents=True`` also writes the XML, HTML and PDF groups (:data:`DOCUMENT_GROUPS`,
    see :mod:`pmgs_build.testing.documents`); it is off by default so that packages (and every
    CSV byte of them) stay what they were before those groups existed. Switching it on changes
    no CSV byte either.
    """
    if not 0 < scale <= 2:
        raise ValueError(f"scale must be in (0, 2], got {scale}")
    if not _RELEASE_RE.fullmatch(release):
        raise ValueError(f"release must be JPPM followed by digits, got {release!r}")
    if reference_date.year < 2012:
        raise ValueError("reference_date must be 2012-01-01 or later (IPC validity windows)")
    root = Path(parent_dir) / release
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    root.mkdir(parents=True, exist_ok=True)
    plan = _Plan.make(scale, seed, with_quirks, reference_date, with_documents=with_documents)
    return _write_package(root, plan)


def write_compact_package(
    parent_dir: Path, *, seed: int = 0, with_documents: bool = False
) -> GeneratedPackage:
    """The smallest package that still has every group, forced example and quirk.

    Used once to produce the embedded sample (``pmgs_build.sample``): the same writer with
    lower minimum sizes (4 codes per IPC section, 4 themes, a 24-row "large" theme), so the
    sample stays a few hundred kilobytes at most while showing everything. With documents: one
    small XML per subclass (3 ``infor`` each), 1 IPC_KAISEI and 1 + 1 ADD_CODE HTML files, and
    only the two forced PDFs (``G06F.pdf``, ``G06F___3-048.pdf``).
    """
    root = Path(parent_dir) / "JPPM2026002"
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    root.mkdir(parents=True, exist_ok=True)
    plan = _Plan.make(
        0.00001, seed, True, date(2026, 3, 31), compact=True, with_documents=with_documents
    )
    return _write_package(root, plan)


def _write_package(root: Path, plan: _Plan) -> GeneratedPackage:
    writer = _Writer(root, plan)
    writer.write_themes()
    writer.write_fterms()
    writer.write_classification()
    writer.write_facets()
    writer.write_judge()
    writer.write_copyright()
    writer.finish_documents()
    return writer.result(root)


def _document_writer(out: Output, plan: _Plan) -> DocumentWriter:
    """The document writer of a plan; it needs two facts about the trees up front.

    The CP932 file is ``B60T.xml`` when section B has B60T (as in the real release), else the
    first subclass of section B: finding out costs one extra walk of section B's tree, which
    is cheap (no rows are written) and keeps the choice independent of writing order.
    """
    b_subclasses = [b.code.canonical for b in _iter_tree(plan, "B") if b.code.kind == "subclass"]
    cp932 = "B60T" if "B60T" in b_subclasses else b_subclasses[0]
    subclasses = sum(_subclasses_for(budget) for budget in plan.section_budget.values())
    return DocumentWriter(
        out,
        plan.rng,
        seed=plan.seed,
        scale=plan.scale,
        with_quirks=plan.with_quirks,
        compact=plan.compact,
        reference_date=plan.reference_date,
        subclasses=subclasses,
        themes=[theme.code for theme in plan.themes],
        cp932_subclass=cp932,
    )
