"""DIH's stall of an LCP start for a restarting node (DbdihMain.cpp ``Dbdih::check_stall_lcp_start``,
``Dbdih::check_for_too_long_wait``): the rules as the source writes them, and the master holding
a start in a run."""

from __future__ import annotations

import pytest

import ndbsim
from ndbsim.engine.lcp import stall
from ndbsim.engine.lcp.master import LcpMaster
from ndbsim.engine.lcp.stall import Recovery, hold
from ndbsim.engine.node import Node
from ndbsim.input import restart_info as ri

LCP_SECS = 3 * 3600.0
"""A 3-hour LCP: 35% of it is 3780 s, above the one-hour cap."""


def node(node_id: int) -> Node:
    n = Node.__new__(Node)
    n.id = node_id
    return n


def spans_until(last: str, t: float, step: float = 10.0) -> list[ri.Span]:
    """Every phase up to ``last``, each ``step`` seconds, the last ending at ``t``."""
    names = [p for p in ri.PHASES if p not in ri.OWN_PHASES]
    names = names[: names.index(last) + 1]
    t0 = t - step * len(names)
    return [(p, t0 + step * i, t0 + step * (i + 1)) for i, p in enumerate(names)]


def measured(node_id: int, end_to_req: float) -> Recovery:
    """A node that reached END_TOREQ at ``end_to_req``: its copy took 100 s from the end of the
    index rebuild, its whole restart 10 s per phase before that."""
    spans = spans_until(ri.INDEX_REBUILD, end_to_req - 100.0)
    spans.append((ri.TO_SYNCHRONIZE_STARTING_NODE, end_to_req - 100.0, end_to_req))
    return Recovery(node(node_id), spans[0][1], spans, asked=end_to_req)


def copying(node_id: int, since: float) -> Recovery:
    """A node copying since ``since`` (its index rebuild ended then)."""
    spans = spans_until(ri.INDEX_REBUILD, since)
    return Recovery(node(node_id), spans[0][1], spans)


def test_no_restart_under_way_starts_at_once():
    assert hold([measured(1, 500.0)], LCP_SECS, 0.0, 1000.0) == (0.0, 0)


def test_a_node_close_to_end_toreq_holds_the_start_until_the_maximum_is_spent():
    # node 2 has copied 90 s of the 100 s the last restart took: 10 s left, well inside
    # 85% of the one-hour cap; the hold then lasts until 85% of the cap is spent
    recs = [measured(1, 500.0), copying(2, 910.0)]
    secs, waited = hold(recs, LCP_SECS, 0.0, 1000.0)
    assert waited == 2
    assert secs == pytest.approx(0.85 * 3600.0)
    # 40 s into the hold, what is left is the same end
    assert hold(recs, LCP_SECS, 40.0, 1040.0)[0] == pytest.approx(0.85 * 3600.0 - 40.0)


def test_the_cap_is_35_percent_of_the_last_lcp():
    recs = [measured(1, 500.0), copying(2, 999.0)]  # 99 s left
    assert hold(recs, 200.0, 0.0, 1000.0) == (0.0, 0)  # 35% of 200 s is 70 s; 85% of it 59.5 s
    secs, _ = hold(recs, 400.0, 0.0, 1000.0)  # 140 s cap, 119 s for the estimate: held
    assert secs == pytest.approx(0.85 * 140.0)
    assert hold(recs, 400.0, 141.0, 1141.0) == (0.0, 0)  # held past the cap: start


def test_without_a_measured_restart_a_quarter_of_what_is_left():
    recs = [copying(2, 910.0)]
    secs, waited = hold(recs, 1000.0, 0.0, 1000.0)
    # hold while held <= 25% of (85% of 350 s - held)
    assert waited == 2
    assert secs == pytest.approx(0.25 * 0.85 * 350.0 / 1.25)


def test_early_states_halve_the_maximum_and_estimate_a_whole_restart():
    done = measured(1, 500.0)
    began = done.ended(ri.WAIT_FOR_NDBCNTR_MASTER)
    assert began is not None
    whole = 500.0 - began  # from NDBCNTR's permit to END_TOREQ
    failed = Recovery(node(2), 1000.0, [])  # NODE_FAILED since 1000 s
    cap = min(0.35 * LCP_SECS, 3600.0)
    secs, _ = hold([done, failed], LCP_SECS, 0.0, 1000.0)
    assert whole <= 0.5 * 0.85 * cap  # that restart fits in the halved maximum
    assert secs == pytest.approx(0.85 * cap)


def test_a_node_that_asked_for_its_lcp_is_no_longer_waited_for():
    recs = [measured(1, 500.0), measured(2, 990.0)]
    assert hold(recs, LCP_SECS, 0.0, 1000.0) == (0.0, 0)
    copied = measured(2, 990.0)
    copied.asked = None  # its copy has ended, its own LCP not asked for yet: still waited for
    assert hold([measured(1, 500.0), copied], LCP_SECS, 0.0, 1000.0)[1] == 2


def test_the_constants_are_the_sources():
    assert stall.MAX_SHARE_OF_LCP_TIME == 0.35
    assert stall.ESTIMATE_SHARE == 0.85
    assert stall.EARLY_PHASES_SHARE == 0.50
    assert stall.NO_ESTIMATE_SHARE == 0.25
    assert stall.STALL_MAX_SECS == 3600.0


def test_a_node_restart_holds_lcp_starts_for_the_node(root, monkeypatch):
    # 7.5's full LCPs are long beside the restart's steps: the master holds the starts that
    # come while the node restarts (no restart measured yet: a quarter of what is left), each
    # within 35% of the last LCP's time (the old master never held one)
    held: list[tuple[float, float]] = []
    begin = LcpMaster._begin

    def spy(self: LcpMaster, t0: float):  # type: ignore[no-untyped-def]
        if self.last_hold > 0:
            held.append((self.last_hold, self.lcp_secs()))
        return begin(self, t0)

    monkeypatch.setattr(LcpMaster, "_begin", spy)
    r = ndbsim.simulate(root / "scenarios/dbt2-600wh-7.5.10.yaml", replications=1)
    assert r.status == "ok"
    assert held, "no LCP start was held"
    assert all(0.0 < secs <= 0.35 * lcp for secs, lcp in held)
