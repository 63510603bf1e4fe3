"""The package arrows of docs/design.md hold, and packages meet only through ``__all__``.

import-linter checks the dependency direction and forbids imports of another package's
submodules (contracts in the root pyproject.toml). What it cannot see is a name imported from
a package's top level that the package does not export; the AST check below covers that.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "pmgs_core": "pmgs-core",
    "pmgs_build": "pmgs-build",
    "pmgs_cli": "pmgs-cli",
    "pmgs_mcp": "pmgs-mcp",
    "pmgs_agentkit": "pmgs-agentkit",
    "pmgs_web": "pmgs-web",
}


def _lint_imports(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(exe), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_import_contracts_hold() -> None:
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize(
    ("package", "injected", "contract"),
    [
        ("pmgs_core", "import pmgs_build\n", "pmgs-core depends on no other pmgs package"),
        ("pmgs_mcp", "import pmgs_cli\n", "pmgs-mcp depends on pmgs-core only"),
        ("pmgs_mcp", "import pmgs_web\n", "pmgs-mcp depends on pmgs-core only"),
        (
            "pmgs_web",
            "from pmgs_core.building import create_schema\n",
            "only pmgs-build (and the test kit) open pmgs-core's builder module",
        ),
        ("pmgs_build/database", "import pmgs_build.source\n", "pmgs-build by pipeline"),
        ("pmgs_build/source", "import pmgs_build.build\n", "pmgs-build by pipeline"),
        ("pmgs_web", "import pmgs_mcp\n", "pmgs-web depends on pmgs-core only"),
        (
            "pmgs_build",
            "from pmgs_core import notation\n",
            "packages meet only through each other's top-level exports",
        ),
    ],
)
def test_import_contracts_catch_a_forbidden_import(
    tmp_path: Path, package: str, injected: str, contract: str
) -> None:
    """Copies of the sources with one bad import added must fail the same contracts."""
    for module, dist in PACKAGES.items():
        src = ROOT / "packages" / dist / "src" / module
        shutil.copytree(src, tmp_path / module)
    init = tmp_path / package / "__init__.py"
    init.write_text(injected + init.read_text(encoding="utf-8"), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = _lint_imports(env)
    assert result.returncode != 0, result.stdout
    assert contract in result.stdout
    assert "BROKEN" in result.stdout


def _imports_of_other_packages(path: Path, own: str) -> list[tuple[str, str, int]]:
    """(package, imported name, line) for each ``from pmgs_x import name`` of another package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in PACKAGES and node.module != own:
            found.extend((node.module, alias.name, node.lineno) for alias in node.names)
    return found


def test_cross_package_names_are_exported() -> None:
    violations = []
    checked = 0
    for module, dist in PACKAGES.items():
        for path in (ROOT / "packages" / dist / "src" / module).rglob("*.py"):
            for target, name, line in _imports_of_other_packages(path, module):
                checked += 1
                exported = getattr(importlib.import_module(target), "__all__", [])
                if name not in exported:
                    violations.append(f"{path.relative_to(ROOT)}:{line}: {target}.{name}")
    assert not violations, "names used across packages but not in __all__:\n" + "\n".join(
        violations
    )
    assert checked > 0  # the scan must see the real cross-package imports


def test_the_export_check_sees_a_private_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from pmgs_core import _secret, parse_code\n", encoding="utf-8")
    names = [name for _, name, _ in _imports_of_other_packages(bad, "pmgs_cli")]
    assert names == ["_secret", "parse_code"]
    assert "_secret" not in importlib.import_module("pmgs_core").__all__
