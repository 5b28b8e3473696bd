"""DIH's stall of an LCP start for a node about to need it (DbdihMain.cpp
``Dbdih::check_stall_lcp_start``, ``Dbdih::check_for_too_long_wait``, 7.6 and later; reference
§12, §14.6).

When the master's LCP timer says start, it first asks whether a restarting node will soon reach
WAIT_LCP_FOR_RESTART (its END_TOREQ): if so it holds the start, "holding a train waiting for a
batch of important customers", so that the node's restart waits for this LCP rather than the
next. The estimate is read from the node recovery status: the restarting node furthest along
(``calculate_time_remaining``), and the most recent node that reached WAIT_LCP_FOR_RESTART
(``calculate_most_recent_node``), whose measured time from the same state to its END_TOREQ is
the estimate. The hold is bounded by a share of the last LCP's time (``m_lcp_time``).

The restart's phases stand for the node recovery states: a node enters the state after a
phase when that phase's span ends (``ndbinfo.restart_info``'s columns are those states' times);
it reaches WAIT_LCP_FOR_RESTART when it asks for its LCP (``execEND_TOREQ`` with WAIT_LCP: on
7.6+ after its own local LCP, whose REDO logging comes before END_TOREQ), where DIH stops
waiting for it.

The hold is bounded by the last LCP's time, so it bridges only gaps short beside an LCP: two
nodes of one wave whose copies end a few seconds apart, when the LCPs under the load are long.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbsim.engine.node import Node
from ndbsim.input import restart_info as ri
from ndbsim.input.restart_info import Span

STALL_MAX_SECS = 3600.0
"""DbdihMain.cpp ``STALL_MAX_ONE_HOUR``: an LCP start is never held longer than an hour."""

MAX_SHARE_OF_LCP_TIME = 0.35
"""DbdihMain.cpp ``MAX_PERCENTAGE_OF_LCP_TIME_WE_STALL``: at most 35% of the last LCP's time
(``Dbdih::check_for_too_long_wait``)."""

ESTIMATE_SHARE = 0.85
"""DbdihMain.cpp ``MAX_PERCENTAGE_ADJUSTMENT_FOR_ESTIMATE``: the estimate must fit in 85% of the
maximum, less the time already held ("to avoid that we wait for a long time only to stop
waiting right before the wait is over")."""

EARLY_PHASES_SHARE = 0.50
"""DbdihMain.cpp: for a node still before NDBCNTR's permit (NODE_FAILED to NDBCNTR_START_WAIT)
the estimate is a whole restart and the maximum is halved (``lcp_max_wait_time *= 50``)."""

NO_ESTIMATE_SHARE = 0.25
"""DbdihMain.cpp ``MAX_PERCENTAGE_ADJUSTMENT_FOR_NO_ESTIMATE``: with restarts under way and no
node that has reached WAIT_LCP_FOR_RESTART to measure, DIH holds for at most 25% of the
maximum left."""

ROUND_OFF_SECS = 1e-6
"""A hold shorter than this is float round-off of the time already held, not a hold."""

_EARLY_UNTIL = ri.PHASES.index(ri.WAIT_FOR_NDBCNTR_MASTER)
"""Phases before this one end in the early states (up to NDBCNTR_START_WAIT)."""


_RANK = {p: i for i, p in enumerate(ri.PHASES)}
"""Each phase's place in restart_info's order: the rank of the state its end begins."""


@dataclass
class Recovery:
    """One node's restart as DIH's node recovery status sees it."""

    node: Node
    crash: float
    """NODE_FAILED: when the node went down."""
    spans: list[Span]
    """The restart's phases so far (the run's own list, growing as they end)."""
    asked: float | None = None
    """When the node asked to take part in an LCP (END_TOREQ with WAIT_LCP, after a 7.6+ node's
    own local LCP, whose REDO logging comes first): WAIT_LCP_FOR_RESTART from then on."""
    _read: int = 0
    """Spans read into ``_state`` so far (the list only grows)."""
    _state: tuple[int, str | None, float] | None = None

    def _catch_up(self) -> tuple[int, str | None, float]:
        state = self._state or (-1, None, self.crash)
        spans = self.spans
        for name, _, t1 in spans[self._read :]:
            rank = _RANK.get(name)
            if rank is not None and rank >= state[0]:
                state = (rank, name, t1)
        self._read, self._state = len(spans), state
        return state

    def ended(self, phase: str) -> float | None:
        """When ``phase`` last ended (the state after it began), or None."""
        for name, _, t1 in reversed(self.spans):
            if name == phase:
                return t1
        return None

    def end_to_req(self) -> float | None:
        """When the node reached WAIT_LCP_FOR_RESTART (asked for its LCP), or None."""
        return self.asked

    def state(self) -> tuple[int, str | None, float]:
        """(rank of the state, the phase whose end began it, when it began): the node's
        newest state (NODE_FAILED at the crash, rank -1)."""
        if self._state is not None and self._read == len(self.spans):
            return self._state
        return self._catch_up()

    def waited_for(self) -> bool:
        """Not yet at WAIT_LCP_FOR_RESTART: DIH may hold an LCP start for it. From its END_TOREQ
        on, DIH counts it among the nodes that measure a restart (``calculate_most_recent_node``)."""
        return self.end_to_req() is None


def hold(recoveries: list[Recovery], lcp_secs: float, held: float, now: float) -> tuple[float, int]:
    """How much longer ``check_stall_lcp_start`` holds the LCP start from ``now`` if no node's
    state changes (0: start now), having held it ``held`` seconds; and the node waited for.

    The answer stands until a node's state changes: the estimate left and the maximum left both
    shrink by the time held, so the comparison stays as it is until the estimate runs out, and
    the hold then lasts while the maximum left is not negative."""
    cap = min(MAX_SHARE_OF_LCP_TIME * lcp_secs, STALL_MAX_SECS)  # check_for_too_long_wait
    if held > cap:
        return 0.0, 0
    max_wait = ESTIMATE_SHARE * cap - held
    waiting = [r for r in recoveries if r.waited_for()]
    if not waiting:
        return 0.0, 0  # no restart under way
    # calculate_time_remaining: the node furthest along, the longest in that state
    target = max(waiting, key=lambda r: (r.state()[0], now - r.state()[2]))
    rank, phase, since = target.state()
    done = [(t, r) for r in recoveries if not r.waited_for() and (t := r.end_to_req()) is not None]
    if not done:
        # no node to measure: hold while held <= NO_ESTIMATE_SHARE * (ESTIMATE_SHARE * cap - held)
        limit = NO_ESTIMATE_SHARE * ESTIMATE_SHARE * cap / (1.0 + NO_ESTIMATE_SHARE)
        return max(0.0, limit - held), target.node.id
    recent = max(done, key=lambda x: x[0])[1]  # calculate_most_recent_node
    reached = recent.end_to_req()
    assert reached is not None
    if rank < _EARLY_UNTIL:
        max_wait *= EARLY_PHASES_SHARE  # estimate a whole restart, from NDBCNTR's permit
        began = recent.ended(ri.WAIT_FOR_NDBCNTR_MASTER)
    else:
        began = recent.ended(phase) if phase is not None else None
    if began is None:
        return 0.0, 0  # the measured restart did not pass that state: no estimate of it
    remaining = max(0.0, (reached - began) - (now - since))
    if remaining > max_wait:
        return 0.0, 0
    # held until the maximum left is spent (an early state's halved maximum: twice as slowly)
    share = EARLY_PHASES_SHARE if rank < _EARLY_UNTIL else 1.0
    left = max_wait / share
    return max(left, 0.0), target.node.id


def held_until(recoveries: list[Recovery], lcp_secs: float, trigger: float, now: float) -> float:
    """When an LCP start the timer called for at ``trigger`` goes ahead, if no node's state
    changes: ``hold`` after ``hold`` from ``now``, as the master's loop sleeps them."""
    while True:
        secs, _ = hold(recoveries, lcp_secs, now - trigger, now)
        if secs <= ROUND_OFF_SECS:
            return now
        now = now + secs


def inputs(recoveries: list[Recovery], now: float) -> tuple[object, ...]:
    """What ``hold`` reads of the restarting nodes' states: whether any is waited for, whether
    one has reached WAIT_LCP_FOR_RESTART, and with both, the node waited for and its state."""
    waiting = [r for r in recoveries if r.waited_for()]
    done = [r for r in recoveries if not r.waited_for()]
    if not waiting or not done:
        return (bool(waiting), bool(done))
    target = max(waiting, key=lambda r: (r.state()[0], now - r.state()[2]))
    recent = max(done, key=lambda r: r.end_to_req() or 0.0)
    return (target.node.id, target.state(), recent.node.id, recent.end_to_req())


def flips_at(recoveries: list[Recovery], lcp_secs: float, now: float) -> float:
    """The earliest time after ``now`` at which a start not held now would be held (a waiting
    node's estimate left shrinking into the maximum), with no state changing; inf if none."""
    cap = min(MAX_SHARE_OF_LCP_TIME * lcp_secs, STALL_MAX_SECS)
    done = [(t, r) for r in recoveries if not r.waited_for() and (t := r.end_to_req()) is not None]
    waiting = [r for r in recoveries if r.waited_for()]
    if not waiting or not done or cap <= 0:
        return float("inf")
    target = max(waiting, key=lambda r: (r.state()[0], now - r.state()[2]))
    rank, phase, since = target.state()
    recent = max(done, key=lambda x: x[0])[1]
    reached = recent.end_to_req()
    assert reached is not None
    early = rank < _EARLY_UNTIL
    since_phase = ri.WAIT_FOR_NDBCNTR_MASTER if early else phase
    began = recent.ended(since_phase) if since_phase is not None else None
    if began is None:
        return float("inf")
    max_wait = ESTIMATE_SHARE * cap * (EARLY_PHASES_SHARE if early else 1.0)
    at = since + (reached - began) - max_wait  # estimate left == maximum, held 0
    return at if at > now else float("inf")
