"""The package tables of README.md and README.en.md say what the workspace holds.

Docs drifted before ("five packages" above a table of six, "platformdirs only" for a package
with two dependencies): the tables are now checked against the workspace's folders and each
package's ``pyproject.toml``, which are the oracle here, so a package added, a dependency
added or dropped, or an extra renamed fails this test until the tables say so.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = ("README.md", "README.en.md")
ROW = re.compile(r"^\| `packages/(?P<dir>[a-z-]+)` \| `(?P<module>[a-z_]+)` \|(?P<rest>.*)\|$")


def _name(requirement: str) -> str:
    """``pmgs-core[vectors,watch]>=1`` → ``pmgs-core``: the distribution name alone."""
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].strip().lower()


def _declared(package_dir: Path) -> tuple[set[str], set[str], dict[str, set[str]]]:
    """(pmgs dependencies, other dependencies, extras) as the pyproject declares them."""
    project = tomllib.loads((package_dir / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {_name(r) for r in project.get("dependencies", [])}
    extras = {
        extra: {_name(r) for r in requirements}
        for extra, requirements in project.get("optional-dependencies", {}).items()
    }
    pmgs = {n for n in names if n.startswith("pmgs-")}
    return pmgs, names - pmgs, extras


def _claimed(cell_pmgs: str, cell_other: str) -> tuple[set[str], set[str], dict[str, set[str]]]:
    """The same three from a table row's two dependency cells
    (``platformdirs, sqlite-utils; `[vectors]` numpy, scipy``)."""
    pmgs = {n.strip() for n in cell_pmgs.split(",") if n.strip() not in {"", "—"}}
    parts = [p.strip() for p in cell_other.split(";")]
    plain = {n.strip() for n in parts[0].split(",") if n.strip() not in {"", "—"}}
    extras: dict[str, set[str]] = {}
    for part in parts[1:]:
        match = re.fullmatch(r"`\[(?P<extra>[a-z-]+)\]` (?P<names>.+)", part)
        assert match, f"cannot read the extra {part!r}"
        extras[match["extra"]] = {n.strip() for n in match["names"].split(",")}
    return pmgs, plain, extras


def _rows(readme: str) -> dict[str, tuple[str, list[str]]]:
    rows: dict[str, tuple[str, list[str]]] = {}
    for line in (ROOT / readme).read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            cells = [c.strip() for c in match["rest"].split("|")]
            rows[match["dir"]] = (match["module"], cells)
    return rows


@pytest.mark.parametrize("readme", READMES)
def test_the_package_table_lists_every_workspace_member(readme: str) -> None:
    members = {p.parent.name for p in (ROOT / "packages").glob("*/pyproject.toml")}
    rows = _rows(readme)
    assert set(rows) == members
    for directory, (module, _) in rows.items():
        assert (ROOT / "packages" / directory / "src" / module / "__init__.py").is_file()


@pytest.mark.parametrize("readme", READMES)
def test_each_packages_dependencies_are_what_the_table_says(readme: str) -> None:
    for directory, (_, cells) in _rows(readme).items():
        assert len(cells) == 3, f"{readme}: {directory}: role, pmgs deps, other deps"
        claimed = _claimed(cells[1], cells[2])
        assert claimed == _declared(ROOT / "packages" / directory), f"{readme}: {directory}"


@pytest.mark.parametrize("readme", READMES)
def test_the_count_in_the_prose_matches_the_table(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    published = [
        d
        for d in _rows(readme)
        if "Private :: Do Not Upload"
        not in (ROOT / "packages" / d / "pyproject.toml").read_text(encoding="utf-8")
    ]
    word = {"README.md": "六つ", "README.en.md": "six"}[readme]
    assert len(published) == 6
    assert word in text
    assert "five packages" not in text
    assert "五つのパッケージ" not in text


def test_the_reader_of_the_table_sees_a_changed_dependency(tmp_path: Path) -> None:
    # Planted drift: a dependency added to a copy of pmgs-agentkit's pyproject must differ
    # from what the table claims.
    copy = tmp_path / "pmgs-agentkit"
    copy.mkdir()
    text = (ROOT / "packages/pmgs-agentkit/pyproject.toml").read_text(encoding="utf-8")
    (copy / "pyproject.toml").write_text(
        text.replace('"tomli-w>=1.0"', '"tomli-w>=1.0", "requests"'), encoding="utf-8"
    )
    _, cells = _rows("README.en.md")["pmgs-agentkit"]
    assert _claimed(cells[1], cells[2]) != _declared(copy)
