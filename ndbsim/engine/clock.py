"""SimPy's private attributes, read in one place.

``Environment.now`` and ``Event.value`` are properties, and ``value`` checks that the event has
fired on every read; the engine reads the clock and finished flows' end times in its hottest
loops (every reallocation of the fluid system, every LCP of the DIH loop), so it reads the
attributes behind them directly. They are SimPy 4's private names: a SimPy upgrade that
renames them breaks this module and ``engine/fluid/system.py``.

``engine/fluid/system.py`` is the one exception: it reads ``env._now`` itself, inline, in the
reallocation loop, where the extra call through ``now()`` was measured to cost run time.
"""

from __future__ import annotations

from typing import Any

import simpy
from simpy.events import Event


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
