"""Shared bandwidth as a fluid: flows of work share the hosts' resources max-min fairly.

Open ``system`` first (``FluidSystem``: resources, flows and the events where rates change);
``flow`` is one flow, ``max_min`` the fair-share rates, ``bound`` which constraint binds a tracked flow.
"""
