"""pmgs-web: a read-only viewer of the pmgs reference in the browser (``pmgs web``).

``create_app(StoreSet(store))`` is the ASGI application; ``pmgs mcp --transport http``
mounts it under ``/web`` when this package is installed (:func:`viewer_for`).
:func:`code_path` and :func:`document_path` give the viewer path of what an answer cites
(``pmgs://fi/G06F3/048`` is ``/fi/G06F3/048``).
"""

from pmgs_web.app import create_app, viewer_for
from pmgs_web.cli import main
from pmgs_web.links import code_path, document_path
from pmgs_web.releases import StoreSet

__all__ = ["StoreSet", "code_path", "create_app", "document_path", "main", "viewer_for"]
