"""Scenarios and shorthands shared by the tests that run a whole restart, in process or through the CLI."""

import subprocess
import sys

from ndbsim import simulate

BASE = "scenarios/dbt2-600wh-7.6.6.yaml"
LEGACY = "scenarios/dbt2-600wh-7.5.10.yaml"


def phases(result, node=None):
    return result.phases(node)


def sim(path=None, *sets, **kw):
    return simulate(path, overrides=list(sets), **kw)


def ndbsim(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ndbsim", *args], capture_output=True, text=True, cwd=cwd)


KNOWN_GAPS = {"lab-2node-7.5.4-tiny"}
"""Validation cases the model does not explain: the file requests NDB's source makes per fragment, at a
physical disk latency, give the 66 s lab restart of reference §9 about 16 s (README, fixed costs;
docs/restart-physics.md)."""
