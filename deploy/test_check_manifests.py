"""deploy/check_manifests.py refuses what the deployment must not have (``nox -s deploy``).

Each case copies the real base, breaks one thing by hand, and names the problem it expects.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))

import check_manifests


def _container(docs: dict[str, Any]) -> dict[str, Any]:
    return docs["deployment.yaml"]["spec"]["template"]["spec"]["containers"][0]  # type: ignore[no-any-return]


def _typo(docs: dict[str, Any]) -> None:
    security = _container(docs)["securityContext"]
    security["readOnlyRootFileSystem"] = security.pop("readOnlyRootFilesystem")


CASES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "misspelt field": (_typo, "readOnlyRootFileSystem"),
    "writable root": (
        lambda d: _container(d)["securityContext"].update(readOnlyRootFilesystem=False),
        "the root filesystem must be read-only",
    ),
    "readiness on /health": (
        lambda d: _container(d)["readinessProbe"]["httpGet"].update(path="/health"),
        "readinessProbe must GET /ready",
    ),
    "sse with affinity-less service": (
        lambda d: _container(d)["args"].remove("--no-sse"),
        "need --no-sse",
    ),
    "writable database mount": (
        lambda d: _container(d)["volumeMounts"][0].update(readOnly=False),
        "the reference volume must be mounted readOnly",
    ),
    "sticky service": (
        lambda d: d["service.yaml"]["spec"].update(sessionAffinity="ClientIP"),
        "no session affinity",
    ),
    "capacity dip on rollout": (
        lambda d: d["deployment.yaml"]["spec"]["strategy"]["rollingUpdate"].update(
            maxUnavailable=1
        ),
        "maxUnavailable 0",
    ),
    "budget selects nothing": (
        lambda d: d["poddisruptionbudget.yaml"]["spec"]["selector"]["matchLabels"].update(
            {"app.kubernetes.io/name": "other"}
        ),
        "PodDisruptionBudget: the selector does not match",
    ),
}


def test_the_base_is_valid() -> None:
    assert check_manifests.check() == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_manifest_is_refused(tmp_path: Path, case: str) -> None:
    base = tmp_path / "kubernetes"
    shutil.copytree(check_manifests.BASE, base)
    docs = {
        p.name: yaml.safe_load(p.read_text("utf-8"))
        for p in base.glob("*.yaml")
        if p.name != "kustomization.yaml"
    }
    breaker, expected = CASES[case]
    breaker(docs)
    for name, doc in docs.items():
        (base / name).write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    problems = check_manifests.check(base)
    assert any(expected in p for p in problems), problems


def test_a_missing_resource_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "kubernetes"
    shutil.copytree(check_manifests.BASE, base)
    (base / "service.yaml").unlink()
    problems = check_manifests.check(base)
    assert "kustomization.yaml lists service.yaml, which does not exist" in problems
    assert "a Service is required" in problems
