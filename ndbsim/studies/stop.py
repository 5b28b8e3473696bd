"""Stopping cleanly on SIGTERM and SIGINT: the signal becomes an exception in the main process,
so ``finally`` blocks run (atomic writes remove their temporary file) and a sweep, advise or
solve stops its worker processes; the workers ignore SIGINT, which a terminal sends to the
whole process group, and leave it to the main process to stop them, so one line is printed,
not one per worker."""

from __future__ import annotations

import signal
from typing import Any

TERMINATED_EXIT = 128 + signal.SIGTERM
"""Exit code after SIGTERM: 128 + the signal number (143), the shell's convention."""


class Terminated(BaseException):
    """SIGTERM arrived: unwind like KeyboardInterrupt does for SIGINT."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


def install() -> Any:
    """Turn SIGTERM into ``Terminated`` in this (the main) process; returns the handler it replaced
    (None off the main thread, where signals cannot be handled)."""
    try:
        return signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:
        return None


def restore(previous: Any) -> None:
    """Put back the SIGTERM handler ``install`` replaced (the CLI can run inside another program)."""
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def pool_context() -> Any:
    """How worker processes start: fork where it is safe (Linux), spawn elsewhere (macOS's
    system libraries are not fork-safe, so Python spawns there by default)."""
    import multiprocessing as mp
    import sys

    fork = "fork" in mp.get_all_start_methods() and sys.platform != "darwin"
    return mp.get_context("fork" if fork else "spawn")


def worker_init() -> None:
    """Pool worker initializer: SIGINT is the main process's to handle, SIGTERM kills at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def stop_pool(executor: Any) -> None:
    """Stop a ``ProcessPoolExecutor`` now: drop queued work, terminate running workers and wait
    for the executor's manager thread to finish (``shutdown`` alone would wait for every running
    chunk)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(5)
    # The executor's manager thread closes its wake-up pipe when it sees the workers gone; at exit
    # Python 3.11 writes to that pipe without a lock (concurrent.futures.process._python_exit), so
    # a close racing the exit prints "Bad file descriptor". Waiting for the thread ends the race.
    if manager is not None:
        manager.join(5)
