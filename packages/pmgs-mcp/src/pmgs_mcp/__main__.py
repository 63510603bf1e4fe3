"""``python -m pmgs_mcp``: the same command as ``pmgs-mcp``."""

from pmgs_mcp import main

raise SystemExit(main())
