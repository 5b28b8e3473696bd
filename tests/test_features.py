"""Features: a mechanism runs only when the release has it AND config.ini switches it on."""

from dataclasses import replace

import pytest

from ndbsim.features import features_of
from ndbsim.profiles import profile_for


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
