"""Stopping cleanly on SIGTERM, SIGHUP and SIGINT, and never leaving a worker behind.

In the main process SIGTERM and SIGHUP (the terminal or ssh session went away, or ``kill -HUP``)
become an exception, as SIGINT becomes ``KeyboardInterrupt`` (``ndbsim.signals``, which
also keeps the signal when a generator's finaliser swallows the exception), so ``finally``
blocks run (atomic writes remove their temporary file) and a sweep, advise or solve stops its
worker processes.
The workers ignore SIGINT and SIGHUP, which a terminal sends to the whole process group, and
leave it to the main process to stop them, so one line is printed, not one per worker.

A main process that dies without running its handler (SIGKILL, the out-of-memory killer, a
crash) cannot stop its workers, so each worker watches its parent: on Linux the kernel kills it
when its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread polls
``os.getppid()``, which changes once the parent is gone (the worker is re-parented), and ends
the worker. Either way no worker outlives its parent by more than ``PARENT_POLL`` seconds."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

from ndbsim.signals import STOP_SIGNALS, Terminated, check, install, restore

__all__ = ["STOP_SIGNALS", "Terminated", "check", "install", "pool_context", "restore", "stop_pool", "worker_init"]

TERMINATED_EXIT = 128 + signal.SIGTERM
"""Exit code after SIGTERM: 128 + the signal number (143), the shell's convention."""

PARENT_POLL = 0.5
"""Seconds between a worker's checks that its parent is alive, where the kernel cannot watch
for it (not Linux): a dead parent's workers end within this time. A choice of ours: a check
costs a system call, so twice a second is nothing beside a worker's work."""

WAIT_POLL = 0.2
"""Longest wait for a worker's result before the main process looks whether a signal arrived
that a finaliser swallowed (``signals.check``): a stop is seen within this time, not only when
the next chunk finishes. A choice of ours, far below the one second a stop may take."""

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal the kernel sends this process when its parent thread exits
(linux/prctl.h)."""


def pool_context() -> Any:
    """How worker processes start: fork where it is safe (Linux), spawn elsewhere (macOS's
    system libraries are not fork-safe, so Python spawns there by default)."""
    import multiprocessing as mp

    fork = "fork" in mp.get_all_start_methods() and sys.platform != "darwin"
    return mp.get_context("fork" if fork else "spawn")


def worker_init() -> None:
    """Pool worker initializer: SIGINT and SIGHUP are the main process's to handle, SIGTERM
    kills at once, and the worker ends when its parent does (``watch_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watch_parent()


def watch_parent(kernel: bool = True) -> None:
    """End this process when its parent dies: by the kernel on Linux (``kernel``), else by a
    polling thread. The parent may already be gone when this runs (it died between starting
    the worker and now), so the parent's id is checked after the kernel is asked to watch."""
    parent = _parent_at_start()
    if kernel and _kernel_watches():
        if os.getppid() != parent:
            os._exit(1)
        return
    t = threading.Thread(target=_poll_parent, args=(parent,), name="ndbsim-parent-watch", daemon=True)
    t.start()


def _parent_at_start() -> int:
    """The parent this worker was started by: multiprocessing records it (a forked worker's
    ``os.getppid()`` may already be a reaper's if the parent died before the worker ran)."""
    import multiprocessing as mp

    ppid = getattr(mp.current_process(), "_parent_pid", None)
    return int(ppid) if ppid else os.getppid()


def _kernel_watches() -> bool:
    """Ask Linux to SIGKILL this process when its parent exits; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _poll_parent(parent: int) -> None:
    """Exit at once (no cleanup: a worker holds no file of the user's) once ``parent`` is gone."""
    import time

    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


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
