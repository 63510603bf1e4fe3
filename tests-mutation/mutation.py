"""Mutation testing of the modules where a wrong answer looks right (issue 22).

Each named module is mutated by mutmut on its own, in a scratch copy of its package
(``build/mutation/<module>/``), against the tests that are meant to guard it. A run reports,
per module, the mutants killed, the survivors and the time taken, and fails when a module's
score is below the floor. Survivors judged equivalent (no input can tell them from the
original) are listed with a reason in ``tests-mutation/equivalent.toml``; they leave the
denominator, every other survivor counts against the score.

    uv run python tests-mutation/mutation.py                # every module
    uv run python tests-mutation/mutation.py notation lookup
    uv run python tests-mutation/mutation.py --list

Why a scratch copy: mutmut mutates the files under ``./src`` of the directory it runs in and
puts ``mutants/src`` first on ``sys.path``; a uv workspace has five ``src`` trees, so each
module gets a directory of its own holding one package's ``src`` and ``tests``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "build" / "mutation"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.toml"
FLOOR = 0.90


@dataclass(frozen=True)
class Module:
    """One mutation target: which files of which package, and which tests guard them."""

    name: str
    package: str
    files: tuple[str, ...]
    tests: tuple[str, ...]
    only: tuple[str, ...] = ()
    """mutmut name patterns (fnmatch) when only part of a file is the target."""
    deselect: tuple[str, ...] = ()
    """Tests left out: those that only exercise a server subprocess, which never imports the
    mutated copy (and whose stdio pipes mutmut's output capture closes)."""


MODULES = (
    Module(
        "notation",
        "pmgs-core",
        ("src/pmgs_core/notation/_code.py",),
        ("tests/test_notation.py", "tests/test_notation_table.py"),
    ),
    Module(
        # the reading of typed codes, the colon of IPC indexing codes included (issue 34)
        "notation_reading",
        "pmgs-core",
        ("src/pmgs_core/notation/_reading.py",),
        (
            "tests/test_notation.py",
            "tests/test_notation_table.py",
            "tests/test_notation_reasons.py",
        ),
    ),
    Module(
        # the formula, CSV and line reader of `pmgs check` (issue 34)
        "formula",
        "pmgs-core",
        ("src/pmgs_core/check/_formula.py",),
        ("tests/test_formula_handmade.py",),
    ),
    Module(
        "search",
        "pmgs-core",
        ("src/pmgs_core/search/_plan.py", "src/pmgs_core/search/_paging.py"),
        # Plans checked as data and paging over a table of 14 rows (a second a mutant); the
        # end-to-end search tests on the generated build stay in the suite (issue 34).
        ("tests/test_search_plan_handmade.py", "tests/test_search_paging_handmade.py"),
    ),
    Module(
        "lookup",
        "pmgs-core",
        ("src/pmgs_core/store/_lookup.py",),
        # The hand-built database (seconds a mutant); the end-to-end lookup tests on the
        # generated build stay in the suite but rebuilt it for every mutant (issue 34).
        ("tests/test_lookup_handmade.py",),
    ),
    Module(
        "store_arguments",
        "pmgs-core",
        ("src/pmgs_core/store/_arguments.py",),
        ("tests/test_argument_tables.py", "tests/test_validity_dates.py"),
        # The integer checks and the validity rule; the scheme, language and edition checks
        # of the same file are guarded by the store tests, not part of this target.
        (
            "pmgs_core.store._arguments.x_valid_at*",
            "pmgs_core.store._arguments.x_check_limit*",
            "pmgs_core.store._arguments.x_check_offset*",
            "pmgs_core.store._arguments.x_is_int*",
            "pmgs_core.store._arguments.x_page_fields*",
        ),
    ),
    Module(
        "html_table",
        "pmgs-build",
        ("src/pmgs_build/source/parsers/html_table.py",),
        # Only the fragment builds: test_html_tables.py builds a generated package per test
        # module and a sample per hostile page, which made a run take hours on two cores.
        ("tests/test_reader_fragments.py",),
    ),
    Module(
        "csv_reader",
        "pmgs-build",
        ("src/pmgs_build/source/parsers/csv_reader.py",),
        # the fragments check what is stored; the failure cases check the CSV_ENCODING and
        # CSV_MALFORMED paths and their row locators
        (
            "tests/test_reader_fragments.py",
            "tests/test_build_failures.py",
            "tests/test_csv_failures.py",
        ),
    ),
    Module(
        "xml_reader",
        "pmgs-build",
        ("src/pmgs_build/source/parsers/fi_revision.py",),
        # Fragments read over an in-memory schema (a second for the file); the built-package
        # tests (test_fi_revision, test_reader_fragments) stay in the suite (issue 34).
        ("tests/test_fi_revision_fragments.py",),
    ),
    Module(
        # the release finder (ADR 0019), on hand-made trees (issue 34)
        "locate",
        "pmgs-build",
        ("src/pmgs_build/source/find_release.py",),
        ("tests/test_release_location.py", "tests/test_locate_handmade.py"),
    ),
    Module(
        "mcp_arguments",
        "pmgs-mcp",
        ("src/pmgs_mcp/validation.py",),
        ("tests/test_validation.py", "tests/test_boundaries.py"),
        (),
        ("tests/test_boundaries.py::test_integer_argument_bounds_over_stdio",),
    ),
    Module(
        "agentkit_config",
        "pmgs-agentkit",
        ("src/pmgs_agentkit/config.py",),
        ("tests/test_config.py", "tests/test_chosen_interpreter.py"),
    ),
)


@dataclass
class Outcome:
    """What one module's run found."""

    module: str
    total: int
    killed: int
    survivors: list[str]
    equivalent: list[str]
    seconds: float

    @property
    def score(self) -> float:
        counted = self.total - len(self.equivalent)
        return 1.0 if counted == 0 else self.killed / counted


def equivalents() -> dict[str, str]:
    """Mutant name -> reason it was judged equivalent."""
    if not EQUIVALENT.exists():
        return {}
    data = tomllib.loads(EQUIVALENT.read_text("utf-8"))
    return {name: entry["reason"] for name, entry in data.get("mutant", {}).items()}


def prepare(module: Module) -> Path:
    """A fresh scratch directory holding the package's src and tests and mutmut's config."""
    where = SCRATCH / module.name
    shutil.rmtree(where, ignore_errors=True)
    package = ROOT / "packages" / module.package
    shutil.copytree(package / "src", where / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        package / "tests", where / "tests", ignore=shutil.ignore_patterns("__pycache__")
    )
    only = ", ".join(json.dumps(f) for f in module.files)
    tests = ", ".join(json.dumps(t) for t in module.tests)
    pytest_args = ["-p", "no:cacheprovider", "-q"]
    for node in module.deselect:
        pytest_args += ["--deselect", node]
    (where / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = [{only}]\n"
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        f"pytest_add_cli_args = {json.dumps(pytest_args)}\n"
        "use_git_change_detection = false\n"
        "\n[tool.pytest.ini_options]\n"
        'addopts = ["--import-mode=importlib"]\n',
        "utf-8",
    )
    return where


_RESULT = re.compile(r"^\s*(\S+): (.+)$")


def run(module: Module, children: int) -> Outcome:
    """mutmut run + results for one module; the scratch directory is kept for inspection."""
    where = prepare(module)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    with (where / "mutmut-run.log").open("wb") as log:
        subprocess.run(
            ["mutmut", "run", "--max-children", str(children), *module.only],
            cwd=where,
            env=env,
            check=False,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    seconds = time.monotonic() - started
    listed = subprocess.run(
        ["mutmut", "results", "--all", "true"],
        cwd=where,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    status: dict[str, str] = {}
    for line in listed.splitlines():
        match = _RESULT.match(line)
        if match and (
            not module.only or any(fnmatch.fnmatchcase(match.group(1), p) for p in module.only)
        ):
            status[match.group(1)] = match.group(2).strip()
    judged = equivalents()
    killed = sum(1 for s in status.values() if s in {"killed", "timeout", "caught by type check"})
    survivors = sorted(n for n, s in status.items() if s not in {"killed", "timeout"})
    return Outcome(
        module=module.name,
        total=len(status),
        killed=killed,
        survivors=[n for n in survivors if n not in judged],
        equivalent=[n for n in survivors if n in judged],
        seconds=seconds,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the modules and exit")
    parser.add_argument("--children", type=int, default=2, help="parallel mutant runs")
    parser.add_argument("--floor", type=float, default=FLOOR, help="minimum killed share")
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON here")
    args = parser.parse_args(argv)
    by_name = {m.name: m for m in MODULES}
    if args.list:
        for m in MODULES:
            print(f"{m.name}: {m.package} {' '.join(m.files)}")
        return 0
    unknown = [n for n in args.modules if n not in by_name]
    if unknown:
        parser.error(f"unknown module(s): {', '.join(unknown)}")
    chosen = [by_name[n] for n in args.modules] if args.modules else list(MODULES)
    outcomes: list[Outcome] = []
    for module in chosen:
        outcome = run(module, args.children)
        outcomes.append(outcome)
        print(
            f"{outcome.module}: {outcome.killed}/{outcome.total - len(outcome.equivalent)} "
            f"killed ({outcome.score:.1%}), {len(outcome.equivalent)} equivalent, "
            f"{len(outcome.survivors)} surviving, {outcome.seconds:.0f} s",
            flush=True,
        )
        for name in outcome.survivors:
            print(f"    survived: {name}", flush=True)
    if args.json:
        args.json.write_text(
            json.dumps([{**o.__dict__, "score": o.score} for o in outcomes], indent=2), "utf-8"
        )
    low = [o.module for o in outcomes if o.score < args.floor]
    if low:
        print(f"below the {args.floor:.0%} floor: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
