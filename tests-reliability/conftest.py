"""Profiles, seed and figures of the reliability suite (see README.md).

The profile comes from ``--reliability-profile`` or ``PMGS_RELIABILITY_PROFILE`` (``short``,
the default, or ``long``); the seed from ``--reliability-seed`` or ``PMGS_RELIABILITY_SEED``
(default: drawn from the clock, and always printed so that a failing run can be repeated).
Tests add their figures to :class:`Figures`; the terminal summary prints them, and
``PMGS_RELIABILITY_REPORT=FILE`` also writes them to FILE as JSON.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pmgs_testkit.pytest_plugin"]

PROFILES: dict[str, dict[str, int]] = {
    # replica_*: concurrent MCP clients and seconds of the HAProxy simulation (issue 21).
    "short": {"setup_kills": 10, "build_kills": 10, "replica_clients": 10, "replica_seconds": 40},
    "long": {"setup_kills": 50, "build_kills": 20, "replica_clients": 50, "replica_seconds": 60},
}


@dataclass
class Figures:
    """What the suite measured, by section, for the summary and docs/reliability.md."""

    profile: str
    seed: int
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)


_FIGURES = pytest.StashKey[Figures]()
_SEED_KEY = "pmgs_reliability_seed"
_FIGURES_KEY = "pmgs_reliability_figures"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reliability")
    group.addoption(
        "--reliability-profile",
        choices=sorted(PROFILES),
        default=None,
        help="short (CI, the default) or long (by hand; figures for docs/reliability.md)",
    )
    group.addoption(
        "--reliability-seed", type=int, default=None, help="seed of the random kill moments"
    )


def pytest_configure(config: pytest.Config) -> None:
    profile = (
        config.getoption("--reliability-profile")
        or os.environ.get("PMGS_RELIABILITY_PROFILE")
        or "short"
    )
    if profile not in PROFILES:
        raise pytest.UsageError(f"unknown reliability profile {profile!r}")
    seed_option = config.getoption("--reliability-seed")
    seed_env = os.environ.get("PMGS_RELIABILITY_SEED")
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None and _SEED_KEY in worker_input:  # a pytest-xdist worker
        seed = int(worker_input[_SEED_KEY])
    elif seed_option is not None:
        seed = int(seed_option)
    elif seed_env:
        seed = int(seed_env)
    else:
        seed = time.time_ns() % 1_000_000_007
    config.stash[_FIGURES] = Figures(profile=profile, seed=seed)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: every worker draws its kill moments from the run's one seed."""
    node.workerinput[_SEED_KEY] = node.config.stash[_FIGURES].seed


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist: a worker's figures join the run's (each test writes its own section)."""
    del error
    sections = getattr(node, "workeroutput", {}).get(_FIGURES_KEY)
    if sections:
        node.config.stash[_FIGURES].sections.update(json.loads(sections))


def pytest_sessionfinish(session: pytest.Session) -> None:
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # a pytest-xdist worker: hand the figures to the controller
        worker_output[_FIGURES_KEY] = json.dumps(session.config.stash[_FIGURES].sections)


def pytest_report_header(config: pytest.Config) -> str:
    figures = config.stash[_FIGURES]
    return (
        f"reliability profile: {figures.profile}, seed: {figures.seed} "
        f"(repeat with --reliability-seed {figures.seed})"
    )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller reports
        return
    figures = config.stash[_FIGURES]
    terminalreporter.section("reliability figures")
    terminalreporter.write_line(f"profile {figures.profile}, seed {figures.seed}")
    for name, section in figures.sections.items():
        terminalreporter.write_line(f"{name}: {json.dumps(section, sort_keys=True)}")
    report = os.environ.get("PMGS_RELIABILITY_REPORT")
    if report:
        payload = {"profile": figures.profile, "seed": figures.seed, **figures.sections}
        Path(report).write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


@pytest.fixture(scope="session")
def figures(pytestconfig: pytest.Config) -> Figures:
    """The run's figures (tests add a section each)."""
    return pytestconfig.stash[_FIGURES]


@pytest.fixture(scope="session")
def profile(figures: Figures) -> dict[str, int]:
    """The sizes of the chosen profile."""
    return PROFILES[figures.profile]
