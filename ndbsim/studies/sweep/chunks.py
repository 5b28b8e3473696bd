"""The chunk plan: how a sweep's points are cut into the tasks its workers run."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from typing import Any

IN_FLIGHT = 4
"""Chunks sent ahead per worker: enough that a worker finding its next chunk queued never waits
on the main process, few enough that unsent points are never built. A choice of ours."""


TAIL_SPLIT = 4
"""Guided chunking: once what is left is less than ``TAIL_SPLIT`` full chunks per worker, each
chunk is what is left over ``TAIL_SPLIT`` × workers, so the chunks shrink toward the end and the
workers run out of work together, not one of them finishing a whole chunk alone. A choice of
ours."""

MIN_CHUNK = 8
"""The least points a shrinking chunk holds: a task costs a few hundred microseconds of
pickling and queueing, about a tenth of eight points' work. A choice of ours."""


def planned_chunks(work: Iterable[Any], points: int, workers: int, chunk_size: int | None) -> Iterator[list[Any]]:
    """The chunks ``workers`` run: of the user's ``chunk_size``, else ``default_chunk_size`` shrinking at
    the tail."""
    if chunk_size:
        return chunks(work, chunk_size)
    return chunks(work, default_chunk_size(points, workers), points, workers)


def chunks(work: Iterable[Any], size: int, points: int = 0, workers: int = 0) -> Iterator[list[Any]]:
    """``work`` cut into lists of ``size`` items, as they are asked for; given how many
    ``points`` it holds and the ``workers`` that run them, the last chunks shrink (``TAIL_SPLIT``)."""
    it = iter(work)
    left = points
    while True:
        n = max(min(size, MIN_CHUNK), min(size, math.ceil(left / (TAIL_SPLIT * workers)))) if workers else size
        chunk = list(itertools.islice(it, n))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


def default_chunk_size(points: int, workers: int) -> int:
    """Points per task: about 8 tasks per worker (load balance), at most 500 points (progress
    and memory per task); one task per tiny run would cost more than the run."""
    return max(1, min(500, math.ceil(points / (workers * 8))))
