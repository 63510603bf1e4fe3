"""Shared pieces of docs/benchmarks.md's sections: a judged figure, the measured-on line.

Every section is rendered from one results file (:mod:`benchmarks.results`) and returns the
figures it judges as :class:`Check` rows, so met/missed is computed from the numbers in the
file, never typed, and the document's summary can take each target's newest figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarks.report import GIB
from benchmarks.results import Result, shown


@dataclass(frozen=True)
class Check:
    """One figure against its target; ``key`` names a docs/design.md target, if it is one."""

    figure: str
    target: str
    measured: float | None
    limit: float
    unit: str
    key: str = ""
    at_least: bool = False

    @property
    def met(self) -> bool | None:
        if self.measured is None:
            return None
        return self.measured >= self.limit if self.at_least else self.measured <= self.limit


@dataclass
class Section:
    """A rendered section and the figures it judged."""

    markdown: str
    checks: list[Check] = field(default_factory=list)


def verdict(met: bool | None) -> str:
    return "—" if met is None else ("met" if met else "**missed**")


def value(measured: float | None, unit: str) -> str:
    """A figure as the document writes it; bytes as KB/MB/GB, times with sensible digits."""
    if measured is None:
        return "not measured"
    if unit == "bytes":
        if measured >= GIB:
            return f"{measured / GIB:.2f} GiB ({measured / 1e9:.3f} GB)"
        return f"{measured / 1e6:.1f} MB"
    if unit == "B":
        return f"{measured:,.0f} B"
    if unit == "s":
        return f"{measured:.2f} s" if measured < 10 else f"{measured:.0f} s"
    if unit == "ms":
        if measured < 1:
            return f"{measured:.3f} ms"
        return f"{measured:.2f} ms" if measured < 10 else f"{measured:.1f} ms"
    return f"{measured:.3f}"


def measured_line(result: Result, *, machine_at_end: bool = False) -> str:
    """When, where and on which commit: the line every section starts with. Older and
    transcribed files lack some of the facts; what is missing is left out, not guessed.
    ``machine_at_end``: the file's machine facts were taken when the run ended."""
    d = result.data
    m = d.get("machine") or {}
    facts = [f"{m['cpus']} CPUs ({m.get('cpu_model', '?')})"] if "cpus" in m else []
    facts += [
        f"{name} {m[key]}"
        for key, name in (("python", "Python"), ("sqlite", "SQLite"))
        if m.get(key)
    ]
    start = (m.get("load_average") or [None])[0]
    end = d.get("load_end")
    when = "at the end" if machine_at_end else "at the start"
    loads = [f"{start:.1f} {when}"] if start is not None else []
    loads += [f"{end:.1f} at the end"] if end is not None else []
    load = "load average " + " and ".join(loads) if loads else "load average not recorded"
    where = ", ".join(facts) + "; " + load if facts else load
    scale = "" if d.get("scale") is None else f" Scale {result.scale:g}."
    commit = d.get("commit") or "not recorded"
    file = f"`{shown(result.path)}`"
    transcribed = d.get("transcribed")
    if transcribed:
        return (
            f"Measured {result.date} (UTC), commit {commit} (the figures were added to the "
            f"docs in {transcribed['figures_added_in']}); {where}.{scale} Results: {file}, "
            f"transcribed on {transcribed['date']} at commit {transcribed['commit']} from the "
            "earlier docs/benchmarks.md, where they were typed by hand."
        )
    command = f" with `{d['command']}`" if d.get("command") else ""
    return (
        f"Measured {result.date} (UTC) at commit {commit}{command}; {where}.{scale} "
        f"Results: {file}."
    )


def check_rows(checks: list[Check]) -> list[str]:
    """A figure / target / measured / verdict table of ``checks``."""
    lines = ["| figure | target | measured | |", "|---|---|---|---|"]
    lines += [
        f"| {c.figure} | {c.target} | {value(c.measured, c.unit)} | {verdict(c.met)} |"
        for c in checks
    ]
    return lines


def join(*blocks: list[str] | str) -> str:
    """Blocks of lines (or one paragraph) separated by blank lines, ending in a newline."""
    parts = ["\n".join(b) if isinstance(b, list) else b for b in blocks if b]
    return "\n\n".join(parts) + "\n"


def at(data: dict[str, Any], *keys: str) -> Any:
    """``data[k1][k2]…`` or None where a level is missing (older files lack some figures)."""
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data
