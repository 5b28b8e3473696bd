"""Running points, the hot path (no pandas, flat records): a point's scenario and a chunk of
points run in whatever process calls ``run_chunk``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ndbsim.errors import InputError
from ndbsim.output.records import CHECKPOINT_FIGURES, Outcome, SweepRow, sweep_row


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
    """Run the points ``(index, factor values)`` of one chunk. Replication ``r`` of every point is
    replication ``r`` of ``ndbsim run --seed SEED`` with the sweep's seed (each row's ``seed``):
    the model seeds both."""
    from ndbsim.models.registry import model_of

    model = model_of(base_raw)
    prepare = model.point_preparer(base_raw, list(keys))
    nan = math.nan
    failed = Outcome((nan,) * len(model.phases), nan, (nan,) * len(CHECKPOINT_FIGURES), 0, "error", "")
    rows: list[SweepRow] = []
    for index, values in chunk:
        done = 0
        try:
            prepared = prepare(with_values(base_raw, keys, values))
            for outcome in model.outcomes(prepared, seed, replications):
                rows.append(sweep_row(index, done, seed, values, outcome))
                done += 1
        except Exception as e:
            msg = " ".join(str(e).split()) or type(e).__name__
            if not isinstance(e, InputError):
                msg = f"{type(e).__name__}: {msg}"
            error = replace(failed, reason=msg)
            rows.extend(sweep_row(index, rep, seed, values, error) for rep in range(done, replications))
    return rows
