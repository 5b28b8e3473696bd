"""``ndbsim eta``: how long a restart still takes, from snapshots of the cluster's own ndbinfo.

Open ``session`` first: one snapshot read, checked against the scenario and its earlier
snapshots, the host figures refitted (``refit``) and what is left simulated (``predict``). The
parts: ``progress`` (where the restart stands in a snapshot), ``report`` (text and JSON),
``watch`` (the ``mysql`` client run every interval).
"""
