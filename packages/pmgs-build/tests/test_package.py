"""The installed distribution and the importable package agree on who they are."""

from importlib.metadata import version

import pmgs_build


def test_version_comes_from_the_installed_distribution() -> None:
    assert pmgs_build.__version__ == version("pmgs-build")
    assert pmgs_build.__version__ != "0+unknown"


def test_exports_are_declared() -> None:
    assert set(pmgs_build.__all__) <= set(dir(pmgs_build))
