"""One take-over at a time per node group: the DIH master's ``activeTakeOver`` of each node group.

Every fragment a starting node copies goes through the master first (DbdihMain.cpp,
``Dbdih::execUPDATE_TOREQ``, ``UpdateToReq::BEFORE_STORED``): the master grants it if the node
group of the copying node has no active take-over or already belongs to this starting node
(``NGPtr.p->activeTakeOver``, ``activeTakeOverCount++``), and refuses it otherwise
(``UpdateToRef::CopyFragInProgress``, "NG busy"). The grant is given back fragment by fragment at
``BEFORE_COMMIT_STORED`` (``Dbdih::updateToReq_fragmentMutex_locked``: the count drops, "Last
active copy thread, give up activeTakeOver for now" at 0), and dropped when the owner dies
(``Dbdih::abortTakeOver``). A starting node runs its copy threads (``c_max_takeover_copy_threads``)
together and each asks before its next fragment, so its count reaches 0 only when its last
fragment commits: a node group's starting nodes copy one after the other.

The refused node does not queue: ``Dbdih::execUPDATE_TOREF`` asks again after a fixed 5,000 ms
(``DihContinueB::ZSEND_UPDATE_TO``, ``sendSignalWithDelay(..., 5000, ...)``), and meanwhile its
whole take-over stands still (its threads share one slot towards the master,
``c_activeThreadTakeOverPtr``: "towards the master we appear as there is only one take over
thread"). It gets the grant at its first retry after the owner's copy ends, up to 5 s later; the
wait counts in its own ``secs_to_synchronize_starting_node``, which starts at START_TOREQ.
Read in the 2018 (8.0.1x) DbdihMain.cpp; reference §14.8 finds the same logic in 7.5/7.6, after
8.4 and in RonDB, and the 7.0/7.1 files hold it for the whole take-over ("We only allow one take
over per node group. Otherwise we will overload the node group").
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import simpy
from simpy.events import Event

UPDATE_TO_RETRY_SECS = 5.0
"""The delay before a refused UPDATE_TOREQ is sent again (DbdihMain.cpp, ``Dbdih::execUPDATE_TOREF``:
``sendSignalWithDelay(reference(), GSN_CONTINUEB, signal, 5000, 2)`` with
``DihContinueB::ZSEND_UPDATE_TO``): a fixed 5 s poll, no queue at the master."""


class NodeGroupTakeOver:
    """The master's ``activeTakeOver`` of one node group: which starting node copies in it now."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.owner: int | None = None
        """The starting node (engine id) holding the node group's take-over, or None."""
        self._released = env.event()

    def acquire(self, node: int) -> Generator[Event, Any, tuple[float, int | None]]:
        """Take the node group's take-over for ``node``: at once when free, else at ``node``'s first
        retry (every ``UPDATE_TO_RETRY_SECS`` from its first refusal) after the owner gives it
        back; a retry that finds another starting node holding it again waits for the next
        release. Returns (the seconds waited, the node it first found holding it or None)."""
        env = self.env
        t0 = env.now
        first: int | None = None
        while self.owner is not None and self.owner != node:
            first = self.owner if first is None else first
            yield self._released
            retry = t0 + UPDATE_TO_RETRY_SECS * math.ceil((env.now - t0) / UPDATE_TO_RETRY_SECS - 1e-9)
            if retry > env.now:
                yield env.timeout(retry - env.now)
        self.owner = node
        return env.now - t0, first

    def release(self, node: int) -> None:
        """``node``'s last fragment committed (or its restart stopped): the node group is free."""
        if self.owner != node:
            return
        self.owner = None
        if self._released.callbacks:  # a starting node waits: wake it (none waiting, no event)
            released, self._released = self._released, self.env.event()
            released.succeed()
