"""Features: a mechanism runs only when the release has it AND config.ini switches it on."""

from dataclasses import replace

import pytest
from _helpers import sim

from ndbsim.input.features import features_of
from ndbsim.input.profiles import profile_for


def features(version, **config):
    profile = profile_for(version)
    return features_of(profile.mechanisms, {**profile.defaults, **config})


def test_redo_control_needs_the_release_and_the_switch():
    assert features("8.0.35", EnableRedoControl=True).redo_control
    assert not features("8.0.35", EnableRedoControl=False).redo_control
    assert features("8.0.35", EnableRedoControl=False).redo_control_available
    # 7.6.6 predates EnableRedoControl (7.6.7): the switch alone does nothing
    assert not features("7.6.6", EnableRedoControl=True).redo_control
    assert not features("7.6.6", EnableRedoControl=True).redo_control_available


def test_partial_lcp_and_what_depends_on_it():
    on = features("7.6.6", EnablePartialLcp=True)
    off = features("7.6.6", EnablePartialLcp=False)
    assert on.partial_lcp and on.local_lcp_at_restart_end
    assert not off.partial_lcp and not off.local_lcp_at_restart_end
    assert not features("7.5.10", EnablePartialLcp=True).partial_lcp


@pytest.mark.parametrize(("version", "expected"), [("7.6.6", True), ("7.5.10", False)])
def test_two_pass_copy_needs_a_release_with_the_partial_lcp(version, expected):
    assert features(version, TwoPassInitialNodeRestartCopy=True).two_pass_copy is expected
    assert not features(version, TwoPassInitialNodeRestartCopy=False).two_pass_copy


def test_features_are_frozen():
    f = features("8.0.35")
    with pytest.raises(AttributeError):
        f.redo_control = True  # type: ignore[misc]
    assert replace(f, redo_control=not f.redo_control) != f


def test_parameters_a_release_does_not_have_are_ignored_with_a_warning():
    """EnableRedoControl came with 7.6.7 and DiskCheckpointSpeed left with 7.4: set on a release
    without them they change nothing, and the run says so."""
    load = (
        "version=7.6.6",
        "workload.before_restart=null",
        "workload.updates_per_s=35000",
        "cluster.config.NoOfFragmentLogFiles=16",
        "cluster.config.FragmentLogFileSize=64M",
    )
    plain = sim(None, *load)
    odd = sim(None, *load, "cluster.config.EnableRedoControl=true", "cluster.config.DiskCheckpointSpeed=1G")
    assert odd.total_restart_secs == plain.total_restart_secs
    assert odd.first.checkpoint == plain.first.checkpoint
    assert any("DiskCheckpointSpeed, EnableRedoControl: not parameters of NDB 7.6.6" in w for w in odd.warnings)
    assert not plain.warnings or not any("not a parameter" in w for w in plain.warnings)
    later = sim(None, *load, "version=7.6.7", "cluster.config.EnableRedoControl=true")
    assert later.first.checkpoint["lcp_write_speed"] > plain.first.checkpoint["lcp_write_speed"]


def test_release_lines_get_their_own_mechanisms():
    from ndbsim.input.profiles import profile_for

    def mech(version):
        return profile_for(version).mechanisms

    assert not mech("6.3.28").multithreaded and mech("7.0.9").multithreaded
    assert mech("7.1.10").redo_lcps_kept == 3 and mech("7.2.10").redo_lcps_kept == 2
    assert not mech("7.6.4").insert_recovery_work and mech("7.6.5").insert_recovery_work
