"""pmgs-web: a read-only viewer of the pmgs reference in the browser (``pmgs web``).

``create_app(StoreSet(store))`` is the ASGI application; ``pmgs mcp --transport http``
mounts it under ``/web`` when this package is installed (:func:`viewer_for`).
"""

from pmgs_web.app import create_app, viewer_for
from pmgs_web.cli import main
from pmgs_web.releases import StoreSet

__all__ = ["StoreSet", "create_app", "main", "viewer_for"]
