"""A run's replications are folded as they finish: memory does not grow with -n beyond a few
numbers per replication, and every output is the same, bit for bit, as from whole records."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

import ndbsim
from ndbsim.output import replications as log
from ndbsim.output.timeouts import timeouts

ROLLING = "scenarios/rolling-4-nodes-8.0.yaml"


def _outputs(result) -> tuple:
    return result.to_json(), result.to_csv(), repr(timeouts(result)), result.to_frame().to_csv()


@pytest.mark.parametrize("path", [ROLLING, "scenarios/dbt2-600wh-7.6.6.yaml"])
def test_replications_read_back_are_simulated_again_with_the_same_outputs(root, path, monkeypatch):
    whole = ndbsim.simulate(root / path, replications=5, seed=5)
    assert len(whole.replications.kept) == 5
    monkeypatch.setattr(log, "KEPT_WHOLE", 1)
    lean = ndbsim.simulate(root / path, replications=5, seed=5)
    assert list(lean.replications.kept) == [0]
    assert _outputs(lean) == _outputs(whole)
    i = lean.schedule_replication()
    assert lean.replications[i] == whole.replications[i]
    assert list(lean.replications) == list(whole.replications)


def _held(root, n: int) -> int:
    """Bytes still allocated after running ``n`` replications, while their result is held (the
    cyclic garbage of the simulations collected first)."""
    tracemalloc.start()
    try:
        result = ndbsim.simulate(root / "scenarios/dbt2-600wh-7.6.6.yaml", replications=n)
        gc.collect()
        assert len(result.replications) == n
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_memory_per_replication_is_a_few_numbers(root, monkeypatch):
    """Past the replications kept whole, each costs its medians' floats (a few hundred bytes),
    not its records (about 15 kB for this scenario)."""
    monkeypatch.setattr(log, "KEPT_WHOLE", 5)
    ndbsim.simulate(root / "scenarios/dbt2-600wh-7.6.6.yaml", replications=2)  # imports and caches first
    small, big = _held(root, 10), _held(root, 70)
    assert (big - small) / 60 < 1_000
