"""SIGKILL ``pmgs setup`` and ``pmgs build`` at random moments over their whole duration.

A full run of each is timed first; then every trial kills the real console script (a
subprocess, never an in-process call) after a delay drawn uniformly from [0, that duration],
with a seeded RNG (the seed is printed in the header and the summary). Setup trials alternate
between a first install (empty data directory) and an upgrade from a previous release.

After each setup kill: the pointer is valid JSON naming an existing database whose SHA-256
matches it (or absent on a first install); the previous release's database is byte for byte
unchanged and, while the pointer still names it, answers a lookup with its old logical digest;
no process of the killed setup survives; a new setup then completes; and afterwards the data
directory holds only what docs/cli.md documents (``state/current.json``, ``state/setup.lock``,
``state/runs/*.json``, and content-addressed databases whose bytes match their names).

After each build kill: the output path holds nothing, or the complete database (a kill after
the hard link that publishes it); a following build succeeds. Temporary files a SIGKILL leaves
beside the output (``.OUT.tmp-PID``) are counted and reported, since a kill cannot clean up.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pmgs_testkit import generate_package
from pmgs_testkit.kit import console_script, file_sha256, run_script, script_environment

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SIGKILL, process groups read from /proc"
)

FIRST_RELEASE = "JPPM2026002"
NEXT_RELEASE = "JPPM2026003"
LOOKUP = ("fi", "B60J5/00@A")  # generate_package's examples["fi_with_file_symbol"]
_SHA_NAME_LEN = 64
MAX_TRIALS_PER_KILL = 4
"""Runs that end before their kill moment do not count as kills; trials go on until the
profile's number of kills has landed, or stop (failing) after this many runs per kill."""
GRACE_SECONDS = 30.0
"""How long a child of a killed run may take to notice (stdin closed) and exit. A bound for a
hang, not a speed: the wait ends as soon as the group is empty. 5 s was too short beside
other work (load 12-15: the doctor's MCP server was still importing when its parent died, and
was counted as left running, issue 38)."""


def pmgs(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the installed console script to completion."""
    return run_script(*args, timeout=timeout)


@dataclass(frozen=True)
class Killed:
    """What one killed run left: how long it ran, its exit, the last stage it announced."""

    delay: float
    returncode: int
    last_stage: str
    survivors: int


def run_and_kill(args: list[str | Path], delay: float, log: Path) -> Killed:
    """Start ``pmgs ARGS`` in its own session, SIGKILL it (the process, not its group) after
    ``delay`` seconds unless it ended first, then count and reap survivors of its group."""
    with log.open("wb") as err:
        child = subprocess.Popen(
            [console_script(), *map(str, args)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=script_environment(),
            start_new_session=True,
        )
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
    survivors = _reap_group(child.pid)
    stages = [
        line.removeprefix("setup: ").strip()
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.startswith("setup: ")
    ]
    return Killed(delay, child.returncode, stages[-1] if stages else "-", survivors)


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc (Linux)."""
    members: list[int] = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(stat.parent.name))
    return members


def _reap_group(pgid: int) -> int:
    """Processes the killed run left alive in its process group (e.g. the MCP server of the
    doctor stage) for longer than :data:`GRACE_SECONDS`; they are counted, then killed, since
    this test started them. Zombies (dead, waiting for init to reap them) do not count."""
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline:
        if not _group_members(pgid):
            return 0
        time.sleep(0.05)
    left = _group_members(pgid)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(left)


def timed(args: list[str | Path]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    result = pmgs(*args)
    return time.monotonic() - started, result


# ---------------------------------------------------------------------------- data dir checks


def read_pointer(root: Path) -> dict[str, Any] | None:
    """The pointer, checked: valid JSON naming an existing database whose SHA-256 matches."""
    path = root / "state" / "current.json"
    if not path.exists():
        return None
    pointer = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(pointer, dict), pointer
    database = root / pointer["database"]
    assert database.is_file(), f"the pointer names a missing database: {pointer}"
    assert file_sha256(database) == pointer["database_sha256"], "the pointed database changed"
    return pointer


def current_release(root: Path) -> tuple[str, str]:
    """(release id, logical digest) that ``pmgs release`` reports, checked by a lookup."""
    release = pmgs("release", "--data-dir", root, "--json")
    assert release.returncode == 0, release.stderr
    current = json.loads(release.stdout)["current"]
    lookup = pmgs("lookup", *LOOKUP, "--data-dir", root, "--json")
    assert lookup.returncode == 0, lookup.stderr
    answered = json.loads(lookup.stdout)["release"]["release_id"]
    assert answered == current["release_id"]
    return str(current["release_id"]), str(current["logical_digest"])


def unexpected_files(root: Path) -> list[str]:
    """Files in a data directory that docs/cli.md does not account for after a setup."""
    odd: list[str] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        parts = relative.parts
        if path.is_dir():
            if parts[0] == "staging":
                odd.append(f"{relative}/")
            continue
        if relative.as_posix() in {"state/current.json", "state/setup.lock"}:
            continue
        if parts[:2] == ("state", "runs") and len(parts) == 3 and path.suffix == ".json":
            continue
        if (
            parts[:2] == ("data", "releases")
            and len(parts) == 5
            and path.suffix == ".sqlite"
            and len(path.stem) == _SHA_NAME_LEN
            and file_sha256(path) == path.stem
        ):
            continue
        odd.append(relative.as_posix())
    return odd


# ---------------------------------------------------------------------------- fixtures


@dataclass(frozen=True)
class Packages:
    first: Path
    next: Path
    base: Path  # a data dir with ``first`` installed (copied, never modified)
    first_digest: str
    first_database: Path  # relative to a data dir
    first_sha256: str
    next_digest: str
    seconds_first: float
    seconds_upgrade: float


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory, figures: Any) -> Packages:
    root = tmp_path_factory.mktemp("packages")
    seed = figures.seed
    first = generate_package(root / "a", scale=0.001, seed=seed, release=FIRST_RELEASE).path
    nxt = generate_package(root / "b", scale=0.001, seed=seed + 1, release=NEXT_RELEASE).path
    base = root / "base"
    seconds_first, result = timed(["setup", first, "--data-dir", base, "--json"])
    assert result.returncode == 0, result.stderr
    pointer = read_pointer(base)
    assert pointer is not None
    _, first_digest = current_release(base)
    upgraded = root / "upgraded"
    shutil.copytree(base, upgraded)
    seconds_upgrade, result = timed(["setup", nxt, "--data-dir", upgraded, "--json"])
    assert result.returncode == 0, result.stderr
    release, next_digest = current_release(upgraded)
    assert release == NEXT_RELEASE
    assert next_digest != first_digest
    return Packages(
        first=first,
        next=nxt,
        base=base,
        first_digest=first_digest,
        first_database=Path(pointer["database"]),
        first_sha256=pointer["database_sha256"],
        next_digest=next_digest,
        seconds_first=seconds_first,
        seconds_upgrade=seconds_upgrade,
    )


# ---------------------------------------------------------------------------- setup


def test_setup_survives_sigkill_at_random_moments(
    packages: Packages, tmp_path: Path, figures: Any, profile: dict[str, int]
) -> None:
    rng = random.Random(figures.seed)
    kills = profile["setup_kills"]
    trials = 0
    digests = {FIRST_RELEASE: packages.first_digest, NEXT_RELEASE: packages.next_digest}
    stages: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    survivors = 0
    started = time.monotonic()
    while outcomes["killed"] < kills:
        assert trials < MAX_TRIALS_PER_KILL * kills, f"too few kills landed: {dict(outcomes)}"
        trial, trials = trials, trials + 1
        upgrade = trial % 2 == 1
        root = tmp_path / f"setup-{trial}"
        if upgrade:
            shutil.copytree(packages.base, root)
            source, duration = packages.next, packages.seconds_upgrade
        else:
            source, duration = packages.first, packages.seconds_first
        delay = rng.uniform(0, duration)
        where = f"trial {trial} ({'upgrade' if upgrade else 'first install'}, {delay:.3f} s)"
        killed = run_and_kill(
            ["setup", source, "--data-dir", root, "--json"], delay, tmp_path / f"s{trial}.log"
        )
        stages[killed.last_stage] += 1
        survivors += killed.survivors
        finished = killed.returncode == 0
        outcomes["completed before the kill" if finished else "killed"] += 1

        # The pointer is valid or absent; the previous release is intact and answers.
        pointer = read_pointer(root)
        if upgrade:
            assert pointer is not None, f"{where}: the upgrade lost the pointer"
            assert file_sha256(root / packages.first_database) == packages.first_sha256, where
        if pointer is not None:
            release, digest = current_release(root)
            assert release == pointer["release"], where
            assert digest == digests[release], f"{where}: {release} answers another digest"
            if upgrade and release == FIRST_RELEASE:
                outcomes["previous release still current"] += 1
            elif release == source.name:
                outcomes["new release already current"] += 1
        else:
            outcomes["no pointer yet (first install)"] += 1

        # A new setup completes and leaves only what is documented.
        again = pmgs("setup", source, "--data-dir", root, "--json")
        assert again.returncode == 0, (
            f"{where}: setup after the kill failed: {again.stdout} {again.stderr}"
        )
        statuses[json.loads(again.stdout)["status"]] += 1
        pointer = read_pointer(root)
        assert pointer is not None, where
        assert current_release(root) == (source.name, digests[source.name]), where
        if upgrade:
            assert file_sha256(root / packages.first_database) == packages.first_sha256, where
        assert unexpected_files(root) == [], f"{where}: left behind"
        shutil.rmtree(root)
    figures.sections["setup_sigkill"] = {
        "runs_started": trials,
        "kills_landed": outcomes["killed"],
        "kills_survived": outcomes["killed"],
        "full_run_seconds": {
            "first_install": round(packages.seconds_first, 2),
            "upgrade": round(packages.seconds_upgrade, 2),
        },
        "last_stage_announced_before_kill": dict(stages),
        "outcomes": dict(outcomes),
        "status_of_the_following_setup": dict(statuses),
        "processes_left_by_the_killed_setup": survivors,
        "seconds": round(time.monotonic() - started, 1),
    }
    assert survivors == 0, "a killed setup left processes running"


# ---------------------------------------------------------------------------- build


def test_build_survives_sigkill_at_random_moments(
    packages: Packages, tmp_path: Path, figures: Any, profile: dict[str, int]
) -> None:
    rng = random.Random(figures.seed + 1)
    kills = profile["build_kills"]
    trials = 0
    reference = tmp_path / "reference.sqlite"
    duration, result = timed(["build", packages.first, reference, "--json"])
    assert result.returncode == 0, result.stderr
    digest = json.loads(result.stdout)["logical_digest"]
    outcomes: Counter[str] = Counter()
    stale_after_kill = 0
    stale_after_next_build = 0
    survivors = 0
    started = time.monotonic()
    while outcomes["killed"] < kills:
        assert trials < MAX_TRIALS_PER_KILL * kills, f"too few kills landed: {dict(outcomes)}"
        trial, trials = trials, trials + 1
        out_dir = tmp_path / f"build-{trial}"
        out_dir.mkdir()
        output = out_dir / "ref.sqlite"
        delay = rng.uniform(0, duration)
        where = f"trial {trial} ({delay:.3f} s)"
        killed = run_and_kill(
            ["build", packages.first, output, "--json"], delay, tmp_path / f"b{trial}.log"
        )
        survivors += killed.survivors
        outcomes["killed" if killed.returncode != 0 else "completed before the kill"] += 1
        temps = sorted(out_dir.glob(".ref.sqlite.tmp-*"))
        stale_after_kill += len(temps)
        if output.exists():
            # Only the complete file is ever published (a hard link of the validated temp).
            outcomes["complete output published"] += 1
            check = pmgs("validate", output, "--json")
            assert check.returncode == 0, f"{where}: a published output fails validation"
        else:
            outcomes["nothing at the output path"] += 1
        assert sorted(p.name for p in out_dir.iterdir() if p not in temps) in (
            [],
            ["ref.sqlite"],
        ), f"{where}: {sorted(out_dir.iterdir())}"

        # A following build to the same path (when free) or beside it succeeds.
        target = output if not output.exists() else out_dir / "again.sqlite"
        again = pmgs("build", packages.first, target, "--json")
        assert again.returncode == 0, (
            f"{where}: build after the kill failed: {again.stdout} {again.stderr}"
        )
        assert json.loads(again.stdout)["logical_digest"] == digest, where
        left = sorted(out_dir.glob(".*.tmp-*"))
        stale_after_next_build += len(left)
        assert all(p.name.startswith(".ref.sqlite.tmp-") for p in left), where
        if target == output:  # a build of the same output clears what the killed one left
            assert left == [], f"{where}: {left}"
        shutil.rmtree(out_dir)
    figures.sections["build_sigkill"] = {
        "runs_started": trials,
        "kills_landed": outcomes["killed"],
        "kills_survived": outcomes["killed"],
        "full_run_seconds": round(duration, 2),
        "outcomes": dict(outcomes),
        "temp_files_left_by_the_kill": stale_after_kill,
        "temp_files_still_there_after_the_next_build": stale_after_next_build,
        "processes_left_by_the_killed_build": survivors,
        "seconds": round(time.monotonic() - started, 1),
    }
    assert survivors == 0, "a killed build left processes running"
