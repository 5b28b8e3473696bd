"""Parameter sweeps: many scenario variants, each replicated, one row per point and replication.

A sweep file (YAML)::

    base: ../dbt2-600wh-7.6.6.yaml      # a scenario file (relative to this file) or a mapping
    set: {data.rows: null}              # optional; dotted keys set in the base for every point
    factors:                            # dotted scenario keys -> values
      data.size: [10GB, 30GB, 60GB]
      cluster.config.RecoveryWork: [25, 50, 80]
    mode: grid                          # grid (cartesian), zip (lists zipped), random
    samples: 100                        # random only; factors are then {low: , high: } ranges
    replications: 3
    seed: 7
    output: results.parquet             # optional; .csv or .parquet

Every point's seed comes from the root seed and the point's index alone
(``SeedSequence(seed, spawn_key=(index,))``), so the rows do not depend on the number of
workers, the chunking, the scheduler or the shard. A point that is invalid or raises becomes
rows with status ``error`` and the message; it never stops the sweep.
"""

from __future__ import annotations

import itertools
import math
import operator
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input.budget import announcement, check_sweep_runs
from ndbsim.output.records import CHECKPOINT_FIGURES, Outcome, SweepRow, frame, sweep_row
from ndbsim.studies.stop import pool_context, stop_pool, worker_init

if TYPE_CHECKING:
    import pandas as pd

    from ndbsim.models.registry import Model

MODES = ("grid", "zip", "random")
"""Sweep modes: ``grid`` (cartesian product of the factor lists), ``zip`` (lists taken in step) and
``random`` (``samples`` draws from ranges or lists). ndbsim's own design; ``grid`` is the default."""
SWEEP_KEYS = ("name", "base", "set", "factors", "mode", "samples", "replications", "seed", "output")
"""The keys a sweep file may have (the format in this module's docstring); others are errors."""
_SAMPLING_KEY = 2**63 - 1
"""Spawn key of the random-mode sampler's stream. Point streams use keys 0..n-1, so the largest
signed 64-bit value keeps the sampler apart from every point (a choice of ours)."""


# ---------------------------------------------------------------------------------------
# The sweep specification


def load_sweep(path: str | Path) -> dict[str, Any]:
    """Read a sweep file into ``sweep()`` keyword arguments (plus ``output``), checking it."""
    from ndbsim.input.scenario import read_yaml
    from ndbsim.output.io import check_separator

    src = str(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError("a sweep file must be a YAML mapping with base, factors, mode, ...", source=src)
    for key in raw:
        if key not in SWEEP_KEYS:
            raise InputError(
                f"unknown key{did_you_mean(str(key), SWEEP_KEYS)}; a sweep file has {', '.join(SWEEP_KEYS)}",
                field=str(key),
                source=src,
            )
    here = Path(path).resolve().parent
    base = raw.get("base")
    if isinstance(base, str):
        base = here / base
    elif base is not None and not isinstance(base, dict):
        raise InputError(
            f"{base!r} is not a scenario; give a scenario file path or an inline mapping", field="base", source=src
        )
    sets = raw.get("set") or {}
    if not isinstance(sets, dict):
        raise InputError(f"{sets!r} is not a mapping; write e.g. set: {{data.rows: null}}", field="set", source=src)
    out = raw.get("output")
    if out is not None and not isinstance(out, str):
        raise InputError(f"{out!r} is not a file name; write e.g. output: results.csv", field="output", source=src)
    check_separator(out or "", "output", src)
    kwargs = {
        "base": base,
        "factors": raw.get("factors"),
        "mode": raw.get("mode", "grid"),
        "samples": raw.get("samples"),
        "replications": raw.get("replications", 1),
        "seed": raw.get("seed", 1),
        "output": here / out if out else None,
        "source": src,
        "overrides": [f"{k}={_yaml_scalar(v)}" for k, v in sets.items()],
    }
    if kwargs["factors"] is None:
        raise InputError("no factors; add e.g. factors: {data.size: [10GB, 60GB]}", field="factors", source=src)
    return kwargs


def _yaml_scalar(value: Any) -> str:
    """A value as ``--set`` text (YAML flow style), so file and command-line overrides meet."""
    import yaml

    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


def _whole(value: Any, field: str, source: str | None, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InputError(f"{value!r} is not valid; write a whole number ≥ {least}", field=field, source=source)
    return value


def parse_shard(shard: str | tuple[int, int] | None, source: str | None = None) -> tuple[int, int] | None:
    """``"I/N"`` (1-based) -> (I, N); None stays None."""
    if shard is None:
        return None
    if isinstance(shard, str):
        a, sep, b = shard.partition("/")
        try:
            if not sep:
                raise ValueError
            i, n = int(a), int(b)
        except ValueError:
            raise InputError(
                f"{shard!r} is not a shard; write I/N, e.g. 2/4 for the second of four", field="--shard", source=source
            ) from None
    else:
        try:
            i, n = (int(x) for x in shard)
        except (TypeError, ValueError):
            raise InputError(f"{shard!r} is not a shard; write I/N, e.g. 2/4", field="--shard", source=source) from None
    if n < 1 or not 1 <= i <= n:
        raise InputError(
            f"{shard!r} is not a shard; I must be 1..N and N ≥ 1, e.g. 2/4", field="--shard", source=source
        )
    return i, n


def _check_key(key: Any, source: str | None, model: Any = None) -> str:
    """A factor key must name a scenario key (``cluster.config.<NDB parameter>`` included);
    ``model`` is the scenario model to check against (InnoDB's for ``kind: innodb``)."""
    from pydantic import BaseModel

    from ndbsim.input.config_params import PARAMS, canonical_name
    from ndbsim.input.scenario import Scenario

    field = f"factors.{key}"
    if not isinstance(key, str) or not key or any(not p for p in key.split(".")):
        raise InputError(
            f"{key!r} is not a scenario key; write a dotted key like data.size", field=field, source=source
        )
    parts = key.split(".")
    if model is None and parts[:2] == ["cluster", "config"]:
        if len(parts) != 3 or canonical_name(parts[2]) is None:
            name = parts[2] if len(parts) > 2 else ""
            raise InputError(
                f"unknown NDB parameter{did_you_mean(name, PARAMS)}; use one ndbsim models (see ndbsim params)",
                field=field,
                source=source,
            )
        return key
    model = model or Scenario
    for i, part in enumerate(parts):
        fields = getattr(model, "model_fields", None)
        if fields is None or part not in fields:
            where = ".".join(parts[:i]) or "the scenario"
            hint = did_you_mean(part, fields or ())
            raise InputError(
                f"{key!r} is not a scenario key: {where} has no {part!r}{hint}; fix the key", field=field, source=source
            )
        ann = fields[part].annotation
        model = None
        for cand in getattr(ann, "__args__", (ann,)):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                model = cand
                break
        if model is None and i < len(parts) - 1:
            raise InputError(
                f"{'.'.join(parts[: i + 1])} is a value, not a section; fix the key", field=field, source=source
            )
    if model is not None:
        raise InputError(
            f"{key!r} is a section; sweep one of its keys, e.g. {key}.{next(iter(model.model_fields))}",
            field=field,
            source=source,
        )
    return key


def _sized(v: Any, field: str, source: str | None) -> float:
    from ndbsim.input.units import parse_bytes, parse_count

    if isinstance(v, bool):
        raise InputError(f"{v!r} is not a number; write e.g. 10 or 10GB", field=field, source=source)
    if isinstance(v, (int, float)):
        return _bounded(v, field, source)
    for parse in (parse_bytes, parse_count):
        try:
            return float(parse(v))
        except InputError:
            continue
    raise InputError(f"{v!r} is not a number or size; write e.g. 10, 2.5 or 10GB", field=field, source=source)


def _bounded(v: float, field: str, source: str | None) -> float:
    """A range bound as a float within ``units.MAX_MAGNITUDE`` (so ``high - low`` stays finite)."""
    from ndbsim.input.units import MAX_MAGNITUDE, shown

    if isinstance(v, float) and not math.isfinite(v):
        return v  # the range check names it "not a finite number"
    if abs(v) > MAX_MAGNITUDE:
        raise InputError(
            f"{shown(v)} is beyond any scenario value (at most 2^64 in size); give a realistic bound",
            field=field,
            source=source,
        )
    return float(v)


def _flag(v: Any, field: str, source: str | None) -> bool:
    """A yes/no key: YAML's true or false only (a quoted 'false' is text, and text is true in Python)."""
    if not isinstance(v, bool):
        raise InputError(f"{v!r} is not true or false; write true or false, unquoted", field=field, source=source)
    return v


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
    import numpy as np

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
    keys = [_check_key(k, source, model) for k in factors]
    if mode == "random":
        if samples is None:
            raise InputError("random mode needs samples: N", field="samples", source=source)
        n = _whole(samples, "samples", source, 1)
        _check_size(n, "samples", source)
        ranges: list[tuple[str, Any, Any]] = []
        for k in keys:
            spec = factors[k]
            if isinstance(spec, list):
                if not spec:
                    raise InputError("empty list; give at least one value", field=f"factors.{k}", source=source)
                ranges.append(("choice", spec, None))
                continue
            if not isinstance(spec, dict) or set(spec) - {"low", "high", "log"} or not {"low", "high"} <= set(spec):
                raise InputError(
                    f"{spec!r} is not a range; write {{low: 10GB, high: 1TB}} (optional log: true) "
                    "or a list to choose from",
                    field=f"factors.{k}",
                    source=source,
                )
            lo = _sized(spec["low"], f"factors.{k}.low", source)
            hi = _sized(spec["high"], f"factors.{k}.high", source)
            for end, x in (("low", lo), ("high", hi)):
                if not math.isfinite(x):
                    raise InputError(
                        f"{spec[end]!r} is not a finite number; give a bound such as 10GB",
                        field=f"factors.{k}.{end}",
                        source=source,
                    )
            if hi < lo:
                raise InputError(
                    f"high {spec['high']!r} is below low {spec['low']!r}; swap them",
                    field=f"factors.{k}",
                    source=source,
                )
            log = _flag(spec.get("log", False), f"factors.{k}.log", source)
            if log and lo <= 0:
                raise InputError("a log range needs low > 0", field=f"factors.{k}.low", source=source)
            ints = all(type(spec[x]) is int and abs(spec[x]) < 2**62 for x in ("low", "high"))
            ranges.append(("int" if ints and not log else "log" if log else "float", lo, hi))
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(_SAMPLING_KEY,))))
        cols: list[tuple[Any, Callable[[Any], Any]]] = []  # (the draws as an array, what a draw becomes)
        for kind, a, b in ranges:  # drawn in column order, as arrays; a point reads its values by index
            if kind == "choice":
                cols.append((rng.integers(0, len(a), n), a.__getitem__))
            elif kind == "int":
                cols.append((rng.integers(int(a), int(b) + 1, n), int))
            elif kind == "log":
                cols.append((np.exp(rng.uniform(math.log(a), math.log(b), n)), float))
            else:
                cols.append((rng.uniform(a, b, n), float))
        return Points(keys, n, lambda: (tuple(make(col[i]) for col, make in cols) for i in range(n)))
    if samples is not None:
        raise InputError(
            f"samples is only for random mode, not {mode}; remove it or use mode: random",
            field="samples",
            source=source,
        )
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


# ---------------------------------------------------------------------------------------
# Running points (the hot path: no pandas, flat records)


def point_seed(seed: int, index: int) -> int:
    """The integer seed of point ``index``: ``ndbsim run --seed`` with it reproduces the point."""
    import numpy as np

    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, np.uint32)[0])


def with_values(base_raw: dict[str, Any], keys: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    """``base_raw`` with the factor values set, copying only the mappings on the keys' paths
    (the rest is shared with ``base_raw``, which is never modified; validation does not mutate)."""
    raw = dict(base_raw)
    for key, value in zip(keys, values, strict=True):
        parts = key.split(".")
        cur = raw
        for i, part in enumerate(parts[:-1]):
            nxt = cur.get(part)
            if nxt is None:
                nxt = {}
            elif isinstance(nxt, dict):
                nxt = dict(nxt)
            else:
                raise InputError(f"{'.'.join(parts[: i + 1])} is a value, not a section; cannot set {key}", field=key)
            cur[part] = nxt
            cur = nxt
        cur[parts[-1]] = value
    return raw


def run_chunk(
    base_raw: dict[str, Any],
    keys: Sequence[str],
    replications: int,
    seed: int,
    chunk: Iterable[tuple[int, tuple[Any, ...]]],
) -> list[SweepRow]:
    """Run the points ``(index, factor values)`` of one chunk. Replication ``r`` of a point is
    replication ``r`` of ``ndbsim run --seed SEED`` with the point's seed (its row's ``seed``):
    the model seeds both."""
    from ndbsim.models.registry import model_of

    model = model_of(base_raw)
    prepare = model.point_preparer(base_raw, list(keys))
    nan = math.nan
    failed = Outcome((nan,) * len(model.phases), nan, (nan,) * len(CHECKPOINT_FIGURES), 0, "error", "")
    rows: list[SweepRow] = []
    for index, values in chunk:
        pseed = point_seed(seed, index)
        done = 0
        try:
            prepared = prepare(with_values(base_raw, keys, values))
            for outcome in model.outcomes(prepared, pseed, replications):
                rows.append(sweep_row(index, done, pseed, values, outcome))
                done += 1
        except Exception as e:
            msg = " ".join(str(e).split()) or type(e).__name__
            if not isinstance(e, InputError):
                msg = f"{type(e).__name__}: {msg}"
            error = replace(failed, reason=msg)
            rows.extend(sweep_row(index, rep, pseed, values, error) for rep in range(done, replications))
    return rows


# ---------------------------------------------------------------------------------------
# The public function


def sweep(
    base: str | Path | dict[str, Any] | None = None,
    factors: dict[str, Any] | None = None,
    *,
    mode: str = "grid",
    samples: int | None = None,
    replications: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    shard: str | tuple[int, int] | None = None,
    progress: bool = True,
    chunk_size: int | None = None,
    source: str | None = None,
    overrides: Sequence[str] = (),
) -> pd.DataFrame:
    """Run a sweep and return a pandas DataFrame, one row per point and replication.

    ``base`` is a scenario (YAML path, mapping or None for the built-in default), or a sweep
    file when ``factors`` is None. ``workers``: local processes (None: all cores; 1: in this
    process). ``scheduler``: a Dask scheduler address (``tcp://host:port``) or a
    ``dask.distributed.Client``. ``shard``: ``"I/N"`` runs only the points with
    ``index % N == I - 1``. ``overrides``: ``"dotted.key=value"`` settings applied to the base
    for every point (after a sweep file's ``set:``).
    """
    from ndbsim.models.load import read

    if factors is None and isinstance(base, (str, Path)):
        spec = load_sweep(base)
        spec.pop("output")
        src = spec.pop("source")
        return sweep(
            spec.pop("base"),
            spec.pop("factors"),
            mode=spec["mode"],
            samples=spec["samples"],
            replications=spec["replications"] if replications is None else replications,
            seed=spec["seed"] if seed is None else seed,
            workers=workers,
            scheduler=scheduler,
            shard=shard,
            progress=progress,
            chunk_size=chunk_size,
            source=src,
            overrides=[*spec["overrides"], *overrides],
        )
    if factors is None:
        raise InputError("no factors; pass factors={'data.size': ['10GB', '60GB']}", field="factors", source=source)
    replications = _whole(1 if replications is None else replications, "replications", source, 1)
    from ndbsim.input.scenario import check_seed, copy_raw

    seed = check_seed(1 if seed is None else seed, "seed", source)
    if workers is not None:
        workers = _whole(workers, "--workers", source, 1)
    sh = parse_shard(shard, source)

    # A sweep file is fixed with its set: (or ndbsim sweep --set); a Python call with overrides=.
    where = "set: in the sweep file, or --set" if source is not None else "in sweep()'s overrides="
    loaded = read(base, overrides=overrides, varied=factors, rows_fix=f"set data.rows=null ({where})")
    from ndbsim.output.explain import overridden_rates

    notes = [*loaded.notes, *overridden_rates(loaded.raw, factors, where)]
    if notes:
        import warnings

        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=2)
    base_raw, base_src, model = loaded.raw, loaded.source or source, loaded.model
    points = point_space(factors, mode, samples, seed, source, model=model.factor_model)
    keys = points.keys
    first = points.first(BASE_RESCUE_POINTS)
    # Dry validation of the first point: a factor that cannot be set is the sweep file's error.
    for k, v in zip(keys, first[0], strict=True):
        try:
            with_values(base_raw, [k], [v])
        except InputError as e:
            raise InputError(e.message, field=f"factors.{k}", source=source) from None
    # The base must be a valid scenario (its errors are the file's, not a point's), unless
    # what is wrong with it is something the factors set: then some point must be valid (the
    # first BASE_RESCUE_POINTS are tried, so the verdict does not hang on the points' order).
    try:
        model.prepare(copy_raw(base_raw), base_src)
    except InputError:
        if not any(_is_valid(model, with_values(base_raw, keys, list(p)), base_src) for p in first):
            raise
    del first

    indices = range(points.count) if sh is None else range(sh[0] - 1, points.count, sh[1])
    check_sweep_runs(len(indices), replications, source)
    work = _work(points, sh)
    rows = _execute(base_raw, keys, replications, seed, work, len(indices), workers, scheduler, progress, chunk_size)
    rows.sort(key=_point_and_replication)
    return frame(rows, keys, model.phases)


_point_and_replication = operator.itemgetter(0, 1)
"""A row's (point, replication): the sweep's row order."""


def _work(points: Points, shard: tuple[int, int] | None) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``(index, factor values)`` of the points this sweep (or shard) runs, in index order."""
    for i, values in enumerate(points.values()):
        if shard is None or i % shard[1] == shard[0] - 1:
            yield i, values


BASE_RESCUE_POINTS = 1_000
"""Points tried when the base itself is invalid, to see whether the factors make it valid (a
bound on the cost of the check: 1,000 validations take about a tenth of a second)."""


def _is_valid(model: Model, raw: dict[str, Any], source: str | None) -> bool:
    """Whether ``raw`` validates as a run would validate it."""
    from ndbsim.input.scenario import copy_raw

    try:
        model.prepare(copy_raw(raw), source)
    except InputError:
        return False
    return True


def _execute(
    base_raw: dict[str, Any],
    keys: list[str],
    replications: int,
    seed: int,
    work: Iterator[tuple[int, tuple[Any, ...]]],
    points: int,
    workers: int | None,
    scheduler: Any,
    progress: bool,
    chunk_size: int | None,
) -> list[SweepRow]:
    """Run the ``points`` points of ``work`` and return their rows (in no particular order).
    Chunks are cut from ``work`` as they are sent, and at most ``IN_FLIGHT`` per worker are out
    at once, so only the rows grow with the size of the sweep."""
    from tqdm import tqdm

    total = points * replications
    workers_used = 1 if scheduler is not None else min(workers or os.cpu_count() or 1, max(1, points))
    notice = announcement(total, workers_used, "runs", rows=total)
    if notice:
        print(notice, file=sys.stderr)
    bar = tqdm(total=total, unit="run", desc="sweep", disable=not progress, smoothing=0.1, dynamic_ncols=True)
    rows: list[SweepRow] = []
    try:
        if scheduler is not None:
            _run_dask(base_raw, keys, replications, seed, work, points, scheduler, bar, rows, chunk_size)
            return rows
        n_workers = workers_used
        if n_workers == 1:
            size = chunk_size or max(1, min(64, points))
            for chunk in _chunks(work, size):
                out = run_chunk(base_raw, keys, replications, seed, chunk)
                rows.extend(out)
                bar.update(len(out))
            return rows
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        chunks = _planned_chunks(work, points, n_workers, chunk_size)
        with ProcessPoolExecutor(max_workers=n_workers, mp_context=pool_context(), initializer=_worker_start) as ex:
            pending = set()
            try:
                for chunk in itertools.islice(chunks, n_workers * IN_FLIGHT):
                    pending.add(ex.submit(run_chunk, base_raw, keys, replications, seed, chunk))
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        out = f.result()
                        rows.extend(out)
                        bar.update(len(out))
                        for chunk in itertools.islice(chunks, 1):
                            pending.add(ex.submit(run_chunk, base_raw, keys, replications, seed, chunk))
            except BaseException:
                stop_pool(ex)
                raise
        return rows
    finally:
        bar.close()


def _worker_start() -> None:
    """A sweep worker's start: ``stop.worker_init``'s signals, then every object the worker has
    so far (forked: the main process's modules and data) moved out of the collector's generations
    (``gc.freeze``). Each collection of the oldest generation would otherwise walk all of them
    (about 35 ms for the imports alone, a few times per worker) and touch memory the fork shares;
    the worker never frees them."""
    import gc

    worker_init()
    gc.freeze()


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


def _planned_chunks(work: Iterable[Any], points: int, workers: int, chunk_size: int | None) -> Iterator[list[Any]]:
    """The chunks ``workers`` run: of the user's ``chunk_size``, else ``_chunk_size`` shrinking at
    the tail."""
    if chunk_size:
        return _chunks(work, chunk_size)
    return _chunks(work, _chunk_size(points, workers), points, workers)


def _chunks(work: Iterable[Any], size: int, points: int = 0, workers: int = 0) -> Iterator[list[Any]]:
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


def _chunk_size(points: int, workers: int) -> int:
    """Points per task: about 8 tasks per worker (load balance), at most 500 points (progress
    and memory per task); one task per tiny run would cost more than the run."""
    return max(1, min(500, math.ceil(points / (workers * 8))))


def _run_dask(
    base_raw: dict[str, Any],
    keys: list[str],
    replications: int,
    seed: int,
    work: Iterator[tuple[int, tuple[Any, ...]]],
    points: int,
    scheduler: Any,
    bar: Any,
    rows: list[SweepRow],
    chunk_size: int | None,
) -> None:
    from ndbsim.extras import require

    require("dask.distributed", "--scheduler")
    from dask.distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    if own:
        check_scheduler(scheduler)
    client = _connect(Client, scheduler) if own else scheduler
    try:
        n = max(1, sum(client.nthreads().values()))
        chunks = _planned_chunks(work, points, n, chunk_size)
        from functools import partial

        task = partial(run_chunk, base_raw, list(keys), replications, seed)
        running = as_completed([client.submit(task, c, pure=False) for c in itertools.islice(chunks, n * IN_FLIGHT)])
        for f in running:
            out = f.result()
            rows.extend(out)
            bar.update(len(out))
            for chunk in itertools.islice(chunks, 1):
                running.add(client.submit(task, chunk, pure=False))
    finally:
        if own:
            client.close()


def write_frame(df: pd.DataFrame, path: str | Path) -> None:
    """Write a sweep's rows to ``.csv`` or ``.parquet`` atomically (never a partial file)."""
    from ndbsim.output.io import atomic_write

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise InputError(f"{str(p)!r} has no known suffix; write .csv or .parquet", field="--output")
    if suffix == ".csv":
        atomic_write(p, lambda tmp: df.to_csv(tmp, index=False))
        return
    from ndbsim.extras import require

    require("pyarrow", "--output")
    out = df.copy()
    for c in out.columns:  # mixed factor values (e.g. 10GB and 1e9) cannot be one Arrow type
        if out[c].dtype == object and (len({type(v) for v in out[c]}) > 1 or any(isinstance(v, dict) for v in out[c])):
            out[c] = out[c].astype(str)
    atomic_write(p, lambda tmp: out.to_parquet(tmp, index=False, engine="pyarrow"))
