"""The installed distribution and the importable package agree on who they are."""

from importlib.metadata import version

import pmgs_mcp


def test_version_comes_from_the_installed_distribution() -> None:
    assert pmgs_mcp.__version__ == version("pmgs-mcp")
    assert pmgs_mcp.__version__ != "0+unknown"


def test_exports_are_declared() -> None:
    assert set(pmgs_mcp.__all__) <= set(dir(pmgs_mcp))
