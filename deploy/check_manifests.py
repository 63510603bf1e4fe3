"""Check the Kubernetes manifests of deploy/kubernetes/ offline (``nox -s deploy``).

Two layers, neither needing a cluster or the network:

1. every document of every ``*.yaml`` file (the kustomization's resources and the optional
   ones) validates strictly against the Kubernetes OpenAPI schemas that the
   ``kubernetes-validate`` package ships (unknown fields are errors, so a typo cannot pass);
2. the rules this project's deployment depends on (docs/deploy.md, ADR 0013): the pods run
   ``pmgs mcp --transport http`` without SSE, as non-root on a read-only root filesystem,
   with the database on a read-only volume, readiness on ``/ready`` and liveness on
   ``/health``, a rolling update that never lowers capacity, and a Service, a
   PodDisruptionBudget and an HPA that select or name that Deployment.

Usage: ``python deploy/check_manifests.py [DIR]``; exit status 1 lists every problem.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import kubernetes_validate
import yaml

KUBERNETES_VERSION = "1.33.0"
"""The oldest Kubernetes version the manifests must validate against (preStop sleep is GA
from 1.34 but served by default since 1.30; 1.33 is the oldest release still supported)."""

BASE = Path(__file__).parent / "kubernetes"

Doc = Mapping[str, Any]


def load(directory: Path) -> tuple[list[str], dict[str, list[Doc]]]:
    """(problems, documents by file name) of every YAML file in ``directory``."""
    problems: list[str] = []
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text("utf-8"))
    listed = list(kustomization.get("resources", []))
    for name in listed:
        if not (directory / name).is_file():
            problems.append(f"kustomization.yaml lists {name}, which does not exist")
    docs: dict[str, list[Doc]] = {}
    for path in sorted(directory.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs[path.name] = [d for d in yaml.safe_load_all(path.read_text("utf-8")) if d]
        if path.name not in listed and path.name != "hpa.yaml":
            problems.append(f"{path.name} is neither a resource of kustomization.yaml nor hpa.yaml")
    return problems, docs


def schema_problems(docs: Mapping[str, list[Doc]], version: str) -> list[str]:
    """Strict validation of every document against the Kubernetes schemas of ``version``."""
    problems = []
    for name, documents in docs.items():
        for doc in documents:
            try:
                kubernetes_validate.validate(dict(doc), version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                where = "/".join(str(p) for p in exc.path)
                problems.append(f"{name}: {doc.get('kind')}: {where}: {exc.message}")
            except (
                kubernetes_validate.SchemaNotFoundError,
                kubernetes_validate.InvalidSchemaError,
            ):
                problems.append(f"{name}: no schema for {doc.get('apiVersion')} {doc.get('kind')}")
    return problems


def _of_kind(docs: Mapping[str, list[Doc]], kind: str) -> list[Doc]:
    return [d for documents in docs.values() for d in documents if d.get("kind") == kind]


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _probe_path(container: Doc, probe: str) -> str | None:
    path = container.get(probe, {}).get("httpGet", {}).get("path")
    return None if path is None else str(path)


def _container_problems(container: Doc, volumes: Mapping[str, Doc]) -> Iterable[str]:
    args = [str(a) for a in container.get("args", [])]
    if args[:3] != ["mcp", "--transport", "http"]:
        yield "the container must run `pmgs mcp --transport http` (args mcp --transport http)"
    if "--no-sse" not in args or "--workers" in args:
        yield "replicas without affinity need --no-sse and one worker per pod"
    if _probe_path(container, "readinessProbe") != "/ready":
        yield "readinessProbe must GET /ready"
    if _probe_path(container, "livenessProbe") != "/health":
        yield "livenessProbe must GET /health"
    security = container.get("securityContext", {})
    if security.get("readOnlyRootFilesystem") is not True:
        yield "the root filesystem must be read-only"
    if security.get("allowPrivilegeEscalation") is not False:
        yield "allowPrivilegeEscalation must be false"
    if "ALL" not in security.get("capabilities", {}).get("drop", []):
        yield "all capabilities must be dropped"
    resources = container.get("resources", {})
    for part in ("requests", "limits"):
        if not {"cpu", "memory"} <= set(resources.get(part, {})):
            yield f"resources.{part} must give cpu and memory"
    mounts = {m["name"]: m for m in container.get("volumeMounts", [])}
    reference = mounts.get("reference")
    if reference is None or reference.get("readOnly") is not True:
        yield "the reference volume must be mounted readOnly"
    claim = volumes.get("reference", {}).get("persistentVolumeClaim")
    if claim is not None and claim.get("readOnly") is not True:
        yield "the reference claim must be readOnly"
    env = {e["name"]: e for e in container.get("env", [])}
    token = env.get("PMGS_MCP_TOKEN", {}).get("valueFrom", {}).get("secretKeyRef")
    if token is None:
        yield "PMGS_MCP_TOKEN must come from a Secret (the pods bind a non-loopback address)"


def rule_problems(docs: Mapping[str, list[Doc]]) -> list[str]:
    """The project's own rules (see the module docstring)."""
    problems: list[str] = []
    deployments = _of_kind(docs, "Deployment")
    if len(deployments) != 1:
        return [f"expected one Deployment, found {len(deployments)}"]
    deployment = deployments[0]
    spec = deployment["spec"]
    name = deployment["metadata"]["name"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    if spec.get("replicas", 1) < 2:
        problems.append("Deployment: at least 2 replicas (one can be lost or rolled)")
    rolling = spec.get("strategy", {}).get("rollingUpdate", {})
    if (
        spec.get("strategy", {}).get("type") != "RollingUpdate"
        or rolling.get("maxUnavailable") != 0
    ):
        problems.append("Deployment: RollingUpdate with maxUnavailable 0")
    if not _selects(spec["selector"].get("matchLabels", {}), labels):
        problems.append("Deployment: the selector does not match the pod labels")
    pod_security = pod.get("securityContext", {})
    if pod_security.get("runAsNonRoot") is not True or not pod_security.get("runAsUser"):
        problems.append("Deployment: pods must run as a non-root user (runAsNonRoot, runAsUser)")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for container in pod["containers"]:
        problems.extend(f"Deployment: {p}" for p in _container_problems(container, volumes))
    ports = {p.get("name") for c in pod["containers"] for p in c.get("ports", [])}

    services = _of_kind(docs, "Service")
    if not services:
        problems.append("a Service is required")
    for service in services:
        if not _selects(service["spec"].get("selector", {}), labels):
            problems.append("Service: the selector does not match the Deployment's pods")
        if service["spec"].get("sessionAffinity", "None") != "None":
            problems.append("Service: no session affinity (streamable HTTP is stateless)")
        for port in service["spec"].get("ports", []):
            if port.get("targetPort") not in ports:
                problems.append(f"Service: targetPort {port.get('targetPort')} is not a pod port")
    budgets = _of_kind(docs, "PodDisruptionBudget")
    if not budgets:
        problems.append("a PodDisruptionBudget is required")
    for budget in budgets:
        if not _selects(budget["spec"].get("selector", {}).get("matchLabels", {}), labels):
            problems.append("PodDisruptionBudget: the selector does not match the pods")
    for hpa in _of_kind(docs, "HorizontalPodAutoscaler"):
        target = hpa["spec"]["scaleTargetRef"]
        if (target.get("kind"), target.get("name")) != ("Deployment", name):
            problems.append("HorizontalPodAutoscaler: it must scale the Deployment")
    return problems


def check(directory: Path = BASE, version: str = KUBERNETES_VERSION) -> list[str]:
    """Every problem of the manifests in ``directory``; empty when they are fine."""
    problems, docs = load(directory)
    return problems + schema_problems(docs, version) + rule_problems(docs)


def main(argv: list[str]) -> int:
    directory = Path(argv[0]) if argv else BASE
    problems = check(directory)
    for problem in problems:
        sys.stderr.write(f"deploy/check_manifests: {problem}\n")
    if problems:
        return 1
    count = sum(1 for p in directory.glob("*.yaml") if p.name != "kustomization.yaml")
    sys.stdout.write(
        f"deploy/check_manifests: {count} manifest files valid (Kubernetes {KUBERNETES_VERSION})\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
