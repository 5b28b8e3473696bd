"""``ndbsim eta`` narrows its window as the cluster shows its phases (issue 49): on the shipped
rolling restart (tests/data/rolling-8.0.35) cut at every phase boundary of both waves, the width
once the running node has restored (at most 25% of the window, with 90% of the cuts inside:
tests/studies/test_interval.py) is the refit's doing: with each column's prior kept as it is
(nothing learned from the finished phases) the same cuts are at least a quarter wider."""

from __future__ import annotations

import statistics

import pytest
from _helpers import ETA_START as START
from _helpers import eta_cluster

from ndbsim.studies.eta import window
from ndbsim.studies.eta.replay import replay
from ndbsim.studies.eta.session import open_session

RESTORED = ("secs_index_rebuild", "secs_to_synchronize_starting_node", "secs_wait_lcp_for_restart", "done")
"""The phases in progress once the running node has restored (``benchmarks/eta_coverage.py``)."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    return eta_cluster(tmp_path_factory, "eta-narrowing")


def _cuts(cluster) -> list[dict]:
    out = []
    for wave in (0, 1):
        out += replay(open_session(cluster["scenario"], None, None, []), cluster["rows"], wave, START)
    return out


def _restored_width(cuts: list[dict]) -> float:
    return statistics.median((c["window_p95"] - c["window_p5"]) / c["truth"] for c in cuts if c["phase"] in RESTORED)


@pytest.fixture(scope="module")
def learned(cluster):
    return _cuts(cluster)


def test_the_narrowing_is_learned_from_the_finished_phases(cluster, learned, monkeypatch):
    # the refit's priors used as they are: each column as uncertain after its phase finished as before
    column_sds = window.column_sds
    monkeypatch.setattr(window, "column_sds", lambda prior, rows: column_sds(prior, []))
    unlearned = _cuts(cluster)
    assert [c["window_p50"] for c in unlearned] == [c["window_p50"] for c in learned]
    widths = (_restored_width(learned), _restored_width(unlearned))
    assert widths[0] <= 0.8 * widths[1], widths
