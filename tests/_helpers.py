"""Scenarios and shorthands shared by the tests that run a whole restart."""

import ndbsim

BASE = "scenarios/dbt2-600wh-7.6.6.yaml"
LEGACY = "scenarios/dbt2-600wh-7.5.10.yaml"


def phases(result, node=None):
    return result.phases(node)


def sim(path=None, *sets, **kw):
    return ndbsim.simulate(path, overrides=list(sets), **kw)
