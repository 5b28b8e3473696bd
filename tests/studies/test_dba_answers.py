"""Answers a DBA can act on: every answer solve and advise print agrees with the run they print as
its check (no warning of that run contradicts it), on the quantile asked for, naming nodes by
NodeId, and with no lever NDB ignores (issue 41, items 1-4, 6, 9 and 11)."""

from __future__ import annotations

import pytest
from _helpers import ndbsim as cli
from conftest import ROOT

from ndbsim.errors import InputError
from ndbsim.models.levers import Candidate, Lever
from ndbsim.studies.advise.study import _combination, _ranked
from ndbsim.studies.runs import evaluate
from ndbsim.studies.solve import solve

THREE = str(ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml")
SMALL_THREADS = "main={count=1},rep={count=1},recv={count=1},send={count=1},tc={count=1},ldm={count=1}"


def _raw(path, *sets):
    from ndbsim.input import scenario as sc

    raw, _ = sc.raw_from(path)
    for a in sets:
        sc.set_override(raw, a)
    return raw


def test_the_best_combination_never_sets_a_thread_config_that_automatic_thread_config_overrides():
    """ThreadConfig ranked first, AutomaticThreadConfig=true after it: the run with both is faster
    (NDB sizes the threads from the CPUs and ignores the ThreadConfig), so the greedy used to keep
    both. NDB ignores ThreadConfig there (manual: AutomaticThreadConfig "overrides any settings for
    ThreadConfig and MaxNoOfExecutionThreads"), so the combination keeps the ThreadConfig alone."""
    raw = _raw(THREE)
    base = evaluate(raw, (), 1, 1)
    tc = (f"cluster.config.ThreadConfig={SMALL_THREADS}",)
    auto = ("cluster.config.AutomaticThreadConfig=true",)
    first = evaluate(raw, tc, 1, 1)
    assert evaluate(raw, (*tc, *auto), 1, 1).median < first.median  # what made the greedy take both
    rows = [
        {"lever": "ThreadConfig", "sets": tc, "saving_secs": 1.0, "added_flag": ""},
        {"lever": "AutomaticThreadConfig", "sets": auto, "saving_secs": 0.5, "added_flag": ""},
    ]
    combo, levers = _combination(raw, base, rows, first, 1, 1)
    assert levers == ["ThreadConfig"] and combo is first


def test_a_lever_ndb_ignores_is_never_ranked():
    """On a cluster with AutomaticThreadConfig=true a ThreadConfig candidate changes nothing NDB
    reads: it is no row of the table."""
    raw = _raw(THREE, "cluster.config.AutomaticThreadConfig=true")
    base = evaluate(raw, (), 1, 1)
    cand = Candidate("ThreadConfig", "ldm 1", (f"cluster.config.ThreadConfig={SMALL_THREADS}",))
    rows = _ranked([Lever("ThreadConfig", "config", "ldm 8", (cand,))], [cand], [evaluate(raw, cand.sets, 1, 1)], base)
    assert rows == []


def test_run_warns_when_automatic_thread_config_overrides_a_thread_config():
    p = cli("run", THREE, "-n", "1", "--set", "cluster.config.AutomaticThreadConfig=true")
    assert p.returncode == 0, p.stderr
    assert "ThreadConfig: ignored, as AutomaticThreadConfig=true is set" in p.stderr
    p = cli("run", THREE, "-n", "1")
    assert "ignored, as" not in p.stderr


def test_compare_names_an_explicit_plan_by_node_id():
    """The plan a side runs is shown as the user wrote it, in NodeIds (21-23, 31-33), never in the
    engine's 1..N indices."""
    plan = "restart.plan=[[21, 22, 31, 32], [23, 33]]"
    p = cli("compare", THREE, "-n", "1", "--set", "restart.type=rolling", "--set", plan)
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.strip().startswith("restart.plan:"))
    assert line.strip().endswith("B [[21, 22, 31, 32], [23, 33]]"), line
