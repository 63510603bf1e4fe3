"""``python -m pmgs_cli``: the same command as the ``pmgs`` console script.

``pmgs doctor`` and ``pmgs setup --client …`` start subcommands of other packages this way,
with the current interpreter, so they never depend on what ``pmgs`` on PATH is.
"""

import sys

from pmgs_cli.app import main

if __name__ == "__main__":
    sys.exit(main())
