"""``ndbsim eta --watch``: the snapshot script run through the ``mysql`` client every interval, one
ETA per snapshot, until the restart completes (exit 0) or overruns (exit 4).

The client's options pass through unchanged (``-- --defaults-file=FILE -h HOST``) and are never
printed; a password on the command line is refused, as ``ps`` would show it to every user of
the host. The client runs as a child that dies with ndbsim: it is killed when interrupted, and
on Linux the kernel signals it if ndbsim itself is killed (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

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
from ndbsim.studies.eta.predict import Eta
from ndbsim.studies.eta.session import Session

EXIT_OVERRUN = 4
"""The exit code when the restart has run past ``MARGIN`` × the predicted p99 window. The window
judged is the one predicted when the cluster last showed something new (a phase finished, a
node done): a phase that hangs shows nothing new, so its deadline stays where it was set, while
every finished phase resets it with what the fit has learnt."""

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
    except subprocess.TimeoutExpired:
        raise InputError(
            f"the mysql client did not answer within {timeout:.0f} s (killed); check the SQL node", field="--mysql"
        ) from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0][:200]
        raise InputError(f"the mysql client exited with {done.returncode}: {first}", field="--mysql")
    return parse_snapshot(done.stdout, f"snapshot {n}")


@dataclass
class Outcome:
    code: int
    message: str


def watch(
    session: Session,
    take: Callable[[int], Snapshot],
    interval: float,
    show: Callable[[Eta], None],
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Snapshot, predict, show, until the restart completes or overruns."""
    deadline, key = math.nan, None
    n = 0
    while True:
        n += 1
        eta = session.update(take(n))
        show(eta)
        prog = eta.progress
        if prog.complete and session.seen_running:
            return Outcome(0, f"the restart completed after {prog.spent:.0f} s")
        if not prog.complete and (math.isnan(deadline) or eta.refit.key != key):
            deadline, key = MARGIN * eta.window["p99"], eta.refit.key
        if not prog.complete and prog.spent > deadline:
            return Outcome(
                EXIT_OVERRUN,
                f"the restart has run {prog.spent:.0f} s, past {MARGIN:g} x the predicted p99 window "
                f"({deadline / MARGIN:.0f} s; the margin of run --timeouts)",
            )
        sleep(interval)
