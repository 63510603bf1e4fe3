"""The embedded sample package: a small synthetic PMGS release shipped as package data.

``pmgs demo``, the documentation and quick tests need a package without generating one, and
the real package may not be redistributed. The files under ``JPPM2026002/`` were written once
by ``python -m pmgs_testkit.make_sample`` (the synthetic generator with compact sizes)
and are clearly marked synthetic, including the COPYRGHT line.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

__all__ = ["SAMPLE_RELEASE", "sample_package_path"]

SAMPLE_RELEASE = "JPPM2026002"


def sample_package_path() -> Path:
    """The release directory of the embedded sample (read it, never write to it).

    The package is installed as files (editable or from a wheel), so the resource is a real
    directory; ``as_file`` is used only to obtain its filesystem path and is a no-op then.
    """
    resource = files(__name__).joinpath(SAMPLE_RELEASE)
    with as_file(resource) as path:
        directory = Path(path)
    if not (directory / "COPYRGHT").is_dir():
        raise FileNotFoundError(f"embedded sample package missing at {directory}")
    return directory
