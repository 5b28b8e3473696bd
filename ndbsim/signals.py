"""SIGINT, SIGTERM and SIGHUP in the main process: a flag that no finaliser can lose.

A Python signal handler runs at whatever bytecode the main thread is executing. When that is the
``finally`` of a SimPy process generator being closed (a replication's environment is freed,
its processes finalised), the exception the handler raises is "ignored": Python prints it and
goes on, and a run of 100,000 replications would run to its end. So the handler first records
the signal, then raises (which ends a blocking wait at once); a raise lost in a finaliser leaves
the record, and every long loop calls ``check`` between its steps (each replication, each sweep
chunk, each wait for a worker), which raises again where nothing can swallow it. While the
handlers are installed the lost raise is not printed either (``sys.unraisablehook``): ``check``
will report it, as one line."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None
)
"""The signals that stop a run like SIGTERM does (SIGHUP does not exist on Windows)."""

HANDLED: tuple[signal.Signals, ...] = (signal.SIGINT, *STOP_SIGNALS)
"""Every signal the main process turns into an exception."""


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind like KeyboardInterrupt does for SIGINT."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """128 + the signal number: 143 after SIGTERM, 129 after SIGHUP."""
        return 128 + self.signum

    @property
    def word(self) -> str:
        """What the one line on stderr says stopped the run."""
        return "hung up" if self.signum == getattr(signal, "SIGHUP", None) else "terminated"


_pending: list[int] = []
"""The signal that arrived and has not yet stopped the run (at most one: the first wins)."""


def _stopping(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


_installer: list[int] = []
"""The process that installed the handlers. A worker forked from it inherits them until its
pool initializer (``studies.stop.worker_init``) replaces them; a signal in that window must do
what the initializer would have set, not unwind the worker with a traceback."""


def _handler(signum: int, frame: Any) -> None:
    if _installer and os.getpid() != _installer[0]:
        if signum == signal.SIGTERM:
            os._exit(128 + signum)  # the worker's SIGTERM kills at once (worker_init's SIG_DFL)
        return  # SIGINT and SIGHUP are the main process's to handle (worker_init ignores them)
    if not _pending:
        _pending.append(signum)
    raise _stopping(_pending[0])


def check() -> None:
    """Raise the exception of a signal that arrived but was lost (raised where Python ignores
    exceptions); nothing when none did. Cheap: call it between the steps of every long loop."""
    if _pending:
        raise _stopping(_pending[0])


def pending() -> int | None:
    """The signal waiting to stop the run, if any."""
    return _pending[0] if _pending else None


def _quiet_hook(previous: Any) -> Any:
    def hook(unraisable: Any) -> None:
        if _pending and isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            return  # the signal's record stays; ``check`` raises it where it can stop the run
        previous(unraisable)

    return hook


def install() -> Any:
    """Handle SIGINT, SIGTERM and SIGHUP in this (the main) process; returns what it replaced
    (None off the main thread, where signals cannot be handled)."""
    _pending.clear()
    try:
        handlers = {s: signal.signal(s, _handler) for s in HANDLED}
    except ValueError:
        return None
    _installer[:] = [os.getpid()]
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_hook(previous_hook)
    return handlers, previous_hook


def restore(previous: Any) -> None:
    """Put back what ``install`` replaced (the CLI can run inside another program) and forget
    a signal that already stopped the run."""
    _pending.clear()
    if previous is None:
        return
    handlers, hook = previous
    for s, handler in handlers.items():
        if handler is not None:
            signal.signal(s, handler)
    sys.unraisablehook = hook
