"""LCPs computed ahead while the cycle converges: the same outputs, bit for bit, as simulating
them, for fewer events."""

import pytest
from _helpers import lcp_outputs

LOADED_ROLLING = [
    "version=8.0.30",
    "restart.type=rolling",
    "restart.nodes=null",
    "cluster.data_nodes=4",
    "data.rows=null",
    "cluster.config.NoOfFragmentLogFiles=1000",
    "workload.updates_per_s=1000000",
    "workload.during_restart=null",
]

CASES = [
    ("copy beside squeezed LCPs, 500 GB", None, [*LOADED_ROLLING, "data.size=500GB", "cluster.config.DataMemory=600G"]),
    ("copy beside squeezed LCPs, 16 TB", None, [*LOADED_ROLLING, "data.size=16TB", "cluster.config.DataMemory=16T"]),
    ("8.0 rolling restart under load", "scenarios/rolling-4-nodes-8.0.yaml", []),
    (
        "EnableRedoControl alarms during the LCPs",
        "scenarios/rolling-4-nodes-8.0.yaml",
        [
            "restart.type=node",
            "cluster.config.MaxDiskWriteSpeed=2M",
            "cluster.config.NoOfFragmentLogFiles=4",
            "cluster.config.FragmentLogFileSize=20M",
            "workload.updates_per_s=100000",
            "restart.downtime=6h",
        ],
    ),
    (
        "7.6 under load through a 2 h downtime",
        "scenarios/dbt2-600wh-7.6.6.yaml",
        ["workload.updates_per_s=10000", "workload.during_restart.updates_per_s=10000", "restart.downtime=2h"],
    ),
]


def outputs(root, path, sets):
    """With the LCPs computed ahead, then without."""
    return lcp_outputs(root, path, sets, ("_ahead",), replications=2, seed=5)


@pytest.mark.parametrize("name,path,sets", CASES, ids=[c[0] for c in CASES])
def test_lcps_computed_ahead_change_no_output(root, name, path, sets):
    (fast_events, fast), (slow_events, slow) = outputs(root, path, sets)
    assert fast == slow
    assert fast_events <= slow_events


def test_a_copy_step_costs_no_simulated_cycles_while_the_lcp_converges(root):
    # At 16 TB each of the copy's steps moves what the copy leaves the live node's LCP; its
    # cycle then takes some fifteen cycles to be identical again, computed ahead instead of
    # simulated (about eight events each).
    sets = [*LOADED_ROLLING, "data.size=16TB", "cluster.config.DataMemory=16T"]
    (fast_events, fast), (slow_events, _) = outputs(root, None, sets)
    assert fast["checkpoint"]["lcps_simulated"] > 250  # DIH holds some starts for the restarting nodes
    assert fast_events < slow_events / 3
