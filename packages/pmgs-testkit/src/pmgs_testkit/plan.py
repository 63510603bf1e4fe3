"""The plan of a generated package: every size and choice, made before a row is written.

Sizes scale from the real release (:data:`~pmgs_testkit.REAL_ROWS`) with minimums that
keep every feature present at tiny scales; the F-term themes and the rows that carry the
irregularities are chosen here, up front, so that the writers can stream each group in one
pass. All randomness comes from ``random.Random`` seeded with strings derived from the seed
(:meth:`Plan.rng`): one stream per purpose, so a group's bytes never depend on another's.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date
from typing import Final, NamedTuple

from pmgs_testkit.catalog import REAL_ROWS

__all__ = [
    "LARGE_THEME",
    "SECTIONS",
    "Plan",
    "Theme",
    "classes_for",
    "draw",
    "scaled",
    "subclasses_for",
]

SECTIONS: Final = "ABCDEFGH"
_SECTION_WEIGHTS: Final = (0.14, 0.19, 0.15, 0.03, 0.04, 0.12, 0.17, 0.16)
_THEME_GROUPS: Final = tuple(
    f"{digit}{letter}"
    for digit, letters in {
        "2": "BCDEFGHK",
        "3": "BCDEFGHJKL",
        "4": "BCDEFGHJKLM",
        "5": "BCDEFGHJKLMN",
    }.items()
    for letter in letters
)
"""The 41 theme groups of the real release, in their order."""
_IPC_BASE_CODES: Final = 72_000
"""Codes of the IPC base tree at full scale (sections to subgroups, about IPC 8's size)."""
_CODES_PER_SUBCLASS: Final = 112
_FACETS: Final = 600
_THEMES: Final = 2_932
LARGE_THEME: Final = "4C083"
"""The theme that always exists and always has more than 200 F-term rows (24 when compact)."""
_LARGE_THEME_ROWS: Final = 240


class Theme(NamedTuple):
    """One planned F-term theme: its code, group, number, F-term row count and position."""

    code: str
    group: str
    number: str
    size: int
    position: int


def scaled(real: float, scale: float, minimum: int) -> int:
    """A real-release size at ``scale``, never below ``minimum`` (features survive tiny scales)."""
    return max(minimum, round(real * scale))


def draw(rng: random.Random, mean: float) -> int:
    """A count with the given mean: floor(mean) plus one with probability frac(mean)."""
    whole = math.floor(mean)
    return whole + (1 if rng.random() < mean - whole else 0)


def subclasses_for(budget: int) -> int:
    """Subclasses of a section with ``budget`` codes (the tree and the document writer agree)."""
    return max(1, round(budget / _CODES_PER_SUBCLASS))


def classes_for(subclasses: int) -> int:
    """Classes that hold ``subclasses`` subclasses (about four each, at most 60)."""
    return min(60, max(1, math.ceil(subclasses / 4)))


@dataclass
class Plan:
    """Sizes and choices made before writing, all derived from (scale, seed, with_quirks)."""

    scale: float
    seed: int
    with_quirks: bool
    reference_date: date
    section_budget: dict[str, int]
    fi_extension_mean: float
    ipc_groups: int
    facets: int
    themes: list[Theme]
    theme_groups: list[str]
    kaisetsu_groups: list[str]
    theme_seq_mismatch: frozenset[int]
    depth_mismatch: frozenset[int]
    comma_rows: frozenset[int]
    link_comma_rows: int
    compact: bool = False
    with_documents: bool = False
    ipc_indexing_share: float = 0.0
    """Share of IPC 4-7 rows that are indexing codes (``A61K 103:00``); 0 writes none."""

    @property
    def date_token(self) -> str:
        """The ``YYYYMMDD`` every CSV name of the release ends with."""
        return self.reference_date.strftime("%Y%m%d")

    def rng(self, purpose: str) -> random.Random:
        """The random stream of one purpose: independent of every other group's writing."""
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
        ipc_indexing_share: float = 0.0,
    ) -> Plan:
        """Plan a package; ``compact`` lowers the minimum sizes (the embedded sample)."""
        rng = random.Random(f"pmgs-synthetic:{seed}:plan")  # noqa: S311 - test data
        min_section = 4 if compact else 8
        ipc_total = scaled(_IPC_BASE_CODES, scale, 8 * min_section)
        budget = {
            s: max(min_section, round(ipc_total * w))
            for s, w in zip(SECTIONS, _SECTION_WEIGHTS, strict=True)
        }
        structural = sum(
            1 + classes_for(subclasses_for(b)) + subclasses_for(b) for b in budget.values()
        )
        groups = max(1, sum(budget.values()) - structural)
        facets = min(26 * 26 - 1, scaled(_FACETS, scale, 3))
        fi_target = scaled(REAL_ROWS["FI/FI"], scale, 1) - facets
        fi_extension_mean = max(0.5, (fi_target - sum(budget.values())) / groups)
        themes, theme_groups = _plan_themes(rng, scale, compact)
        # One theme group has no explanation file in the real release (40 of 41).
        excluded = (
            next(g for g in reversed(theme_groups) if g != "4C") if len(theme_groups) > 1 else ""
        )

        def pick(real: int) -> frozenset[int]:
            if not with_quirks:
                return frozenset()
            count = min(len(themes), scaled(real, scale, 2))
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
            kaisetsu_groups=[g for g in theme_groups if g != excluded],
            theme_seq_mismatch=pick(49),
            depth_mismatch=pick(7),
            comma_rows=pick(13),
            link_comma_rows=scaled(2, scale, 2) if with_quirks else 0,
            compact=compact,
            with_documents=with_documents,
            ipc_indexing_share=ipc_indexing_share,
        )


def _plan_themes(rng: random.Random, scale: float, compact: bool) -> tuple[list[Theme], list[str]]:
    """The F-term themes and their groups; ``4C083`` is always among them, and large."""
    theme_count = scaled(_THEMES, scale, 4 if compact else 8)
    group_count = min(len(_THEME_GROUPS), theme_count)
    chosen = set(rng.sample([g for g in _THEME_GROUPS if g != "4C"], group_count - 1))
    theme_groups = [g for g in _THEME_GROUPS if g in chosen or g == "4C"]
    per_group = [theme_count // group_count] * group_count
    for i in rng.sample(range(group_count), theme_count % group_count):
        per_group[i] += 1
    fterm_target = scaled(REAL_ROWS["FTERM/FTERM"], scale, 1)
    mean_size = max(10.0 if compact else 6.0, fterm_target / theme_count)
    themes: list[Theme] = []
    for group, count in zip(theme_groups, per_group, strict=True):
        numbers = sorted(rng.sample(range(1, 1000), count))
        if group == "4C" and 83 not in numbers:
            numbers[0 if count == 1 else rng.randrange(count)] = 83
            numbers.sort()
        for number in numbers:
            code = f"{group}{number:03d}"
            size = max(6, round(mean_size * rng.uniform(0.4, 1.6)))
            if code == LARGE_THEME:
                size = max(size, 24 if compact else _LARGE_THEME_ROWS)
            themes.append(Theme(code, group, f"{number:03d}", size, len(themes)))
    return themes, theme_groups
