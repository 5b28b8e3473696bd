"""SimPy's private attributes, read in one place.

``Environment.now`` and ``Event.value`` are properties, and ``value`` checks that the event has
fired on every read; the engine reads the clock and finished flows' end times in its hottest
loops (every reallocation of the fluid system, every LCP of the DIH loop), so it reads the
attributes behind them directly. They are SimPy 4's private names: a SimPy upgrade that
renames them breaks this module and ``engine/fluid.py``.

``run_until`` is ``Environment.run(until=event)`` with ``Environment.step`` inlined: a default
restart processes about 65 events, and the method call per event was measured at 2–3% of a
sweep point's time.

``engine/fluid.py`` is the one exception: it reads ``env._now`` itself, inline, in the
reallocation loop, where the extra call through ``now()`` was measured to cost run time.
"""

from __future__ import annotations

from heapq import heappop
from typing import Any

import simpy
from simpy.core import StopSimulation
from simpy.events import Event, EventPriority


def now(env: simpy.Environment) -> float:
    """The simulated time (``env.now`` without the property)."""
    return env._now


def value(event: Event) -> Any:
    """The value a fired event carries (``event.value`` without the check that it fired)."""
    return event._value


def events_scheduled(env: simpy.Environment) -> int:
    """How many events ``env`` has scheduled so far. It takes the next event id, so read it once,
    when the run is over."""
    return next(env._eid)


def run_until(env: simpy.Environment, until: Event) -> None:
    """``env.run(until=until)``: process events until ``until`` has been processed. The same steps
    as SimPy 4's ``Environment.run`` and ``Environment.step``, including what they schedule when
    ``until`` stops the run (the rest of its callbacks, rescheduled), so ``events_scheduled``
    counts the same."""
    if until.callbacks is None:  # processed already
        return
    until.callbacks.append(StopSimulation.callback)
    queue = env._queue
    while True:
        try:
            env._now, _, _, event = heappop(queue)
        except IndexError:
            raise RuntimeError(f'No scheduled events left but "until" event was not triggered: {until}') from None
        callbacks, event.callbacks = event.callbacks, None  # type: ignore[assignment]
        try:
            for callback in callbacks:
                callback(event)
        except StopSimulation:
            event.callbacks = callbacks[callbacks.index(callback) + 1 :]
            env.schedule(event, EventPriority(-1))
            return
        if not event._ok and not hasattr(event, "_defused"):
            # a failed event nobody defused: raise a copy of its exception, as SimPy does
            exc = type(event._value)(*event._value.args)
            exc.__cause__ = event._value
            raise exc
