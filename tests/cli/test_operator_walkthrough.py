"""A new operator's walk through the commands on a cluster of their own (NDB 8.4.3, NoOfReplicas=3,
six data nodes in two node groups, NodeIds 21-23 and 31-33): what each command prints must work
when typed as printed, and every figure it shows carries its unit."""

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from _helpers import THREE_REPLICA_NODES, ndbsim

CONFIG_INI = (
    """\
[ndbd default]
NoOfReplicas=3
DataMemory=8G
ThreadConfig=ldm={count=4},query={count=4},tc={count=2},main,rep,recv={count=2},send={count=2}
ODirect=1

[ndb_mgmd]
NodeId=1

"""
    + THREE_REPLICA_NODES
    + """
[mysqld]
NodeId=50
"""
)


@pytest.fixture
def ini(tmp_path):
    p = tmp_path / "config.ini"
    p.write_text(CONFIG_INI)
    return p


def _printed_run(text: str) -> list[str]:
    """The first ``ndbsim run ...`` command a study printed, as words."""
    line = next(x for x in text.splitlines() if "ndbsim run " in x)
    return shlex.split(line[line.index("ndbsim run ") :].rstrip(")"))[1:]


@pytest.mark.parametrize(
    "args",
    [
        ("advise", "-l", "host.cpu_cores", "-n", "1", "-w", "1"),
        ("solve", "redo-log", "-n", "1"),
    ],
)
def test_a_study_of_a_config_ini_alone_takes_its_release(ini, tmp_path, args):
    # the help's own example: --config-ini without a scenario, the release from --version
    p = ndbsim(*args, "--config-ini", str(ini), "--version", "8.4.3", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    # the run it prints to check its answer works as printed (the config.ini and the release in it)
    words = _printed_run(p.stdout)
    assert "--version" in words and "--config-ini" in words
    again = ndbsim(*words, cwd=tmp_path)
    assert again.returncode == 0, (words, again.stderr)
    # --set version= names the release as well, as it does for run
    p = ndbsim(*args, "--config-ini", str(ini), "--set", "version=8.4.3", cwd=tmp_path)
    assert p.returncode == 0, p.stderr


def test_without_a_release_a_study_says_the_option_it_has(ini, tmp_path):
    p = ndbsim("solve", "redo-log", "--config-ini", str(ini), cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "--version X.Y.Z" in p.stderr
    assert "No such option" not in ndbsim("solve", "redo-log", "--config-ini", str(ini), "--version", "8.4.3").stderr


def test_report_and_sweep_of_a_config_ini_alone_take_its_release(ini, tmp_path):
    out = tmp_path / "r.html"
    p = ndbsim("report", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out), "-n", "1", "--no-advise")
    assert p.returncode == 0, p.stderr
    assert "--version 8.4.3" in out.read_text()  # the command that writes it again
    sweep = tmp_path / "s.yaml"
    sweep.write_text("factors:\n  workload.updates_per_s: [0, 1000]\nmode: grid\nreplications: 1\nseed: 2\n")
    p = ndbsim("sweep", str(sweep), "--config-ini", str(ini), "--version", "8.4.3", "-w", "1")
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.strip().splitlines()) == 3


def test_init_writes_every_host_figure_with_its_unit(ini, tmp_path):
    out = tmp_path / "my.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 0, p.stderr
    host = {
        line.split(":")[0].strip(): line.split(":", 1)[1].split("#")[0].strip()
        for line in out.read_text().split("\nhost:")[1].split("\n\n")[0].splitlines()
        if not line.strip().startswith("#") and ":" in line
    }
    assert host["memory_touch_rate"] == "2.7e9/s", host
    assert host["disk_latency"] == "0.1ms", host
    # the file reads back to the defaults it wrote: the same restart as no host section at all
    plain = yaml.safe_load(out.read_text())
    del plain["host"]
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump(plain))
    a, b = ndbsim("run", str(out), "-f", "json"), ndbsim("run", str(bare), "-f", "json")
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    assert '"total_restart_secs"' in a.stdout
    assert a.stdout.split('"total_restart_secs"')[1][:30] == b.stdout.split('"total_restart_secs"')[1][:30]


def test_compare_shows_what_differs_with_units(ini, tmp_path):
    p = ndbsim(
        "init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(tmp_path / "my.yaml")
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    b = tmp_path / "b.ini"
    b.write_text(CONFIG_INI.replace("DataMemory=8G", "DataMemory=12G"))
    p = ndbsim("compare", str(tmp_path / "my.yaml"), "--config-ini", str(ini), "--config-ini", str(b))
    assert p.returncode == 0, p.stderr
    assert "cluster.config.DataMemory: A 8.0G · B 12.0G" in p.stdout, p.stdout
    sets = ("-s", "host.disk_write=1G", "-s", "host.network=25Gbit/s", "-s", "restart.downtime=10m")
    p = ndbsim("compare", str(tmp_path / "my.yaml"), *sets)  # one scenario: the --set are B's
    assert p.returncode == 0, p.stderr
    differs = p.stdout.split("what differs")[1].split("\n\n")[0]
    assert "host.disk_write: A 500.0M/s · B 1.0G/s" in differs, differs
    assert "host.network: A 10Gbit/s · B 25Gbit/s" in differs, differs
    assert "restart.downtime: A 0s · B 10m00s" in differs, differs


def test_a_fitted_disk_latency_is_written_in_milliseconds():
    from ndbsim.input.units import parse_duration
    from ndbsim.studies.calibration.host_fit import host_text

    assert host_text("disk_latency", 0.0004945) == "0.4945ms"
    assert parse_duration(host_text("disk_latency", 0.0004945)) == 0.0004945


def test_advise_ranks_by_saving_when_the_base_already_oversubscribes_the_host(ini, tmp_path):
    # 16 execution threads on 6 cores × 2: the base is oversubscribed, so is every more-LDM try;
    # that shared flag must not rank a smaller saving first nor keep the larger out of the combination
    p = ndbsim(
        "advise", "--config-ini", str(ini), "--version", "8.4.3", "-s", "host.cpu_cores=6",
        "-l", "ThreadConfig", "-l", "AutomaticThreadConfig", "-n", "1", "-w", "1", "-f", "json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "hardware threads" in p.stderr  # the base's own warning, once
    d = json.loads(p.stdout)
    levers = d["levers"]
    assert [r["saving_secs"] for r in levers] == sorted((r["saving_secs"] for r in levers), reverse=True), levers
    assert levers[0]["lever"] == "ThreadConfig" and levers[0]["flag"] == "oversubscribed"
    assert "ThreadConfig" in d["combination"]["levers"]


@pytest.mark.parametrize(
    ("line", "fix"),
    [
        ("DataMemory=96X", "write 96 (a plain number) or 96K, 96M or 96G"),
        ("DataMemory=16GiB", "write 16G"),
        ("DiskPageBufferMemory=16 Q", "write 16 (a plain number) or 16K, 16M or 16G"),
    ],
)
def test_a_config_ini_number_with_a_bad_unit_gets_a_fix_that_keeps_its_size(ini, tmp_path, line, fix):
    bad = tmp_path / "bad.ini"
    name = line.split("=")[0]
    # DataMemory is modelled, DiskPageBufferMemory is not: both are read as NDB reads numbers
    bad.write_text(
        CONFIG_INI.replace("DataMemory=8G", line)
        if name == "DataMemory"
        else f"{CONFIG_INI}".replace("ODirect=1", f"ODirect=1\n{line}")
    )
    out = tmp_path / "my.yaml"
    p = ndbsim("init", "--config-ini", str(bad), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 2 and p.stdout == "" and not out.exists()
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert f"[ndbd default] {name} (line " in p.stderr and p.stderr.rstrip().endswith(fix), p.stderr


PHASES = {
    "secs_to_complete_node_failure": 2,
    "secs_to_include_in_heartbeat_protocol": 4,
    "secs_to_copy_meta_data": 1,
    "secs_to_include_node": 1,
    "secs_restore_fragments": 20,
    "secs_exec_redo_log": 2,
    "secs_index_rebuild": 15,
    "secs_to_synchronize_starting_node": 5,
    "secs_wait_lcp_for_restart": 10,
    "secs_wait_subscription_handover": 5,
}
"""A restart_info row of every node of the walkthrough's cluster (65 s)."""


def _snapshot(path, waves, after_secs):
    from ndbsim.studies.eta.replay import snapshot_text

    rows = {n: {"node_id": n, "phases": dict(PHASES), "total_restart_secs": 65.0} for w in waves for n in w}
    start = 1_800_000_000.0
    path.write_text(snapshot_text(rows, waves, start, start + after_secs, release="8.4.3"))  # the cluster's
    return str(path)


@pytest.fixture
def node_restart(ini, tmp_path):
    """The cluster's scenario as init writes it: a node restart of its highest NodeId, 33."""
    out = tmp_path / "my.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 0, p.stderr
    return out


def test_eta_follows_a_node_restart_once_a_phase_has_finished(node_restart, tmp_path):
    # node 33 in secs_restore_fragments: its first columns are finished and refitted on
    now = _snapshot(tmp_path / "now.tsv", [[33]], 20)
    p = ndbsim("eta", str(node_restart), "--ndbinfo", now, "-n", "2")
    assert p.returncode == 0, p.stderr
    assert "node  33  wave 1  restarting  in secs_restore_fragments" in p.stdout, p.stdout
    # two nodes restarted together (restart.nodes), as the error below tells a user to give
    now = _snapshot(tmp_path / "two.tsv", [[22, 32]], 20)
    p = ndbsim("eta", str(node_restart), "--ndbinfo", now, "-n", "2", "--set", "restart.nodes=[22,32]")
    assert p.returncode == 0, p.stderr
    assert "node  22  wave 1  restarting" in p.stdout and "node  32  wave 1  restarting" in p.stdout


def test_eta_refuses_a_snapshot_of_another_restart_than_the_scenarios(node_restart, tmp_path):
    # a rolling restart under way while the scenario is a node restart of 33: not 'waiting' and
    # 'complete' at once, but one line naming the nodes and the fix
    now = _snapshot(tmp_path / "now.tsv", [[21, 31], [22, 32], [23, 33]], 65 + 20)
    p = ndbsim("eta", str(node_restart), "--ndbinfo", now, "-n", "2")
    assert p.returncode == 2 and p.stdout == "", p.stdout
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert "nodes 22, 32 are restarting in the snapshot" in p.stderr and "restarts node 33" in p.stderr
    assert "--set restart.type=rolling" in p.stderr
    p = ndbsim("eta", str(node_restart), "--ndbinfo", now, "-n", "2", "--set", "restart.type=rolling")
    assert p.returncode == 0, p.stderr
    assert "node  22  wave 2  restarting" in p.stdout and "node  23  wave 3  waiting" in p.stdout


def test_eta_without_scipy_names_the_extra_it_needs(node_restart, tmp_path):
    # the base install has no scipy: eta's refit says so before it reads anything, naming eta
    import subprocess
    import sys

    now = _snapshot(tmp_path / "now.tsv", [[33]], 20)
    code = (
        "import sys; sys.modules['scipy'] = None; from ndbsim.cli.app import main; "
        f"sys.argv = ['ndbsim', 'eta', {str(node_restart)!r}, '--ndbinfo', {now!r}]; main()"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "", p.stdout + p.stderr
    assert "ndbsim eta" in p.stderr and "pip install 'ndbsim[calibrate]'" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_why_shows_a_thread_pace_rounded(ini, tmp_path):
    # fragments spread unevenly over the 8 restoring threads (LDM + query) go at a fractional pace
    # (fixed_costs.busy_threads): the label rounds it (7.71), never 7.71429
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.4.3", "--why")
    assert p.returncode == 0, p.stderr
    caps = re.findall(r"\((\d+(?:\.\d+)?) (?:restoring threads|copy instances|index-build threads)", p.stdout)
    assert caps and all(len(c.replace(".", "")) <= 3 for c in caps), caps


def test_why_names_nodes_by_their_nodeid_and_bytes_in_units(ini, tmp_path):
    # the UNDO of disk-data changes reads node 33's disk: named as NodeId 33, not the engine's 6th node
    p = ndbsim(
        "run", "--config-ini", str(ini), "--version", "8.4.3", "--why",
        "-s", "data.size=6G", "-s", "data.disk_data_size=20G", "-s", "workload.updates_per_s=20000",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.strip().startswith("secs_undo_disk_data") and ": " in x)
    undo, figures = lines[at], lines[at + 1]  # a why's figures stand on its continuation line
    assert "(node 6)" not in undo and "node 33" in undo, undo
    assert re.search(r"page_read_bytes=[0-9.]+[KMGT]\b", figures), figures


def test_the_commands_init_prints_run_as_printed_from_a_path_with_a_space(tmp_path):
    d = tmp_path / "my cluster"
    d.mkdir()
    export = Path(__file__).parents[1] / "ndbinfo" / "export-8.4.3-3replicas.tsv"
    p = ndbsim("init", "--ndbinfo", str(export), "-o", "prod 1.yaml", cwd=d)
    assert p.returncode == 0, p.stderr
    validate = shlex.split(p.stderr.split("check it with ", 1)[1].split(",", 1)[0])
    assert ndbsim(*validate[1:], cwd=d).returncode == 0
    calibrate = p.stderr.split("add it as a calibration case (its fit needs ndbsim[calibrate]): ", 1)[1]
    words = shlex.split(calibrate)
    assert words[:2] == ["ndbsim", "calibrate"] and (d / words[3]).exists() and (d / words[5]).exists()


def test_validate_prints_the_warnings_a_run_prints(ini, tmp_path):
    # 16 execution threads on 6 cores × 2: run warns; validate promises the same warnings
    args = ("--config-ini", str(ini), "--version", "8.4.3", "-s", "host.cpu_cores=6")
    run, check = ndbsim("run", *args), ndbsim("validate", *args)
    assert run.returncode == check.returncode == 0, run.stderr + check.stderr
    warned = [x for x in run.stderr.splitlines() if "hardware threads" in x]
    assert warned and all(x in check.stderr for x in warned), check.stderr
