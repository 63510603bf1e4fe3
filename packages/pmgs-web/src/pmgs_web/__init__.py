"""pmgs-web: a read-only viewer of the pmgs reference in the browser (``pmgs web``)."""

from pmgs_web.app import create_app
from pmgs_web.cli import main

__all__ = ["create_app", "main"]
