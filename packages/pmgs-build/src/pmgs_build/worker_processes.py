"""Spawned worker processes that do not import the caller's main module.

Used by the PDF text pool (ADR 0007) and by the build's writer and snapshot workers
(ADR 0028): spawn, never fork, since the builder holds an open SQLite connection.
"""

from __future__ import annotations

import multiprocessing.context
import sys
import threading
import types
from typing import Any, Final

__all__ = ["WorkerContext", "WorkerProcess"]

_MAIN_LOCK: Final = threading.Lock()


class WorkerProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that does not re-import the caller's main module.

    A spawned process normally runs the parent's ``__main__`` again (by path or by module
    name), which fails for a script read from stdin and re-runs a script's build when it has
    no ``if __name__ == "__main__"`` guard. Workers need only pmgs_build (their function is
    pickled by reference), so the preparation data is taken with an empty main module.
    """

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        with _MAIN_LOCK:
            main = sys.modules["__main__"]
            sys.modules["__main__"] = types.ModuleType("__main__")
            try:
                return multiprocessing.context.SpawnProcess._Popen(process_obj)
            finally:
                sys.modules["__main__"] = main


class WorkerContext(multiprocessing.context.SpawnContext):
    """The spawn context whose processes are :class:`WorkerProcess`."""

    Process = WorkerProcess
