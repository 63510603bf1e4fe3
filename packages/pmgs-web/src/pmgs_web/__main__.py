"""``python -m pmgs_web``: the same as ``pmgs web``."""

from pmgs_web.cli import main

raise SystemExit(main())
