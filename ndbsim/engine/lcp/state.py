"""The DIH master's LCP loop state (``engine.lcp.master``), and the rules its three parts share
(the loop, the warm-up by arithmetic, the skip of identical cycles): when the next LCP starts
unasked, the re-capping of a running LCP's writes (a restart's state, EnableRedoControl's REDO
alert levels), whether cycles lie in one stretch of the stream, and ``settles_first``."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import simpy
from simpy.events import Event

from ndbsim.engine import clock
from ndbsim.engine.fluid.system import FluidSystem
from ndbsim.engine.lcp.round import CycleShape, LcpPlan, Skip
from ndbsim.engine.lcp.stall import Recovery
from ndbsim.engine.lcp.writes import LcpWrites
from ndbsim.engine.node import Node
from ndbsim.engine.plan import Plan
from ndbsim.engine.redo import RedoLog
from ndbsim.engine.sizing import Sizing

MIN_SKIPPED_CYCLES = 3
"""A skip is taken only if at least this many cycles fit before the stream's rates change;
fewer are as cheap to simulate."""


class _Settles(Protocol):
    def settle(self, interrupt: bool = True) -> None: ...


S = TypeVar("S", bound=_Settles)
P = ParamSpec("P")
R = TypeVar("R")


def settles_first(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """The one rule of the skip: whatever reads or changes the cluster's LCP state from outside
    the DIH loop first settles a skip under way (writes the cycles skipped so far and resumes
    the one in progress), so that it sees, and changes, the cluster as if every cycle had been
    simulated. Every such entry point carries this decorator."""

    @functools.wraps(method)
    def settled(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        self.settle()
        return method(self, *args, **kwargs)

    return settled


class LcpState:
    """The LCP loop's state for one cluster, and the steps its parts share."""

    def __init__(
        self,
        env: simpy.Environment,
        fluid: FluidSystem,
        nodes: list[Node],
        sz: Sizing,
        plan: Plan,
        redo: RedoLog,
        writes: LcpWrites,
    ):
        self.env, self.fluid, self.nodes = env, fluid, nodes
        self.sz, self.plan, self.redo, self.writes = sz, plan, redo, writes
        self.last_start = plan.last_lcp_start
        """Start of the newest completed LCP (-inf for an idle cluster)."""
        self.first_start = plan.first_lcp_start
        """An LCP already running at the start of the warm-up (a burst on an idle cluster)."""
        self.last_end = 0.0
        self.running: LcpPlan | None = None
        self._count = 0
        self._done: Event | None = None
        """Fires when the running LCP completes; made only when someone waits for it."""
        self._waiters: list[Event] = []
        self._sleeping = False
        self._stalled = False
        """The master holds an LCP start for a restarting node (``engine.lcp.stall``)."""
        self.recoveries: dict[int, Recovery] = {}
        """Per node id, its newest restart's node recovery status."""
        self._skip_inputs: tuple[object, ...] = ()
        """What the holds read of the restarting nodes when the skip under way began."""
        self.last_hold = 0.0
        """Seconds DIH held the newest LCP's start (``engine.lcp.stall``)."""
        self.stalls: list[tuple[float, float, int]] = []
        """Each LCP start held: (from, seconds, the node waited for)."""
        self._process: simpy.Process | None = None
        self._shape: CycleShape | None = None
        """The last LCP's shape, to compare with the next one's."""
        self._skip: Skip | None = None
        self._resume: tuple[LcpPlan, float] | None = None
        """After a skip that ended mid-LCP: that LCP and the table-description time left."""
        self._speeds_for: tuple[LcpPlan, float, bool] | None = None
        """The running LCP, the time and whether a node was restarting when its caps were last
        set by ``refresh_speeds``; None once a skip's settling rewrote the nodes' histories."""

    def lcp_secs(self) -> float:
        """The last LCP's time, start to completion (DIH's ``m_lcp_time``; 0 before any)."""
        return max(0.0, self.last_end - self.last_start) if math.isfinite(self.last_start) else 0.0

    def settle(self, interrupt: bool = True) -> None:
        """End a skip under way (``lcp_skip.CycleSkip.settle``)."""
        raise NotImplementedError

    @settles_first
    def refresh_speeds(self, changed: bool = False) -> None:
        """Re-cap the running LCP's writes after a node's restart state changed. ``changed``:
        a writing node's own state changed (its restart ended, its REDO alert rose). Without
        it, a refresh at the instant of the last one, with as many nodes restarting, is one
        only a node going down asked for: that node's writes have stopped (``drop``), and every
        other input of the speeds is as it was, so the caps are."""
        plan = self.running
        if plan:
            writes, fluid = self.writes, self.fluid
            now = clock.now(self.env)
            restarting = writes.any_restarting()
            last = self._speeds_for
            if not changed and last is not None and last[0] is plan and last[1] == now and last[2] == restarting:
                return
            speeds = writes.node_speeds([n for n, _ in plan.flows], restarting)
            with fluid.batch:
                for (_, flow), speed in zip(plan.flows, speeds):
                    cap = writes.cap(flow, speed)
                    if cap != flow.cap:  # settled first: the change is all set_cap would do
                        fluid.set_cap(flow, cap)
            self._speeds_for = (plan, now, restarting)

    def _next_trigger(self) -> float:
        """When the next LCP starts with no one asking: once the stream has written
        TimeBetweenLocalCheckpoints' REDO since the last one began, and a GCP after it ended."""
        sz = self.sz
        start_at = self.plan.traffic.time_to_write(max(self.last_start, 0.0), sz.lcp_trigger_bytes, math.inf)
        start_at = max(start_at, self.last_end + sz.gcp)
        if self.first_start is not None:
            start_at, self.first_start = self.first_start, None
        return start_at

    def _watch_redo(self, plan: LcpPlan) -> None:
        """EnableRedoControl re-reads the REDO fill while an LCP runs (Backup.cpp recomputes its
        write speed every period, reference §2.4): wake when a participant's REDO next crosses
        an alert level, or the stream's rate changes, and re-cap the LCP's writes then."""
        if not self.sz.features.redo_control:
            return
        at, reach = self.redo.next_alert([n for n, _ in plan.flows], clock.now(self.env))
        if not math.isinf(at):
            self.fluid.alarm(at, lambda: self._redo_alert(plan, reach), [f for _, f in plan.flows])

    def _redo_alert(self, plan: LcpPlan, reach: list[tuple[Node, int]]) -> None:
        if self.running is not plan:
            return  # that LCP has completed
        for node, level in reach:  # the REDO is at the level now, whatever the round-off says
            node.redo_alert = max(node.redo_alert, level)
        before = tuple(f.cap for _, f in plan.flows)
        self.refresh_speeds(changed=True)
        after = tuple(f.cap for _, f in plan.flows)
        if after != before:
            plan.cap_changes.append((clock.now(self.env) - plan.start, after))
        self._watch_redo(plan)

    def _in_one_stretch(self, shape: CycleShape, now: float, participants: list[Node]) -> bool:
        """Whether the cycles compared, and the REDO windows that set the next ones' write
        speed (EnableRedoControl), lie in one stretch of the stream and of every node's log,
        and at least ``MIN_SKIPPED_CYCLES`` more fit before the stream changes."""
        start, period = shape.start, shape.period
        segments = self.plan.traffic.segments
        back = start - (self.sz.features.redo_lcps_kept + 1) * period
        if any(back < s <= now for s, _ in segments):
            return False
        if any(n.redo_floor > back for n in participants):
            return False
        until = next((s for s, _ in segments if s > now), math.inf)
        return not (period - shape.length < 0 or until - now < MIN_SKIPPED_CYCLES * period)
