"""The why names the resource that binds in the fluid solution: which node (by NodeId) and whether
its disk reads or writes, and the figures in its sentences are the run's own."""

import json
import re

from _helpers import BASE, ndbsim

INITIAL_900G = (
    "--set", "version=8.4.3", "--set", "restart.type=initial", "--set", "data.disk_data_size=900G",
    "--set", "cluster.node_ids=[101, 144]", "--set", "restart.nodes=[144]",
)  # fmt: skip
"""An initial restart of NodeId 144 with 900G of disk data, copied from NodeId 101."""


def _copy(*sets):
    out = ndbsim("run", BASE, *INITIAL_900G, *sets, "-f", "json")
    assert out.returncode == 0, out.stderr
    node = json.loads(out.stdout)["nodes"][0]
    return node["phases"]["secs_to_synchronize_starting_node"], node["why"]["secs_to_synchronize_starting_node"]


def test_a_copy_bound_by_the_starting_nodes_disk_writes_says_disk_write():
    secs, why = _copy("--set", "host.disk_write=100M")
    assert why["bottleneck"] == "disk write (node 144)"
    # the label is the lever: faster writes shorten the copy, faster reads do not
    faster_write, _ = _copy("--set", "host.disk_write=200M")
    faster_read, _ = _copy("--set", "host.disk_write=100M", "--set", "host.disk_read=4G")
    assert faster_write < 0.6 * secs
    assert abs(faster_read - secs) < 0.01 * secs


def test_restore_file_setup_bound_by_disk_latency_is_labelled_so():
    """With 10 ms a file request, the restore's synchronous LCP file requests (two control files,
    then every data file of the fragment's part pairs, one fragment at a time per restoring thread)
    take most of the phase: the why names the disk latency, not the LDM threads."""
    out = ndbsim("run", "tests/data/three-replicas-8.4.3.yaml", "--set", "host.disk_latency=10ms", "-f", "json")
    assert out.returncode == 0, out.stderr
    node = json.loads(out.stdout)["nodes"][0]
    why = node["why"]["secs_restore_fragments"]
    f = why["figures"]
    assert f["file_setup_secs"] > 0.5 * node["phases"]["secs_restore_fragments"]
    assert why["bottleneck"] == f"disk latency (LCP file requests, node {node['node_id']})"
    # a restore reads at most the 2048 part pairs of a control file (Restore.cpp, m_num_files)
    assert 1 <= f["data_files_per_fragment"] <= 2048
    assert f["file_requests_per_fragment"] == 6 + 3 * f["data_files_per_fragment"]


def test_the_whys_lcp_sentence_quotes_the_lcp_speed_the_run_prints():
    """The LCP wait's why says the speed the live LCPs were written at as the run's checkpoint line
    prints it (the speed they were set to), and no figure that counts the GCP wait and the file work
    of the LCP's span as writing time."""
    for scenario in ("tests/data/three-replicas-8.4.3.yaml", "scenarios/rolling-4-nodes-8.0.yaml"):
        out = ndbsim("run", scenario, "--why")
        assert out.returncode == 0, out.stderr
        printed = re.search(r"LCPs under the base load: .*\(at ([0-9.]+[KMG]/s), plus the row scan", out.stdout)
        assert printed, out.stdout
        # every node whose wait the live LCPs' speed set says so (a node that waits for a distributed
        # LCP instead says that); at least one node of each scenario does
        lines = out.stdout.splitlines()  # a why's figures are on the line under it
        whys = [x + " " + lines[i + 1] for i, x in enumerate(lines) if x.startswith("  secs_wait_lcp_for_restart")]
        speed_whys = [x for x in whys if "the live LCPs were" in x]
        assert speed_whys, whys
        for why in speed_whys:
            assert f"set to write at MaxDiskWriteSpeed ({printed.group(1)})" in why, why
            assert "row scan" in why and "the node's CPU and disk" not in why
            # the figure beside it is the bytes over the seconds the LCP wrote, at most the set speed
            speed = re.search(r"restored_lcp_write_speed=([0-9.]+)M/s", why)
            assert speed and float(speed.group(1)) <= float(printed.group(1)[:-3])
        assert not any("the node's CPU and disk" in x for x in whys)
