"""Cliff warnings: a setting one step from a much slower phase says so."""

from __future__ import annotations

from ndbsim.engine.cliffs import cliff_warnings

CFG = {"BuildIndexThreads": 128, "MaxParallelCopyInstances": 0, "TwoPassInitialNodeRestartCopy": True}


def warn(kind="node", indexes=True, two_pass=True, **cfg):
    return cliff_warnings({**CFG, **cfg}, kind, 8, 16, indexes, two_pass)


def test_defaults_sit_on_no_cliff():
    assert warn() == [] and warn(BuildIndexThreads=0) == [] and warn("initial") == []


def test_a_single_index_build_thread_is_a_cliff():
    (w,) = warn(BuildIndexThreads=1)
    assert "BuildIndexThreads=1" in w and "8×" in w
    assert warn(BuildIndexThreads=1, indexes=False) == []


def test_one_copy_instance_is_a_cliff_except_in_a_system_restart():
    assert any("MaxParallelCopyInstances=1" in w for w in warn(MaxParallelCopyInstances=1))
    assert warn("system", MaxParallelCopyInstances=1) == []


def test_a_one_pass_initial_copy_is_a_cliff_where_two_passes_exist():
    assert any("TwoPassInitialNodeRestartCopy" in w for w in warn("initial", TwoPassInitialNodeRestartCopy=False))
    assert warn("initial", two_pass=False, TwoPassInitialNodeRestartCopy=False) == []
