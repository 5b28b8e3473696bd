"""A sweep on this machine: in this process, or on a pool of worker processes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from ndbsim.output.records import SweepRow
from ndbsim.studies.stop import WAIT_POLL, check, pool_context, stop_pool, worker_init
from ndbsim.studies.sweep.chunks import IN_FLIGHT, chunks, planned_chunks
from ndbsim.studies.sweep.work import run_chunk


def run_local(
    base_raw: dict[str, Any],
    keys: list[str],
    replications: int,
    seed: int,
    work: Iterator[tuple[int, tuple[Any, ...]]],
    points: int,
    n_workers: int,
    take: Callable[[list[SweepRow]], None],
    chunk_size: int | None,
) -> None:
    """Run the ``points`` points of ``work`` on ``n_workers`` processes (1: this one), adding
    their rows to ``take`` chunk by chunk. Chunks are cut from ``work`` as they are sent, and at most
    ``IN_FLIGHT`` per worker are out at once, so only the rows grow with the size of the sweep."""
    if n_workers == 1:
        size = chunk_size or max(1, min(64, points))
        for chunk in chunks(work, size):
            check()
            out = run_chunk(base_raw, keys, replications, seed, chunk)
            take(out)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    planned = planned_chunks(work, points, n_workers, chunk_size)
    with ProcessPoolExecutor(max_workers=n_workers, mp_context=pool_context(), initializer=worker_start) as ex:
        pending = set()
        try:
            for chunk in itertools.islice(planned, n_workers * IN_FLIGHT):
                pending.add(ex.submit(run_chunk, base_raw, keys, replications, seed, chunk))
            while pending:
                done, pending = wait(pending, timeout=WAIT_POLL, return_when=FIRST_COMPLETED)
                check()
                for f in done:
                    out = f.result()
                    take(out)
                    for chunk in itertools.islice(planned, 1):
                        pending.add(ex.submit(run_chunk, base_raw, keys, replications, seed, chunk))
        except BaseException:
            stop_pool(ex)
            raise


def worker_start() -> None:
    """A sweep worker's start: ``stop.worker_init``'s signals, then every object the worker has
    so far (forked: the main process's modules and data) moved out of the collector's generations
    (``gc.freeze``). Each collection of the oldest generation would otherwise walk all of them
    (about 35 ms for the imports alone, a few times per worker) and touch memory the fork shares;
    the worker never frees them."""
    import gc

    worker_init()
    gc.freeze()
