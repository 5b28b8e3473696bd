"""A sweep's points: the factors checked and turned into one tuple of values per point, in a
fixed order, built lazily (grid, zip or a seeded random sample)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.studies.sweep.checks import check_key, flag, sized, whole

MODES = ("grid", "zip", "random")
"""Sweep modes: ``grid`` (cartesian product of the factor lists), ``zip`` (lists taken in step) and
``random`` (``samples`` draws from ranges or lists). ndbsim's own design; ``grid`` is the default."""
_SAMPLING_KEY = 2**63 - 1
"""Spawn key of the random-mode sampler's stream. Replication streams use keys 0..n-1, so the
largest signed 64-bit value keeps the sampler apart from every replication (a choice of ours)."""

MAX_SWEEP_POINTS = 2_000_000
"""Most points one sweep makes (the points are built lazily, but every point gives at least one
row, and the rows are held until the sweep is written). A guard against typos like
``samples: 1000000000``; larger studies are several sweeps, or shards of several files. Not a
model value."""


def _check_size(points: int, field: str, source: str | None) -> None:
    if points > MAX_SWEEP_POINTS:
        raise InputError(
            f"{points:,} points is more than one sweep builds ({MAX_SWEEP_POINTS:,}); use fewer "
            "samples or values, or split the study into several sweep files",
            field=field,
            source=source,
        )


class Points:
    """A sweep's points, built lazily: ``keys`` (the factors' dotted keys), ``count`` and
    ``values()``, each point's factor values in ``keys`` order, in index order. A grid or zip is
    walked without being stored; a random sample holds one NumPy column per factor (8 bytes a
    point), so the points cost memory per factor, not per point."""

    def __init__(self, keys: list[str], count: int, values: Callable[[], Iterator[tuple[Any, ...]]]) -> None:
        self.keys = keys
        self.count = count
        self._values = values

    def values(self) -> Iterator[tuple[Any, ...]]:
        return self._values()

    def first(self, n: int) -> list[tuple[Any, ...]]:
        return list(itertools.islice(self.values(), n))


def make_points(
    factors: dict[str, Any], mode: str, samples: int | None, seed: int, source: str | None = None, model: Any = None
) -> list[dict[str, Any]]:
    """The sweep's points: one ``{dotted key: value}`` per point, in a fixed order."""
    pts = point_space(factors, mode, samples, seed, source, model)
    return [dict(zip(pts.keys, v, strict=True)) for v in pts.values()]


def point_space(
    factors: dict[str, Any], mode: str, samples: int | None, seed: int, source: str | None = None, model: Any = None
) -> Points:
    """The sweep's points (``make_points``'s, in its order) without building them."""
    if mode not in MODES:
        raise InputError(
            f"{mode!r} is not a sweep mode{did_you_mean(str(mode), MODES)}; use grid, zip or random",
            field="mode",
            source=source,
        )
    if not isinstance(factors, dict) or not factors:
        raise InputError(
            "factors must be a non-empty mapping of dotted scenario keys to values, e.g. {data.size: [10GB, 60GB]}",
            field="factors",
            source=source,
        )
    keys = [check_key(k, source, model) for k in factors]
    if mode == "random":
        if samples is None:
            raise InputError("random mode needs samples: N", field="samples", source=source)
        n = whole(samples, "samples", source, 1)
        _check_size(n, "samples", source)
        return _sample(keys, [_range(factors[k], k, source) for k in keys], n, seed)
    if samples is not None:
        raise InputError(
            f"samples is only for random mode, not {mode}; remove it or use mode: random",
            field="samples",
            source=source,
        )
    return _listed(factors, keys, mode, source)


def _range(spec: Any, k: str, source: str | None) -> tuple[str, Any, Any]:
    """A random-mode factor as ``(kind, low, high)``: ``("choice", values, None)`` for a list,
    else an ``int``, ``log`` or ``float`` range."""
    if isinstance(spec, list):
        if not spec:
            raise InputError("empty list; give at least one value", field=f"factors.{k}", source=source)
        return ("choice", spec, None)
    if not isinstance(spec, dict) or set(spec) - {"low", "high", "log"} or not {"low", "high"} <= set(spec):
        raise InputError(
            f"{spec!r} is not a range; write {{low: 10GB, high: 1TB}} (optional log: true) or a list to choose from",
            field=f"factors.{k}",
            source=source,
        )
    lo = sized(spec["low"], f"factors.{k}.low", source)
    hi = sized(spec["high"], f"factors.{k}.high", source)
    for end, x in (("low", lo), ("high", hi)):
        if not math.isfinite(x):
            raise InputError(
                f"{spec[end]!r} is not a finite number; give a bound such as 10GB",
                field=f"factors.{k}.{end}",
                source=source,
            )
    if hi < lo:
        raise InputError(
            f"high {spec['high']!r} is below low {spec['low']!r}; swap them", field=f"factors.{k}", source=source
        )
    log = flag(spec.get("log", False), f"factors.{k}.log", source)
    if log and lo <= 0:
        raise InputError("a log range needs low > 0", field=f"factors.{k}.low", source=source)
    ints = all(type(spec[x]) is int and abs(spec[x]) < 2**62 for x in ("low", "high"))
    return ("int" if ints and not log else "log" if log else "float", lo, hi)


def _sample(keys: list[str], ranges: list[tuple[str, Any, Any]], n: int, seed: int) -> Points:
    """``n`` random points from the sampler's own stream, drawn column by column (one array per
    factor, in factor order); a point reads its values by index."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(_SAMPLING_KEY,))))
    cols: list[tuple[Any, Callable[[Any], Any]]] = []  # (the draws as an array, what a draw becomes)
    for kind, a, b in ranges:
        if kind == "choice":
            cols.append((rng.integers(0, len(a), n), a.__getitem__))
        elif kind == "int":
            cols.append((rng.integers(int(a), int(b) + 1, n), int))
        elif kind == "log":
            cols.append((np.exp(rng.uniform(math.log(a), math.log(b), n)), float))
        else:
            cols.append((rng.uniform(a, b, n), float))
    return Points(keys, n, lambda: (tuple(make(col[i]) for col, make in cols) for i in range(n)))


def _listed(factors: dict[str, Any], keys: list[str], mode: str, source: str | None) -> Points:
    """The points of a grid (every combination of the lists) or a zip (the lists in step)."""
    lists = []
    for k in keys:
        v = factors[k]
        if not isinstance(v, list):
            raise InputError(
                f"{v!r} is not a list; write e.g. [10GB, 60GB] (ranges are for mode: random)",
                field=f"factors.{k}",
                source=source,
            )
        if not v:
            raise InputError("empty list; give at least one value", field=f"factors.{k}", source=source)
        lists.append(v)
    count = len(lists[0]) if mode == "zip" else math.prod(len(v) for v in lists)
    _check_size(count, "factors", source)
    if mode == "zip":
        lens = {len(v) for v in lists}
        if len(lens) > 1:
            shown = ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, lists, strict=True))
            raise InputError(
                f"zip needs lists of one length, got {shown}; make them equal or use mode: grid",
                field="factors",
                source=source,
            )
        return Points(keys, count, lambda: zip(*lists, strict=True))
    return Points(keys, count, lambda: itertools.product(*lists))
