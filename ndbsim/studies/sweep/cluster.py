"""A sweep on a Dask scheduler (``--scheduler``, the ``cluster`` extra)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from ndbsim.errors import InputError
from ndbsim.output.records import SweepRow
from ndbsim.signals import check
from ndbsim.studies.sweep.chunks import IN_FLIGHT, planned_chunks
from ndbsim.studies.sweep.work import run_chunk

SCHEDULER_TIMEOUT = 10
"""Seconds to wait for a Dask scheduler to answer before the sweep fails with exit 2 (Dask's own
default is 30 s); a reachable scheduler answers in milliseconds."""


def _connect(client_type: Any, address: str) -> Any:
    """A Dask client for ``address``, or a one-line error within ``SCHEDULER_TIMEOUT`` s. Dask's
    own timeout does not cover a server that accepts the connection and never answers, so the
    connection is made on a daemon thread and abandoned if it does not finish in time."""
    import threading

    out: dict[str, Any] = {}

    def connect() -> None:
        try:
            out["client"] = client_type(address, timeout=SCHEDULER_TIMEOUT)
        except Exception as e:
            out["error"] = e

    t = threading.Thread(target=connect, name="ndbsim-dask-connect", daemon=True)
    t.start()
    t.join(SCHEDULER_TIMEOUT + 2)
    if "client" in out:
        return out["client"]
    why = type(out["error"]).__name__ if "error" in out else "no answer"
    raise InputError(
        f"cannot reach the Dask scheduler {address!r} within {SCHEDULER_TIMEOUT} s ({why}); "
        "start it with `dask scheduler` or check the address",
        field="--scheduler",
    )


def check_scheduler(address: Any) -> None:
    """A Dask scheduler address must be ``PROTOCOL://HOST:PORT`` with a port from 1 to 65535."""
    import re

    if re.fullmatch(r"inproc://\S+", str(address)):  # a LocalCluster in this process
        return
    m = re.fullmatch(r"(tcp|tls|ucx|ws|wss)://(\[[0-9a-fA-F:]+\]|[^\s/:]+):(\d+)/?", str(address))
    if not m or not 1 <= int(m.group(3)) <= 65535:
        raise InputError(
            f"{address!r} is not a Dask scheduler address; write tcp://HOST:PORT (port 1–65535), "
            "e.g. tcp://dask-scheduler:8786",
            field="--scheduler",
        )


def run_dask(
    base_raw: dict[str, Any],
    keys: list[str],
    replications: int,
    seed: int,
    work: Iterator[tuple[int, tuple[Any, ...]]],
    points: int,
    scheduler: Any,
    take: Callable[[list[SweepRow]], None],
    chunk_size: int | None,
) -> None:
    """Run the ``points`` points of ``work`` on a Dask scheduler (an address or a client),
    handing their rows to ``take`` chunk by chunk; at most ``IN_FLIGHT`` chunks per thread are out at once."""
    from ndbsim.extras import require

    require("dask.distributed", "--scheduler")
    from dask.distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    if own:
        check_scheduler(scheduler)
    client = _connect(Client, scheduler) if own else scheduler
    quiet = _quiet_dask() if own else None
    try:
        n = max(1, sum(client.nthreads().values()))
        chunks = planned_chunks(work, points, n, chunk_size)
        from functools import partial

        task = partial(run_chunk, base_raw, list(keys), replications, seed)
        running = as_completed([client.submit(task, c, pure=False) for c in itertools.islice(chunks, n * IN_FLIGHT)])
        for f in running:
            check()
            out = f.result()
            take(out)
            for chunk in itertools.islice(chunks, 1):
                running.add(client.submit(task, chunk, pure=False))
    except InputError:
        raise
    except Exception as e:  # the scheduler went away, or a chunk killed worker after worker
        what = " ".join(str(e).split()).split(". ")[0][:200]  # Dask's first sentence says what happened
        raise InputError(
            f"the sweep on the Dask scheduler {scheduler if own else 'given'} stopped: {type(e).__name__}: {what}",
            field="--scheduler",
        ) from None
    finally:
        if own:
            with contextlib.suppress(Exception):
                client.close(timeout=SCHEDULER_TIMEOUT)
        if quiet is not None:
            quiet()


def _quiet_dask() -> Callable[[], None]:
    """Keep Dask's own log (a lost connection logs tracebacks) off stderr while the sweep runs,
    so a failure is the one line the sweep prints; returns what puts the levels back."""
    import logging

    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in ("distributed", "tornado", "asyncio")]
    loggers = [logging.getLogger(name) for name in {"distributed", "tornado", "asyncio", *names}]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)

    def restore() -> None:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)

    return restore
