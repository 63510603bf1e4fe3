"""Developer and CI sessions for the pmgs workspace.

``nox`` (no arguments) runs every session below; ``.ci/run`` does exactly that. Sessions use
uv as the virtualenv backend and install from the committed ``uv.lock`` (``--frozen``), so
what is tested is what is locked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_existing_virtualenvs = False
# Two sessions at a time (one per core): a session that waits (on a server's deadline, the
# Node clients, a venv being installed) leaves its core to the other. Sessions that must run
# alone leave allow_parallel out (``integration``, ``replicas``: servers and clients with
# start-up timeouts of their own); ``nox -j 1`` runs them all one by one.
nox.options.parallel = os.cpu_count() or 1
nox.needs_version = ">=2026.10.20"  # --parallel and allow_parallel

ROOT = Path(__file__).parent
PACKAGES = ("pmgs-core", "pmgs-build", "pmgs-cli", "pmgs-mcp", "pmgs-agentkit", "pmgs-web")
"""The published packages: each built into a wheel and tested alone."""
TEST_KIT = "pmgs-testkit"
"""The workspace's test kit: type-checked and tested, never built into a wheel (ADR 0024)."""
SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13")


def _runs(version: str) -> bool:
    """True when ``pythonX.Y`` is on PATH and actually starts (pyenv shims may not)."""
    exe = shutil.which(f"python{version}")
    if exe is None:
        return False
    probe = subprocess.run([exe, "-c", "pass"], capture_output=True, check=False)
    return probe.returncode == 0


PYTHONS = [v for v in SUPPORTED_PYTHONS if _runs(v)]
SKIPPED_PYTHONS = [v for v in SUPPORTED_PYTHONS if v not in PYTHONS]
DEFAULT_PYTHON = PYTHONS[0] if PYTHONS else None
if SKIPPED_PYTHONS:
    print(f"nox: Python {', '.join(SKIPPED_PYTHONS)} not found on PATH; their sessions are skipped")


PARALLEL = ("--numprocesses", "auto", "--dist", "loadscope")
"""pytest-xdist: one worker per core (two on CI). The tests are independent: each takes its
ports through the kit's ``serve_on_free_port`` and its files under its own ``tmp_path``.
A module's tests go to one worker (``loadscope``), so a module-scoped server or build is made
once, not once per worker; session fixtures are made once per worker. ``-- -n 0`` runs a
session serially."""


def _sync(session: nox.Session, *args: str) -> None:
    """Install the locked workspace (or one package of it) into the session's venv."""
    session.run_install(
        "uv",
        "sync",
        "--frozen",
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def lint(session: nox.Session) -> None:
    """ruff check, ruff format --check, the package dependency contracts (no import circle
    included), and no package source module over 600 lines (with the test of that check)."""
    _sync(session, "--all-packages")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("lint-imports")
    session.run("python", ".ci/module_size.py")
    session.run("pytest", ".ci/test_module_size.py", "-q", "-p", "no:cacheprovider")


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def types(session: nox.Session) -> None:
    """mypy --strict over the source of every package."""
    _sync(session, "--all-packages")
    session.run("mypy", "--strict", *(f"packages/{name}/src" for name in (*PACKAGES, TEST_KIT)))


OTHER_PYTHONS = [v for v in PYTHONS if v != DEFAULT_PYTHON]
"""The supported Pythons besides the default one: ``tests_workspace`` runs on them."""


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
@nox.parametrize("package", (*PACKAGES, TEST_KIT))
def tests(session: nox.Session, package: str) -> None:
    """One package's own tests, with only that package and its dependencies installed (on the
    default Python; the other Pythons run the same suites in ``tests_workspace``)."""
    _sync(session, "--package", package)
    session.run("pytest", f"packages/{package}/tests", *PARALLEL, *session.posargs)


@nox.session(python=OTHER_PYTHONS, allow_parallel=True)
def tests_workspace(session: nox.Session) -> None:
    """Every package's own tests on each other supported Python, in one venv holding the whole
    workspace (ADR 0035): one install per Python instead of one per package. Each suite is
    still its own pytest run (a suite's reference options are its own). Whether a package
    works with only its dependencies installed is ``tests``' question, on the default Python.
    """
    _sync(session, "--all-packages")
    for package in (*PACKAGES, TEST_KIT):
        session.run("pytest", f"packages/{package}/tests", *PARALLEL, *session.posargs)


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def isolated(session: nox.Session) -> None:
    """Every published package builds its own wheel, pmgs-core works with nothing else
    installed, and no wheel ships the test kit or a pytest plugin."""
    out = Path(session.create_tmp()) / "dist"
    shutil.rmtree(out, ignore_errors=True)
    for name in PACKAGES:
        session.run(
            "uv", "build", "--package", name, "--wheel", "--out-dir", str(out), external=True
        )
    for wheel in sorted(out.glob("*.whl")):
        with zipfile.ZipFile(wheel) as zf:
            metadata = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
            text = zf.read(metadata).decode()
        # A workspace source must become a plain requirement, never a path or URL.
        bad = [
            line for line in text.splitlines() if line.startswith("Requires-Dist:") and "@" in line
        ]
        if bad:
            session.error(f"{wheel.name} has a non-registry requirement: {bad}")
    core = next(out.glob("pmgs_core-*.whl"))
    session.install(str(core), "pytest")
    session.run("python", str(ROOT / "tests-integration" / "isolated_core_smoke.py"))
    # No wheel holds the test kit or registers a pytest plugin; a user's own suite beside
    # pmgs-build sees none of ours (issue 38).
    session.run(
        "python",
        "-m",
        "pytest",
        str(ROOT / "tests-integration" / "published_wheels_check.py"),
        "-q",
        "-p",
        "no:cacheprovider",
        "--noconftest",  # the integration suite's conftest loads the kit; none is installed
        env={"PMGS_WHEEL_DIR": str(out)},
    )


TS_CLIENT = ROOT / "tests-integration" / "ts-client"
"""The Node conformance suite (TypeScript SDK client, MCP Inspector), pinned by its lock file."""


@nox.session(python=DEFAULT_PYTHON)
def integration(session: nox.Session) -> None:
    """Cross-package tests against the whole installed workspace, and the MCP server with the
    TypeScript SDK client and the MCP Inspector (installed here from their lock file).

    Node and npm are required, not optional: without them this session fails, so the
    cross-implementation suite is never skipped without notice.
    """
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            session.error(f"{tool} is not on PATH; the MCP client conformance suite needs it")
    with session.chdir(TS_CLIENT):
        # No install scripts: the clients are plain JavaScript and need none.
        session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    _sync(session, "--all-packages")
    session.run("pytest", "tests-integration", *PARALLEL, *session.posargs)


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def reliability(session: nox.Session) -> None:
    """Crash consistency of setup and build under SIGKILL at random moments, disk full, and
    hostile packages (tests-reliability/), with the short profile (about 10 kills of each
    kind); and the server half: MCP fuzzing (stdio and HTTP), HTTP load and hostile HTTP
    clients. The HAProxy replica test runs in its own session (``replicas``).

    A default session (issue 17): CI runs the short profile; the long profile is run by hand:
    ``nox -s reliability -- --reliability-profile long`` (figures in docs/reliability.md).
    """
    _sync(session, "--all-packages")
    session.run(
        "pytest",
        "tests-reliability",
        "--ignore=tests-reliability/test_replicas_haproxy.py",
        "--reliability-profile",
        "short",
        *PARALLEL,
        *session.posargs,
    )


@nox.session(python=DEFAULT_PYTHON)
def replicas(session: nox.Session) -> None:
    """Three pmgs mcp replicas behind a real HAProxy through a graceful stop, a SIGKILL and a
    rolling release switch, with zero failed client requests (short profile; the rest of the
    reliability suite stays in ``reliability``). Skips only where haproxy cannot be installed.
    """
    _sync(session, "--all-packages")
    session.run(
        "pytest",
        "tests-reliability/test_replicas_haproxy.py",
        "--reliability-profile",
        "short",
        *session.posargs,
    )


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def deploy(session: nox.Session) -> None:
    """The Kubernetes manifests of deploy/kubernetes/, validated offline: strictly against the
    Kubernetes schemas kubernetes-validate ships, and against the deployment's own rules."""
    _sync(session, "--only-group", "deploy", "--only-group", "dev")
    session.run("python", "deploy/check_manifests.py")
    session.run("pytest", "deploy", "-q", "-p", "no:cacheprovider")


@nox.session(python=DEFAULT_PYTHON, default=False)
def mutation(session: nox.Session) -> None:
    """mutmut over the modules where a wrong answer looks right (tests-mutation/mutation.py),
    each against the tests that guard it; fails below the 90 % killed floor.

    Not a default session: it takes tens of minutes on two cores (per-module times in
    docs/testing.md). One module: ``nox -s mutation -- notation``.
    """
    _sync(session, "--all-packages")
    session.run("python", str(ROOT / "tests-mutation" / "mutation.py"), *session.posargs)


@nox.session(python=DEFAULT_PYTHON, allow_parallel=True)
def bench(session: nox.Session) -> None:
    """The benchmark entry point at scale 0.01 with few calls, so its code cannot rot.

    Its figures mean nothing at this scale; results go to the session's temporary directory,
    never into docs/ or benchmarks/results/. The full run is ``uv run python -m benchmarks``.
    """
    _sync(session, "--all-packages")
    tmp = Path(session.create_tmp()) / "bench"
    shutil.rmtree(tmp, ignore_errors=True)
    session.run(
        "python",
        "-m",
        "benchmarks",
        "--scale",
        "0.01",
        "--workdir",
        str(tmp / "work"),
        "--output-json",
        str(tmp / "results.json"),
        "--calls",
        "20",
        "--cold-runs",
        "3",
        "--mcp-starts",
        "2",
        *session.posargs,
    )
