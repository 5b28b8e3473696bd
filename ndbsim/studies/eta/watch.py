"""``ndbsim eta --watch``: the snapshot script run through the ``mysql`` client every interval, one
ETA per snapshot, until the restart completes (exit 0) or overruns (exit 4). Whatever ends the
watch (those two, ``max_failures``, an error, a signal), its published state says so last.

A snapshot the client fails to take (a refused connection, an SQL node restarting, a timeout) is
one line on stderr with the client's message, and the next interval tries again: a rolling
restart of the SQL nodes, or a network blip, should not end the watch. ``max_failures`` failures
in a row end it with exit 2 and the client's last message.

The client's options pass through unchanged (``-- --defaults-file=FILE -h HOST``) and are never
printed; a password on the command line is refused, as ``ps`` would show it to every user of
the host. The client runs as a child that dies with ndbsim: it is killed when interrupted, and
on Linux the kernel signals it if ndbsim itself is killed (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import math
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from ndbsim.errors import InputError
from ndbsim.input.ndbinfo import SNAPSHOT_SCRIPT, script_text
from ndbsim.input.snapshot.read import Snapshot, parse_snapshot
from ndbsim.output.timeouts import MARGIN
from ndbsim.studies.eta.metrics import WatchState
from ndbsim.studies.eta.predict import Eta
from ndbsim.studies.eta.session import Session

EXIT_OVERRUN = 4
"""The exit code when the restart has run past ``MARGIN`` × the predicted p99 window. The window
judged is the one predicted when the cluster last showed something new (a phase finished, a
node done): a phase that hangs shows nothing new, so its deadline stays where it was set, while
every finished phase resets it with what the fit has learnt."""

MAX_FAILURES = 5
"""Snapshots in a row the client may fail before ``--watch`` stops (``--max-failures``'s default): at 30 s a
snapshot, two and a half minutes without an answer, longer than a mysqld restart takes."""

PASSWORD_FLAGS = ("-p", "--password")
"""The client's password options: refused (use --defaults-file or a login path)."""


def check_client_args(args: list[str]) -> None:
    """Refuse a password on the command line without repeating it."""
    for a in args:
        if a == "-p" or (a.startswith("-p") and not a.startswith("--")) or a.split("=", 1)[0] == "--password":
            raise InputError(
                "a password on the command line is visible to every user of this host (ps) and is refused; "
                "put it in an option file and pass --defaults-file=FILE (or --login-path=NAME)",
                field="mysql options",
            )


def _die_with_parent() -> None:
    """In the child before exec: ask the kernel to SIGTERM it when ndbsim dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def take_snapshot(client: str, args: list[str], timeout: float, n: int) -> Snapshot:
    """Run the snapshot script through the client once; one line on failure (no option shown)."""
    cmd = [client, *args, "--batch"]
    try:
        done = subprocess.run(
            cmd,
            input=script_text(SNAPSHOT_SCRIPT),
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
    except FileNotFoundError:
        raise InputError(f"{client!r} not found; install the mysql client or give its path", field="--mysql") from None
    except OSError as e:
        raise InputError(
            f"cannot run {client!r}: {e.strerror or e}; give the mysql client's path", field="--mysql"
        ) from None
    except subprocess.TimeoutExpired:
        raise SnapshotFailed(
            f"the mysql client did not answer within {timeout:.0f} s (killed); check the SQL node", field="--mysql"
        ) from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0][:200]
        raise SnapshotFailed(f"the mysql client exited with {done.returncode}: {first}", field="--mysql")
    return parse_snapshot(done.stdout, f"snapshot {n}")


class SnapshotFailed(InputError):
    """The client ran but gave no snapshot (its error, or no answer in time): ``watch`` tries again."""


@dataclass
class Outcome:
    code: int
    message: str


def _stop_reason(e: BaseException) -> str:
    """What ended a watch that raised ``e`` (``metrics.STOP_REASONS``)."""
    from ndbsim.studies.eta.metrics import STOP_ERROR, STOP_FAILURES, STOP_SIGNAL

    if isinstance(e, GaveUp):
        return STOP_FAILURES
    return STOP_ERROR if isinstance(e, Exception) else STOP_SIGNAL


class GaveUp(InputError):
    """``max_failures`` snapshots in a row failed."""


def watch(
    session: Session,
    take: Callable[[int], Snapshot],
    interval: float,
    show: Callable[[Eta], None],
    sleep: Callable[[float], None] = time.sleep,
    max_failures: int = MAX_FAILURES,
    publish: Callable[[Eta | None, WatchState], None] | None = None,
    warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    state: WatchState | None = None,
    clock: Callable[[], float] = time.time,
) -> Outcome:
    """Snapshot, predict, show, until the restart completes or overruns. ``publish`` gets the last
    ETA (None before the first) and ``state`` (the watch's failures, deadline and, at the end,
    why it stopped): before the first snapshot, after each snapshot or failure, and once on every
    way out (completion, overrun, ``max_failures``, an error, a signal) with ``state.up`` False."""
    from ndbsim.studies.eta.metrics import STOP_COMPLETE, STOP_OVERRUN

    st = state or WatchState("", clock())
    last: list[Eta] = []

    def tell() -> None:
        if publish is not None:
            publish(last[-1] if last else None, st)

    try:
        tell()
        outcome = _loop(session, take, interval, show, sleep, max_failures, warn, st, clock, tell, last)
    except BaseException as e:
        st.stop(_stop_reason(e))
        with contextlib.suppress(Exception):  # the watch's own error is the one to report
            tell()
        raise
    st.stop(STOP_OVERRUN if outcome.code == EXIT_OVERRUN else STOP_COMPLETE)
    tell()
    return outcome


def _loop(
    session: Session,
    take: Callable[[int], Snapshot],
    interval: float,
    show: Callable[[Eta], None],
    sleep: Callable[[float], None],
    max_failures: int,
    warn: Callable[[str], None],
    st: WatchState,
    clock: Callable[[], float],
    tell: Callable[[], None],
    last: list[Eta],
) -> Outcome:
    deadline, key = math.nan, None
    n = 0
    while True:
        n += 1
        try:
            snap = take(n)
        except SnapshotFailed as e:
            st.failures += 1
            st.failures_total += 1
            if st.failures >= max_failures:
                raise GaveUp(
                    f"{st.failures} snapshot(s) in a row failed (--max-failures {max_failures}); the last: {e.message}",
                    field="--mysql",
                ) from None
            warn(
                f"ndbsim: snapshot {n} failed ({st.failures} of {max_failures} in a row): {e.message}; "
                f"trying again in {interval:g} s"
            )
            tell()
            sleep(interval)
            continue
        eta = session.update(snap)
        st.failures, st.last_success = 0, clock()
        last[:] = [eta]
        show(eta)
        prog = eta.progress
        if not prog.complete and (math.isnan(deadline) or eta.refit.key != key):
            deadline, key = MARGIN * eta.window["p99"], eta.refit.key
        st.overrun = not prog.complete and prog.spent > deadline
        st.deadline = prog.sampled_at - prog.spent + deadline
        tell()
        if prog.complete and session.seen_running:
            return Outcome(0, f"the restart completed after {prog.spent:.0f} s")
        if st.overrun:
            return Outcome(
                EXIT_OVERRUN,
                f"the restart has run {prog.spent:.0f} s, past {MARGIN:g} x the predicted p99 window "
                f"({deadline / MARGIN:.0f} s; the margin of run --timeouts)",
            )
        sleep(interval)
