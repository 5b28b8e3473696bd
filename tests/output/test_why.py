"""The why of every phase (run --why, JSON nodes[].why): from what the engine simulated."""

import json

from _helpers import BASE, ndbsim

DEFAULTS_76 = "scenarios/dbt2-600wh-7.6-defaults.yaml"


def _why(*args):
    out = ndbsim("run", *args, "-f", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["nodes"][0]["why"]


def test_every_phase_that_took_time_has_a_why_with_figures():
    out = ndbsim("run", BASE, "-f", "json")
    node = json.loads(out.stdout)["nodes"][0]
    for phase, secs in node["phases"].items():
        if secs > 0:
            why = node["why"][phase]
            assert why["bottleneck"] and why["quantity"], phase
            assert why["figures"], phase


def test_flow_phases_add_up_the_seconds_each_constraint_bound_them():
    node = json.loads(ndbsim("run", BASE, "-f", "json").stdout)["nodes"][0]
    for phase in ("secs_exec_redo_log", "secs_index_rebuild"):
        bound = node["why"][phase]["bound_secs"]
        assert abs(sum(bound.values()) - node["phases"][phase]) < 0.01 * node["phases"][phase]


def test_the_lcp_wait_says_which_quantity_shrank_and_which_mechanism_shrank_it():
    old = _why(DEFAULTS_76)["secs_wait_lcp_for_restart"]
    new = _why(DEFAULTS_76, "--set", "version=8.0.35")["secs_wait_lcp_for_restart"]
    # the local LCP writes the changes since the node's newest LCP: far fewer on 8.0.35 ...
    assert new["figures"]["local_lcp_bytes"] < 0.1 * old["figures"]["local_lcp_bytes"]
    assert new["figures"]["restored_lcp_age_at_crash_secs"] < 0.1 * old["figures"]["restored_lcp_age_at_crash_secs"]
    # ... because EnableRedoControl wrote the live LCPs faster than MaxDiskWriteSpeed
    assert "EnableRedoControl" in new["mechanism"] and "EnableRedoControl" not in old["mechanism"]
    assert new["figures"]["restored_lcp_write_speed"] > 1.5 * old["figures"]["restored_lcp_write_speed"]


def test_a_slower_disk_moves_the_restore_bottleneck_to_the_disk():
    fast = _why(BASE)["secs_restore_fragments"]
    slow = _why(BASE, "--set", "host.disk_read=100MB/s")["secs_restore_fragments"]
    assert "CPU" in fast["bottleneck"]
    assert slow["bottleneck"].startswith("disk read")


def test_run_why_prints_the_whys_under_the_table():
    out = ndbsim("run", BASE, "--why")
    assert out.returncode == 0, out.stderr
    assert "why each phase took its time" in out.stdout
    lines = out.stdout.splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith("  secs_wait_lcp_for_restart"))
    assert "MaxDiskWriteSpeed" in lines[i] and lines[i + 1].lstrip().startswith("(local_lcp_bytes=")


def test_a_live_lcp_below_the_cap_is_not_said_to_write_at_maxdiskwritespeed():
    """MaxDiskWriteSpeed is the cap of the adaptive LCP speed: an LCP that wrote below it is named
    with its speed and what held it back, never as 'at MaxDiskWriteSpeed'."""
    capped = _why(BASE)["secs_wait_lcp_for_restart"]
    assert "wrote at MaxDiskWriteSpeed (20.0M/s)" in capped["mechanism"]
    below = _why(BASE, "--set", "cluster.config.MaxDiskWriteSpeed=400M")["secs_wait_lcp_for_restart"]
    written = below["figures"]["restored_lcp_write_speed"]
    assert written < 0.9 * 400 * 2**20
    # set to 400M/s, the LCP's row scan held it below: said with both speeds and the cause
    assert "set to write at MaxDiskWriteSpeed (400.0M/s)" in below["mechanism"]
    held = f"every row for changed GCIs) held them to {written / 2**20:.1f}M/s while they wrote"
    assert "row scan on the LDM threads" in below["mechanism"] and held in below["mechanism"]
    assert "wrote at MaxDiskWriteSpeed" not in below["mechanism"]
