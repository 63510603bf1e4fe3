"""The IPC base tree of a section, the FI codes grown from it and the older IPC editions.

Every CSV group of the FI, IPC and concordance families is written in one pass over this
tree, so the tree is regenerated from its own random stream rather than kept in memory; the
codes that tests and the embedded sample name (``G06F3/048``, ``B60J5/00,501@B``…) are forced
into it whatever the scale and seed.
"""

from __future__ import annotations

import dataclasses
import random
import zlib
from collections.abc import Iterator
from typing import Final, NamedTuple

from pmgs_core import ClassificationCode, Kind
from pmgs_testkit.plan import Plan, classes_for, subclasses_for

__all__ = [
    "EDITION_DROP",
    "FORCED_EXAMPLES",
    "FORCED_IPC_STATE",
    "IPC_OLD_EDITIONS",
    "Base",
    "as_fi",
    "fi_extensions",
    "in_edition",
    "ipc",
    "ipc_group",
    "iter_tree",
]

_SUBCLASS_LETTERS: Final = "BCDFGHJKLMNPQRSTUVWXY"
IPC_OLD_EDITIONS: Final = ("4", "5", "6", "7", "7E")
EDITION_DROP: Final[dict[str, float]] = {"4": 0.14, "5": 0.10, "6": 0.07, "7": 0.04}
"""Share of subgroups missing from an older edition (7E is 7 in English: same codes)."""

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
FORCED_IPC_STATE: Final[dict[str, str]] = {
    "G06F3/048": "multi",
    "G06F3/041": "expired2",
    "G06F3/042": "expired",
}
FORCED_EXAMPLES: Final[dict[str, str]] = {
    "B60J5/00,501@B": "fi_with_development_code_and_file_symbol",
    "B60J5/02,101": "fi_with_development_code",
    "B60J5/00@A": "fi_with_file_symbol",
    "G06F3/048": "ipc_two_versions_old_expired",
    "G06F3/041": "ipc_no_valid_revision_two_versions",
    "G06F3/042": "ipc_no_valid_revision",
}
"""Example names of the forced codes (``GeneratedPackage.examples``)."""


class Base(NamedTuple):
    """One code of the IPC base tree with its hierarchy level (section = 1)."""

    level: int
    code: ClassificationCode


def ipc(section: str, class_: int | None = None, letter: str | None = None) -> ClassificationCode:
    """An IPC section, class or subclass code."""
    kind: Kind = "section" if class_ is None else "class" if letter is None else "subclass"
    return ClassificationCode(
        scheme="ipc",
        kind=kind,
        section=section,
        class_=None if class_ is None else f"{class_:02d}",
        subclass=letter,
    )


def ipc_group(
    subclass: ClassificationCode, main: int | str, sub: str, *, indexing: bool = False
) -> ClassificationCode:
    """An IPC main group (``sub == "00"``) or subgroup of ``subclass`` (with ``indexing``,
    the indexing code ``{subclass}{main}:{sub}`` of the old editions)."""
    return ClassificationCode(
        scheme="ipc",
        kind="main_group" if sub == "00" else "subgroup",
        section=subclass.section,
        class_=subclass.class_,
        subclass=subclass.subclass,
        main_group=str(main),
        subgroup=sub,
        indexing=indexing,
    )


def as_fi(
    code: ClassificationCode, dev: str | None = None, sym: str | None = None
) -> ClassificationCode:
    """The FI code of an IPC code, optionally with a development code and file symbol."""
    return dataclasses.replace(code, scheme="fi", development_code=dev, file_symbol=sym)


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


def iter_tree(plan: Plan, section: str) -> Iterator[Base]:
    """The IPC base tree of one section, regenerated identically from the seed on each call."""
    rng = plan.rng(f"tree:{section}")
    budget = plan.section_budget[section]
    n_sub = subclasses_for(budget)
    n_cls = classes_for(n_sub)
    yield Base(1, ipc(section))
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
        yield Base(2, ipc(section, number))
        letters = sorted(rng.sample(_SUBCLASS_LETTERS, min(letters_count, len(_SUBCLASS_LETTERS))))
        if (
            forced_class is not None
            and number == forced_class[0]
            and forced_class[1] not in letters
        ):
            letters[rng.randrange(len(letters))] = forced_class[1]
            letters.sort()
        for letter in letters:
            subclass = ipc(section, number, letter)
            yield Base(3, subclass)
            yield from _iter_groups(rng, subclass, per_subclass)


def _iter_groups(rng: random.Random, subclass: ClassificationCode, budget: int) -> Iterator[Base]:
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
        yield Base(4, ipc_group(subclass, main, "00"))
        for sub, dots in subgroups:
            yield Base(5 + dots, ipc_group(subclass, main, sub))
        left -= 1 + len(subgroups)
        main += rng.choice((1, 1, 2, 3, 5))


def fi_extensions(
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


def in_edition(edition: str, code: ClassificationCode) -> bool:
    """Whether an older IPC edition has ``code``: only some subgroups are missing, by hash."""
    if code.kind != "subgroup":
        return True
    drop = EDITION_DROP[edition]
    return zlib.crc32(f"{edition}:{code.canonical}".encode()) % 1000 >= drop * 1000
