"""Long but legal work: sweep points built lazily and sent in bounded chunks, the up-front
announcement (time, and the rows' memory when large), the replications' progress bar."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

from ndbsim.input import budget
from ndbsim.studies.sweep import IN_FLIGHT, make_points, point_space, sweep

BASE = str(Path(__file__).resolve().parents[2] / "scenarios" / "dbt2-600wh-7.6.6.yaml")


def test_a_two_million_point_grid_is_not_built():
    factors = {"data.size": [f"{i}GB" for i in range(1, 2001)], "cluster.config.RecoveryWork": list(range(1000))}
    point_space({"data.size": ["1GB"]}, "grid", None, seed=1)  # the imports are not the points
    tracemalloc.start()
    start = time.monotonic()
    pts = point_space(factors, "grid", None, seed=1)
    first = pts.first(3)
    took = time.monotonic() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert pts.count == 2_000_000
    assert first == [("1GB", 0), ("1GB", 1), ("1GB", 2)]
    assert peak < 2**20 and took < 2.0  # a built list would take hundreds of MB


@pytest.mark.parametrize(
    "factors,mode,samples",
    [
        ({"data.size": ["1GB", "2GB"], "cluster.config.RecoveryWork": [25, 50, 80]}, "grid", None),
        ({"data.size": ["1GB", "2GB"], "cluster.config.RecoveryWork": [25, 50]}, "zip", None),
        (
            {
                "data.size": {"low": "1GB", "high": "9GB", "log": True},
                "cluster.config.RecoveryWork": {"low": 25, "high": 100},
                "workload.updates_per_s": {"low": 0.0, "high": 1e4},
                "version": ["7.5.10", "7.6.6"],
            },
            "random",
            50,
        ),
    ],
)
def test_lazy_points_are_the_listed_points_each_time(factors, mode, samples):
    pts = point_space(factors, mode, samples, seed=3)
    listed = make_points(factors, mode, samples, seed=3)
    assert [dict(zip(pts.keys, v, strict=True)) for v in pts.values()] == listed
    assert list(pts.values()) == list(pts.values())  # values() restarts from the first point
    assert pts.count == len(listed)


def test_bounded_dispatch_refills_until_every_point_is_run():
    factors = {"data.size": [f"{i}GB" for i in range(1, 6)], "cluster.config.RecoveryWork": [25, 50, 60, 80]}
    chunks = 20
    assert chunks > 2 * IN_FLIGHT  # more chunks than are ever in flight at once
    rows_follow_size = ["data.rows=null"]
    serial = sweep(BASE, factors, workers=1, progress=False, overrides=rows_follow_size)
    pooled = sweep(BASE, factors, workers=2, chunk_size=1, progress=False, overrides=rows_follow_size)
    assert len(serial) == chunks
    pd.testing.assert_frame_equal(serial, pooled)


def test_announcement_says_time_and_the_rows_memory_when_large():
    assert budget.announcement(1_000, 2, "runs", rows=1_000) is None
    long = budget.announcement(100_000, 1, "replications")
    assert long is not None and "100,000 replications" in long and "memory" not in long
    big = budget.announcement(2_000_000, 2, "runs", rows=2_000_000)
    assert big is not None and "2,000,000 rows need about 5.0G of memory" in big and "--shard" in big
    # memory alone is reason to speak: a quick sweep whose rows are large
    assert budget.announcement(300_000, 1_000, "runs", rows=300_000) is not None


def test_progress_bar_only_when_asked_for_and_long(capsys):
    """Every item is handed out (each after the signal check); a bar is drawn on stderr only when
    asked for and the work is long."""
    items = range(10)
    long = int(budget.PROGRESS_SECS / budget.SECS_PER_RUN) + 1

    def drawn(total: int) -> bool:
        assert list(budget.progress(items, total, "replication")) == list(items)
        return "replication" in capsys.readouterr().err

    assert not drawn(long)  # the library never draws one
    with budget.showing_progress(True):
        assert not drawn(10)  # too short to tell anything
        assert drawn(long)
    with budget.showing_progress(False):
        assert not drawn(long)
