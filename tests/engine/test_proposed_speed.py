"""EnableRedoControl's proposed LCP write speed: from the changes, with Backup.cpp's margin."""

from __future__ import annotations

import pytest

from ndbsim.engine.lcp.checkpoint import PartialLcp
from ndbsim.engine.lcp.proposed_speed import PROPOSAL_MARGIN, proposing_cycle
from ndbsim.engine.workload import Changes

DATA, ROWS, OVERHEAD = 60 * 2**30, 300e6, 5.0
CONFIGURED, DISK = 20 * 2**20, 900e6


def cycle(updates: float, configured: float = CONFIGURED):
    policy = PartialLcp(60, 40, 9)
    return proposing_cycle(policy, DATA, ROWS, Changes(updates, 0, 0, updates * 200), configured, DISK, OVERHEAD, 0.1)


def test_light_changes_keep_the_configured_speed():
    _, _, speed = cycle(1_000)
    assert speed == CONFIGURED


def test_heavy_changes_propose_more_and_settle_at_five_overheads():
    rec, period, speed = cycle(200_000)
    assert speed > CONFIGURED
    assert period == pytest.approx(OVERHEAD * PROPOSAL_MARGIN / (PROPOSAL_MARGIN - 1), rel=1e-3)
    assert speed == pytest.approx(PROPOSAL_MARGIN * rec.bytes / period, rel=1e-6)


def test_more_changes_never_propose_less_and_a_lower_maximum_changes_nothing_once_proposed():
    speeds = [cycle(u)[2] for u in (1e3, 1e4, 1e5, 1e6)]
    assert speeds == sorted(speeds)
    assert cycle(1e6, 8 * 2**20)[2] == pytest.approx(cycle(1e6, 12 * 2**20)[2])


def test_the_disk_caps_the_proposal():
    assert cycle(1e8)[2] == DISK
