"""Issue 24's cluster through the command line: one management node, 4 data nodes (NodeIds 11–14,
2 node groups) on AutomaticThreadConfig with NumCPUs=16, 2 mysqld. The release is never assumed,
NDB's thread layout is stated per node, config.ini is read as NDB reads it, and advise tries the
thread levers."""

import json
import re

import pytest
from _helpers import ndbsim

from ndbsim.input.config import ndb_params

CONFIG_INI = """\
# issue 24: a typical 8.0 cluster
[ndbd default]
NoOfReplicas=2
DataMemory=64G
AutomaticThreadConfig=1
NumCPUs=16
NoOfFragmentLogParts=8
NoOfFragmentLogFiles=32
FragmentLogFileSize=1G
DataDir=/var/lib/mysql-cluster

[ndb_mgmd]
NodeId=1
HostName=mgm1
DataDir=/var/lib/mysql-cluster

[ndbd]
NodeId=11
HostName=dn1
NodeGroup=0

[ndbd]
NodeId=12
HostName=dn2
NodeGroup=0

[ndbd]
NodeId=13
HostName=dn3
NodeGroup=1

[ndbd]
NodeId=14
HostName=dn4
NodeGroup=1

[mysqld]
NodeId=51
HostName=sql1

[mysqld]
NodeId=52
HostName=sql2
"""

AUTO_16 = "4 LDM, 4 query, 4 recover, 2 tc, 1 main, 1 rep, 1 send, 1 recv threads (AutomaticThreadConfig, NumCPUs=16)"
"""thr_config.cpp's automatic layout for NumCPUs=16 (reference §11: 15 CPUs used -> 4 ldm, 4 query, 2 tc, 1 send,
1 recv; 16 - 8 = 8 recover in all, 4 of them recover-only)."""


@pytest.fixture
def ini(tmp_path):
    p = tmp_path / "config.ini"
    p.write_text(CONFIG_INI)
    return p


def one_line_error(p, *needles):
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr
    for n in needles:
        assert n in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_the_release_is_never_assumed(ini, tmp_path):
    for cmd in ("run", "init"):
        p = ndbsim(cmd, "--config-ini", str(ini))
        one_line_error(p, "--version", "8.0", "8.4", "7.6")
    p = ndbsim("params", "--config-ini", str(ini))
    one_line_error(p, "--version")


@pytest.mark.parametrize("release", ["8.0.35", "8.4.3"])
def test_the_cluster_runs_with_its_thread_layout_in_header_and_json(ini, release):
    table = ndbsim("run", "--config-ini", str(ini), "--version", release, "--set", "data.size=20G")
    assert table.returncode == 0, table.stderr
    assert f"simulated: NDB {release} (release from --version" in table.stdout
    assert f"threads per data node: {AUTO_16}" in table.stdout
    assert "NodeIds 11, 12, 13, 14" in table.stdout
    p = ndbsim("run", "--config-ini", str(ini), "--version", release, "--set", "data.size=20G", "-f", "json")
    d = json.loads(p.stdout)
    t = d["simulated"]["threads"]
    assert (t["ldm"], t["query"], t["recover"], t["tc"], t["send"], t["recv"]) == (4, 4, 4, 2, 1, 1)
    assert t["source"] == "AutomaticThreadConfig, NumCPUs=16" and t["restore_threads"] == 12
    assert d["simulated"]["version_from"] == "--version"
    (node,) = d["nodes"]
    assert node["node_id"] == 14 and node["release"] == release and node["release_from"] == "--version"
    assert node["threads"]["ldm"] == 4 and node["threads"]["query"] == 4 and node["threads"]["recover"] == 4


def test_init_writes_the_cluster_on_its_release(ini, tmp_path):
    out = tmp_path / "my.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "8.0.35", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert 'version: "8.0.35"' in text and "node_ids: [11, 12, 13, 14]" in text
    run = ndbsim("run", str(out), "--set", "data.size=20G")
    assert run.returncode == 0, run.stderr
    assert AUTO_16 in run.stdout


def test_params_prints_the_layout_ndb_starts_with(ini):
    p = ndbsim("params", "--config-ini", str(ini), "--version", "8.0.35")
    assert p.returncode == 0, p.stderr
    assert AUTO_16 in p.stdout
    assert "restore threads (LDM + query + recover): 12" in p.stdout
    old = ndbsim("params", "--config-ini", str(ini), "--version", "7.6.30")
    assert old.returncode != 0 or "AutomaticThreadConfig" in old.stdout


UPGRADE = """\
name: 7.6 to 8.0 rolling upgrade on AutomaticThreadConfig
version: "7.6.30"
cluster:
  data_nodes: 4
  node_ids: [11, 12, 13, 14]
  config: {NoOfReplicas: 2, DataMemory: 16G, MaxNoOfExecutionThreads: 8, AutomaticThreadConfig: true, NumCPUs: 16}
host: {cpu_cores: 8, threads_per_core: 2}
data: {size: 8G}
restart: {type: rolling, upgrade_to: "8.0.35"}
"""


def test_an_upgrade_shows_each_nodes_release_and_layout(tmp_path):
    f = tmp_path / "up.yaml"
    f.write_text(UPGRADE)
    p = ndbsim("run", str(f), "-f", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["simulated"]["threads"]["source"] == "MaxNoOfExecutionThreads=8"  # 7.6 has no AutomaticThreadConfig
    assert d["simulated"]["upgrade_to"] == "8.0.35"
    assert d["simulated"]["upgrade_threads"]["source"] == "AutomaticThreadConfig, NumCPUs=16"
    assert sorted(n["node_id"] for n in d["nodes"]) == [11, 12, 13, 14]
    for n in d["nodes"]:
        assert n["release"] == "8.0.35" and n["release_from"] == "restart.upgrade_to"
        assert (n["threads"]["ldm"], n["threads"]["query"]) == (4, 4)
    warned = " ".join(d["warnings"])
    assert (
        "the nodes still on 7.6.30 ignore" in warned
        and "ignored (" not in warned.split("AutomaticThreadConfig")[1][:40]
    )


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (
            ("NoOfFragmentLogFiles=32", "NoOfFragmentLogFile=32"),
            ("NoOfFragmentLogFile", "did you mean 'NoOfFragmentLogFiles'"),
        ),
        (("DataMemory=64G", "DataMemory=64GiB"), ("DataMemory", "'64GiB'", "write 64G")),
        (("DataMemory=64G", "DataMemory=64g"), ("DataMemory", "'64g'")),
        (("DataMemory=64G", "DataMemory=64 GB"), ("DataMemory", "'64 GB'")),
        (("AutomaticThreadConfig=1", "AutomaticThreadConfig=on"), ("AutomaticThreadConfig", "'on'")),
        (("[ndbd default]", "[ndbd defualt]"), ("ndbd defualt",)),
    ],
    ids=["typo", "GiB", "lower-g", "spaced-GB", "bool-on", "section"],
)
def test_a_config_ini_ndb_refuses_is_refused(ini, edit, needles):
    ini.write_text(CONFIG_INI.replace(*edit))
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35")
    one_line_error(p, *needles)


def test_ndb_number_syntax_is_read_as_ndb_reads_it(ini):
    ini.write_text(
        CONFIG_INI.replace("DataMemory=64G", "DataMemory=65536M").replace(
            "NoOfFragmentLogFiles=32", "NoOfFragmentLogFiles=32"
        )
    )
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35", "--set", "data.size=10G", "-f", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["simulated"]["data"]["DataMemory"] == 64 * 2**30


def test_every_unused_parameter_is_listed_with_its_effect_on_a_restart(ini):
    names = sorted(ndb_params.IMPACT)
    ini.write_text(CONFIG_INI.replace("[ndb_mgmd]", "\n".join(f"{n}=1" for n in names) + "\n[ndb_mgmd]"))
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35", "--set", "data.size=10G")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if "config.ini: " in ln and " is not simulated: " in ln]
    listed = {ln.split("config.ini: ", 1)[1].split(" is not simulated", 1)[0] for ln in lines}
    assert listed == {n for n in names if ndb_params.can_change_restart(n)}
    (quiet,) = [ln for ln in p.stderr.splitlines() if "not simulated, and cannot change a restart: " in ln]
    in_line = set(re.findall(r"[A-Za-z_]\w+", quiet.split("cannot change a restart: ", 1)[1]))
    assert {n for n in names if not ndb_params.can_change_restart(n)} <= in_line
    assert "…" not in "".join(lines)
    odirect = next(ln for ln in lines if "config.ini: ODirect " in ln)
    assert "known limit" in odirect


ADVISE = """\
name: issue 24 cluster on MaxNoOfExecutionThreads=16
version: "8.0.35"
cluster:
  data_nodes: 4
  node_ids: [11, 12, 13, 14]
  config: {NoOfReplicas: 2, DataMemory: 64G, MaxNoOfExecutionThreads: 16, NoOfFragmentLogParts: 8,
           NoOfFragmentLogFiles: 32, FragmentLogFileSize: 1G}
host: {cpu_cores: 16, threads_per_core: 2}
data: {size: 20G}
workload: {updates_per_s: 20000}
"""


def test_advise_tries_thread_levers_and_never_recommends_an_oversubscribed_host(tmp_path):
    f = tmp_path / "mx16.yaml"
    f.write_text(ADVISE)
    p = ndbsim(
        "advise", str(f), "-n", "2", "-f", "json", "-w", "1",
        "--lever", "AutomaticThreadConfig", "--lever", "MaxNoOfExecutionThreads",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    rows = {r["lever"]: r for r in d["levers"]}
    assert rows["AutomaticThreadConfig"]["value"] == "true" and rows["AutomaticThreadConfig"]["saving_secs"] > 0
    mx = rows["MaxNoOfExecutionThreads"]
    assert "72: oversubscribed" in mx["flagged"] or mx["flag"] == "oversubscribed"
    assert mx["value"] != "72" or mx["flag"]
    combo = d["combination"]
    assert combo is not None and not any("=72" in s for s in combo["set"])
    assert d["levers"][0]["flag"] == ""


def test_ndbsim_run_warns_about_the_layout_advise_flags(tmp_path):
    f = tmp_path / "mx72.yaml"
    f.write_text(ADVISE.replace("MaxNoOfExecutionThreads: 16", "MaxNoOfExecutionThreads: 72"))
    p = ndbsim("run", str(f))
    assert p.returncode == 0, p.stderr
    assert "hardware threads" in p.stderr


def test_advise_tries_the_ldm_count_of_a_thread_config_the_cluster_uses(tmp_path):
    f = tmp_path / "tc.yaml"
    f.write_text(
        ADVISE.replace("MaxNoOfExecutionThreads: 16", "ThreadConfig: 'ldm={count=4},main,rep,recv,tc={count=2}'")
    )
    p = ndbsim("advise", str(f), "-n", "1", "-f", "json", "-w", "1", "--lever", "ThreadConfig")
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)["levers"]
    assert row["current"] == "ldm 4" and row["value"] in ("ldm 2", "ldm 8")
    assert "cluster.config.ThreadConfig=ldm={count=" in row["set"]
