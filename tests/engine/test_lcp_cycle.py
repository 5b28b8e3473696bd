"""The LCP cycle: full or partial by release, its speed, its length, and the wait for it at the end of a restart."""

from _helpers import LEGACY, phases, sim


def test_partial_lcp_restores_more_but_waits_far_less(root):
    full = phases(sim(root / LEGACY))
    part = phases(sim(root / LEGACY, "version=7.6.6"))
    assert part["secs_restore_fragments"] > full["secs_restore_fragments"]
    assert part["secs_wait_lcp_for_restart"] < 0.5 * full["secs_wait_lcp_for_restart"]


def test_full_lcp_wait_is_between_one_and_two_lcps(root):
    r = sim(root / LEGACY, replications=30)
    cfg = r.scenario["cluster"]["config"]
    lcp = r.scenario["data"]["size"] / cfg["MaxDiskWriteSpeedOtherNodeRestart"]  # the LCP during a restart
    waits = [sum(b - a for p, a, b in rep.nodes[0].spans if p == "secs_wait_lcp_for_restart") for rep in r.replications]
    assert min(waits) > 0.8 * lcp
    assert max(waits) < 2.3 * lcp
    assert max(waits) - min(waits) > 0.3 * lcp  # the landing point in the LCP cycle is random


def test_partial_lcp_starts_with_764():
    policy = {v: sim(None, f"version={v}").first.checkpoint["policy"] for v in ("7.6.3", "7.6.4", "8.0.35")}
    assert policy == {"7.6.3": "full", "7.6.4": "partial", "8.0.35": "partial"}


def test_insert_recovery_work_counts_from_765():
    def lcp_bytes(version, irw):
        return sim(
            None, f"version={version}", "workload.inserts_per_s=20000", f"cluster.config.InsertRecoveryWork={irw}"
        ).first.checkpoint["lcp_bytes"]

    assert lcp_bytes("7.6.4", 0) == lcp_bytes("7.6.4", 70)  # inserts count in full before 7.6.5
    assert lcp_bytes("7.6.6", 0) < lcp_bytes("7.6.6", 70)


def test_the_steady_lcp_cannot_write_faster_than_the_disk():
    """MaxDiskWriteSpeed above what the disk writes beside the REDO: the steady cycle runs at the
    disk's speed, and error 410's advice names the disk, not the speed parameter."""
    load = ("version=7.5.10", "host.disk_write=10MB/s", "workload.updates_per_s=5000", "workload.before_restart=null")
    r = sim(None, *load)
    cp = r.first.checkpoint
    assert cp["lcp_write_speed"] < 10e6
    assert cp["lcp_cycle_secs"] > 60e9 / 10e6  # 60 GB at under 10 MB/s
    small = sim(None, *load, "cluster.config.NoOfFragmentLogFiles=16")
    assert small.status == "redo-overload" and "faster disk (host.disk_write)" in small.reason
