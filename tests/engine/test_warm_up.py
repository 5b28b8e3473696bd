"""The warm-up's LCPs before the crash are run by arithmetic where nothing else can touch them:
the same results, bit for bit, as simulating them, for fewer events."""

import pytest
from _helpers import lcp_outputs

CASES = [
    ("default: a burst on an idle cluster", None, []),
    ("7.5: full LCPs under a steady load", "scenarios/dbt2-600wh-7.5.10.yaml", ["workload.updates_per_s=20000"]),
    ("5.1: DiskCheckpointSpeed", "scenarios/mysql51-1gb-onr-2000ups.yaml", []),
    ("8.0 rolling restart under load", "scenarios/rolling-4-nodes-8.0.yaml", []),
    (
        "a burst after the base load",
        "scenarios/dbt2-600wh-7.6.6.yaml",
        ["workload.updates_per_s=3000", "workload.before_restart={duration: 900s, inserts_per_s: 20000}"],
    ),
    (
        "EnableRedoControl re-capping the warm-up's LCPs",
        "scenarios/rolling-4-nodes-8.0.yaml",
        [
            "restart.type=node",
            "cluster.config.MaxDiskWriteSpeed=2M",
            "cluster.config.NoOfFragmentLogFiles=4",
            "cluster.config.FragmentLogFileSize=20M",
            "workload.updates_per_s=100000",
        ],
    ),
    ("crash at the start of the cycle", None, ["simulation.lcp_phase=0", "workload.updates_per_s=5000"]),
]


def outputs(root, path, sets):
    """By arithmetic, then every LCP simulated: neither the warm-up's nor the next one computed."""
    return lcp_outputs(root, path, sets, ("_fast_forward", "_ahead"), replications=3, seed=7)


@pytest.mark.parametrize("name,path,sets", CASES, ids=[c[0] for c in CASES])
def test_the_warm_up_by_arithmetic_changes_no_output(root, name, path, sets):
    (fast_events, fast), (slow_events, slow) = outputs(root, path, sets)
    assert fast == slow
    assert fast_events <= slow_events


def test_the_default_restart_simulates_no_warm_up_cycle(root):
    (fast_events, fast), (slow_events, _) = outputs(root, None, [])
    assert fast["checkpoint"]["lcps_simulated"] >= 8  # the burst's LCPs still count
    # a simulated LCP costs at least three events: the sleep to its trigger, the end of its
    # writes and its table descriptions; the eight of the burst cost none
    assert fast_events <= slow_events - 3 * 8
