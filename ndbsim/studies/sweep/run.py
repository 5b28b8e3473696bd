"""``sweep()``: the base and factors checked before any work, then the points run (here, on
worker processes or on a Dask scheduler) and their rows returned as one DataFrame."""

from __future__ import annotations

import operator
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.errors import InputError
from ndbsim.input.budget import announcement, check_sweep_runs
from ndbsim.output.records import SweepRow, frame
from ndbsim.studies.sweep.checks import parse_shard, whole
from ndbsim.studies.sweep.cluster import run_dask
from ndbsim.studies.sweep.files import load_sweep
from ndbsim.studies.sweep.local import run_local
from ndbsim.studies.sweep.points import Points, point_space
from ndbsim.studies.sweep.resume import ChunkStore, resumed
from ndbsim.studies.sweep.work import with_values

if TYPE_CHECKING:
    import pandas as pd

    from ndbsim.models.registry import Model

BASE_RESCUE_POINTS = 1_000
"""Points tried when the base itself is invalid, to see whether the factors make it valid (a
bound on the cost of the check: 1,000 validations take about a tenth of a second)."""

_point_and_replication = operator.itemgetter(0, 1)
"""A row's (point, replication): the sweep's row order."""


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
    keep: ChunkStore | None = None,
    resume: bool = False,
) -> pd.DataFrame:
    """Run a sweep and return a pandas DataFrame, one row per point and replication.

    ``base`` is a scenario (YAML path, mapping or None for the built-in default), or a sweep
    file when ``factors`` is None. ``workers``: local processes (None: all cores; 1: in this
    process). ``scheduler``: a Dask scheduler address (``tcp://host:port``) or a
    ``dask.distributed.Client``. ``shard``: ``"I/N"`` runs only the points with
    ``index % N == I - 1``. ``overrides``: ``"dotted.key=value"`` settings applied to the base
    for every point (after a sweep file's ``set:``). ``keep``: where finished chunks are kept as
    they come (beside the output); ``resume``: run only the points it does not hold yet."""
    from ndbsim.models.load import read

    if factors is None and isinstance(base, (str, Path)):
        return _from_file(
            base, replications, seed, workers, scheduler, shard, progress, chunk_size, overrides, keep, resume
        )
    if factors is None:
        raise InputError("no factors; pass factors={'data.size': ['10GB', '60GB']}", field="factors", source=source)
    replications = whole(1 if replications is None else replications, "replications", source, 1)
    from ndbsim.input.scenario import check_seed

    seed = check_seed(1 if seed is None else seed, "seed", source)
    if workers is not None:
        workers = whole(workers, "--workers", source, 1)
    sh = parse_shard(shard, source)

    # A sweep file is fixed with its set: (or ndbsim sweep --set); a Python call with overrides=.
    where = "set: in the sweep file, or --set" if source is not None else "in sweep()'s overrides="
    loaded = read(base, overrides=overrides, varied=factors, rows_fix=f"set data.rows=null ({where})")
    from ndbsim.output.explain import overridden_rates

    for note in [*loaded.notes, *overridden_rates(loaded.raw, factors, where)]:
        warnings.warn(note, UserWarning, stacklevel=2)
    base_raw, base_src, model = loaded.raw, loaded.source or source, loaded.model
    points = point_space(factors, mode, samples, seed, source, model=model.factor_model)
    _check_base(model, base_raw, base_src, points, source)

    indices = range(points.count) if sh is None else range(sh[0] - 1, points.count, sh[1])
    check_sweep_runs(len(indices), replications, source)
    definition = (base_raw, factors, mode, samples, sh, replications, seed)  # what the rows depend on
    kept, work, left = resumed(keep, definition, resume, _work(points, sh), len(indices))
    run = _Run(base_raw, points.keys, replications, seed, workers, scheduler, progress, chunk_size)
    return frame(sorted(kept + run.execute(work, left, keep), key=_point_and_replication), points.keys, model.phases)


def _from_file(
    path: str | Path,
    replications: int | None,
    seed: int | None,
    workers: int | None,
    scheduler: Any,
    shard: str | tuple[int, int] | None,
    progress: bool,
    chunk_size: int | None,
    overrides: Sequence[str],
    keep: ChunkStore | None,
    resume: bool,
) -> pd.DataFrame:
    """The sweep a sweep file describes; ``replications``, ``seed`` and ``overrides`` given in the
    call win over (or add to) the file's."""
    spec = load_sweep(path)
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
        keep=keep,
        resume=resume,
    )


def _check_base(
    model: Model, base_raw: dict[str, Any], base_src: str | None, points: Points, source: str | None
) -> None:
    """The checks before any work: the first point's factors can be set (else the sweep file's
    error), and the base is a valid scenario (its errors are the file's, not a point's) unless
    what is wrong with it is something the factors set: then some point must be valid (the first
    ``BASE_RESCUE_POINTS`` are tried, so the verdict does not hang on the points' order)."""
    from ndbsim.input.scenario import copy_raw

    keys = points.keys
    first = points.first(BASE_RESCUE_POINTS)
    for k, v in zip(keys, first[0], strict=True):
        try:
            with_values(base_raw, [k], [v])
        except InputError as e:
            raise InputError(e.message, field=f"factors.{k}", source=source) from None
    try:
        model.prepare(copy_raw(base_raw), base_src)
    except InputError:
        if not any(_is_valid(model, with_values(base_raw, keys, list(p)), base_src) for p in first):
            raise


def _work(points: Points, shard: tuple[int, int] | None) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``(index, factor values)`` of the points this sweep (or shard) runs, in index order."""
    for i, values in enumerate(points.values()):
        if shard is None or i % shard[1] == shard[0] - 1:
            yield i, values


def _is_valid(model: Model, raw: dict[str, Any], source: str | None) -> bool:
    """Whether ``raw`` validates as a run would validate it."""
    from ndbsim.input.scenario import copy_raw

    try:
        model.prepare(copy_raw(raw), source)
    except InputError:
        return False
    return True


@dataclass
class _Run:
    """How a sweep's points run: the base and factor keys, replications and seed, on which
    workers or scheduler, with a progress bar or not, in chunks of what size."""

    base_raw: dict[str, Any]
    keys: list[str]
    replications: int
    seed: int
    workers: int | None
    scheduler: Any
    progress: bool
    chunk_size: int | None

    def execute(
        self, work: Iterator[tuple[int, tuple[Any, ...]]], points: int, keep: ChunkStore | None
    ) -> list[SweepRow]:
        """Run the ``points`` points of ``work`` and return their rows (in no particular order),
        announcing a long sweep, showing a progress bar and keeping each finished chunk in ``keep``."""
        from tqdm import tqdm

        total = points * self.replications
        workers = self.workers
        workers_used = 1 if self.scheduler is not None else min(workers or os.cpu_count() or 1, max(1, points))
        notice = announcement(total, workers_used, "runs", rows=total)
        if notice:
            print(notice, file=sys.stderr)
        bar = tqdm(total=total, unit="run", desc="sweep", disable=not self.progress, smoothing=0.1, dynamic_ncols=True)
        rows: list[SweepRow] = []

        def take(out: list[SweepRow]) -> None:
            if keep is not None:
                keep.save(out)
            rows.extend(out)
            bar.update(len(out))

        args = (self.base_raw, self.keys, self.replications, self.seed, work, points)
        try:
            if self.scheduler is not None:
                run_dask(*args, self.scheduler, take, self.chunk_size)
            else:
                run_local(*args, workers_used, take, self.chunk_size)
            return rows
        except InputError as e:
            if keep is None or e.field != "--scheduler" or not rows:
                raise
            kept = f"{len(rows) // self.replications:,} more points finished are kept in {keep.directory}"
            raise InputError(f"{e.message}; {kept}: run the same command with --resume", field=e.field) from None
        finally:
            bar.close()
