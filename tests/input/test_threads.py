"""The thread layout against NDB's own tables (thr_config.cpp as the manual prints it), the 8.0.23
thread model in the restore, and ThreadConfig parsing in linear time."""

from __future__ import annotations

import math
import time

import pytest
from _helpers import ndbsim as cli

import ndbsim
from ndbsim.errors import InputError
from ndbsim.input import threads as t
from ndbsim.input.config.thread_config import parse_thread_config

# The manual's MaxNoOfExecutionThreads table ([DOC-NDBD80]; reference §8): value -> LDM, TC, send, recv
MANUAL_ROWS = {
    2: (1, 0, 0, 1),
    4: (2, 0, 0, 1),
    8: (4, 0, 0, 1),
    12: (6, 2, 1, 1),
    16: (8, 3, 1, 2),
    24: (12, 5, 2, 3),
    32: (16, 8, 3, 3),
    48: (24, 12, 5, 5),
    64: (32, 16, 7, 7),
    72: (32, 20, 8, 10),
}


@pytest.mark.parametrize("value", sorted(MANUAL_ROWS))
def test_max_execution_threads_follows_the_manuals_table(value):
    lay = t.from_max_execution_threads(value, any_ldm_count=False)
    assert (lay.ldm, lay.tc, lay.send, lay.recv) == MANUAL_ROWS[value]
    assert (lay.query, lay.recover) == (0, 0)  # MaxNoOfExecutionThreads never gives query threads


def test_max_execution_threads_8023_table_rows():
    """thr_config.cpp's computeThreadConfig rows that changed (reference §11)."""
    rows = {9: (4, 2, 0, 1), 20: (10, 4, 2, 2), 32: (16, 7, 4, 3), 48: (24, 11, 6, 5), 64: (32, 15, 8, 7)}
    for value, want in rows.items():
        lay = t.from_max_execution_threads(value, any_ldm_count=True)
        assert (lay.ldm, lay.tc, lay.send, lay.recv) == want


def test_automatic_thread_config_worked_example():
    """Reference §11, worked from the code: 16 CPUs -> 15 used -> 4 ldm, 4 query, 2 tc, 1 send, 1 recv,
    and 16 - 8 = 8 recover in all, of which 4 are recover-only; one idxbld thread is added."""
    lay = t.automatic(16)
    assert (lay.main, lay.rep, lay.ldm, lay.query, lay.tc, lay.send, lay.recv) == (1, 1, 4, 4, 2, 1, 1)
    assert lay.recover == 4 and lay.idxbld == 1
    assert lay.restore_threads == 12


@pytest.mark.parametrize(
    "cpus,row",
    [(4, (1, 0, 1, 1, 0, 0, 1)), (8, (1, 0, 2, 2, 1, 1, 1)), (10, (1, 0, 2, 2, 1, 1, 1)), (36, (1, 1, 9, 9, 5, 3, 4))],
)
def test_automatic_thread_config_rows(cpus, row):
    """A tenth of the CPUs is left to the OS (4 -> 4 used, 10 -> 9, 36 -> 33), then the table's row."""
    lay = t.automatic(cpus)
    assert (lay.main, lay.rep, lay.ldm, lay.query, lay.tc, lay.send, lay.recv) == row


def test_thread_config_counts_every_type():
    lay = t.from_thread_config("ldm={count=4},query={count=4},recover={count=2},tc={count=2},send,recv={count=2}")
    assert (lay.ldm, lay.query, lay.recover, lay.tc, lay.send, lay.recv, lay.main, lay.rep) == (4, 4, 2, 2, 1, 2, 1, 1)
    assert t.from_thread_config("ldm={cpubind=1-3},ldm={cpubind=8}").ldm == 4
    assert t.from_thread_config("main,io={count=3}").io == 1  # NDB ignores io's count


def test_thread_config_parse_is_linear():
    small, big = ",".join(["ldm={cpubind=1}"] * 20_000), ",".join(["ldm={cpubind=1}"] * 160_000)

    def cpu(text):  # least CPU time of three: other processes' load on a shared machine is not the parser's
        best = math.inf
        for _ in range(3):
            t0 = time.process_time()
            parse_thread_config(text)
            best = min(best, time.process_time() - t0)
        return best

    assert len(big) > 2_000_000
    assert cpu(big) < 20 * max(cpu(small), 1e-3)  # 8× the text: far from 64× (quadratic)


def test_ldm_counts_by_release():
    assert t.check_layout(t.ThreadLayout(ldm=5), query_threads=False)
    assert t.check_layout(t.ThreadLayout(ldm=5), query_threads=True) is None
    assert t.check_layout(t.ThreadLayout(ldm=333), query_threads=True)


def _restore(version, thread_config):
    r = ndbsim.simulate(
        None,
        overrides=[
            f"version={version}",
            f"cluster.config.ThreadConfig={thread_config}",
            "cluster.config.MaxNoOfExecutionThreads=16",
            "host.cpu_cores=32",
            "cluster.config.RecoveryWork=60",  # 7.6.6 defaults to 50, 8.0 to 60: same for both
        ],
        seed=3,
        replications=1,
    )
    return r.phases()["secs_restore_fragments"]


def test_query_and_recover_threads_restore_from_8023():
    """Same 8 LDM threads: query and recover threads make 8.0.35 restore faster by the parallelism they
    add; 7.6.6 has none, and refuses a ThreadConfig that names them."""
    plain = "ldm={count=8},tc={count=3},recv={count=2},send"
    extra = plain + ",query={count=8},recover={count=8}"
    r80, r80q = _restore("8.0.35", plain), _restore("8.0.35", extra)
    assert r80q < 0.5 * r80  # 24 restoring threads on 32 cores instead of 8
    with pytest.raises(InputError, match=r"only from 8\.0\.23"):
        _restore("7.6.6", extra)


def test_oversubscribed_host_warns():
    r = ndbsim.simulate(None, overrides=["cluster.config.MaxNoOfExecutionThreads=32"], seed=1, replications=1)
    assert any("hardware threads" in w for w in r.warnings)


def test_version_on_an_older_profile_says_so():
    r = ndbsim.simulate(None, overrides=["version=8.2.0", "cluster.config.DataMemory=65G"], seed=1, replications=1)
    assert any("8.4 profile" in w for w in r.warnings)


def test_with_count_changes_one_thread_type_and_keeps_the_rest():
    from ndbsim.input.config.thread_config import with_count
    from ndbsim.input.threads import from_thread_config

    text = "ldm={count=4,cpubind=1-4},main={cpubind=0},io,tc={count=2}"
    halved = with_count(text, "ldm", 2)
    assert halved == "ldm={count=2},main={cpubind=0},io,tc={count=2}"
    assert from_thread_config(halved).ldm == 2 and from_thread_config(halved).tc == 2
    assert from_thread_config(with_count("main,io", "ldm", 3)).ldm == 3


def test_automatic_thread_config_for_16_cpus_follows_thr_config():
    from ndbsim.input.threads import automatic

    t = automatic(16)  # 16 CPUs, 15 used: row 1/1/4/4/2/1/1; 16 - 8 = 8 recover, 4 of them recover-only
    assert (t.main, t.rep, t.ldm, t.query, t.tc, t.send, t.recv, t.recover) == (1, 1, 4, 4, 2, 1, 1, 4)
    assert t.restore_threads == 12


@pytest.mark.parametrize("version", ["8.0.22", "7.6.30"])
@pytest.mark.parametrize("entry", ["query={count=4}", "recover={count=2}"])
def test_thread_types_the_release_lacks_are_refused_as_ndb_refuses_them(version, entry):
    """query and recover threads exist from 8.0.23; an older data node refuses the entry instead of
    starting with 0 of them."""
    p = cli("run", "--version", version, "--set", f"cluster.config.ThreadConfig=ldm={{count=4}},{entry},main")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "cluster.config.ThreadConfig" in p.stderr and "only from 8.0.23" in p.stderr, p.stderr
    ok = cli(
        "run", "--version", "8.0.23", "-n", "2", "--set", f"cluster.config.ThreadConfig=ldm={{count=4}},{entry},main"
    )
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("cpus", [2, 3])
def test_automatic_thread_config_on_two_or_three_cpus_runs_its_ldm_worker_in_the_receive_thread(cpus):
    """AutomaticThreadConfig's row for 2-3 used CPUs has no LDM thread: one LDM worker runs in the
    receive thread (thr_config.cpp ``compute_automatic_thread_config``; Configuration.cpp), and it
    restores beside the recover threads that make one per CPU. The shipped 8.0 rolling scenario with
    NumCPUs=2 used to end in ZeroDivisionError (exit 3)."""
    lay = t.automatic(cpus)
    assert (lay.ldm, lay.ldm_workers, lay.main, lay.recv) == (0, 1, 1, 1)
    assert lay.restore_threads == cpus
    r = cli(
        "run",
        "scenarios/rolling-4-nodes-8.0.yaml",
        "-n",
        "1",
        "--set",
        "cluster.config.AutomaticThreadConfig=true",
        "--set",
        f"cluster.config.NumCPUs={cpus}",
    )
    assert r.returncode == 0, r.stderr
    assert "restart total:" in r.stdout


def test_a_thread_config_without_ldm_threads_starts_only_as_ndb_allows_it():
    """ldm={count=0} is NDB's layout of one LDM worker in the receive thread: only with no query, tc
    or rep thread, one main and one recv thread (Configuration.cpp), else NDB refuses the config."""
    assert t.check_layout(t.from_thread_config("ldm={count=0},main,rep={count=0},recv"), True) is None
    assert "gives no LDM thread" in t.check_layout(t.from_thread_config("ldm={count=0},main,recv"), True)
    assert "gives no LDM thread" in t.check_layout(t.from_thread_config("ldm={count=0},rep={count=0},tc"), True)


FOUR_REPLICA_INI = """\
[ndbd default]
NoOfReplicas=4
DataMemory=128G
ThreadConfig=main={cpubind=0},rep={cpubind=1},recv={count=4,cpubind=2-5},send={count=2,cpubind=6-7},\
tc={count=8,cpubind=8-15},ldm={count=16,cpubind=16-31},query={count=16,cpubind=32-47},recover={count=4,cpubind=60-63}
[ndbd]
NodeId=141
NodeGroup=0
[ndbd]
NodeId=142
NodeGroup=0
[ndbd]
NodeId=143
NodeGroup=0
[ndbd]
NodeId=144
NodeGroup=0
"""
"""A 4-replica 8.4 node group whose ThreadConfig names 52 threads (4 of them recover threads) bound
to CPUs up to 63."""


def test_a_thread_config_of_52_threads_is_said_as_52_with_its_recover_threads(tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text(FOUR_REPLICA_INI)
    p = cli("run", "--config-ini", str(ini), "--version", "8.4.3", "--set", "host.cpu_cores=8")
    assert p.returncode == 0, p.stderr
    assert "ThreadConfig: 52 threads of which 4 recover, running only while the node restores" in p.stderr


def test_init_takes_a_host_that_holds_the_cpus_thread_config_binds(tmp_path):
    """CPUs bound up to 63: init writes 32 cores × 2 (not the default 8 × 2) and says why; a host
    given with --set stays the user's."""
    ini = tmp_path / "config.ini"
    ini.write_text(FOUR_REPLICA_INI)
    out = tmp_path / "four.yaml"
    p = cli("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert "\n  cpu_cores: 32\n" in text and "ThreadConfig binds CPUs up to 63" in text
    run = cli("run", str(out))
    assert "host: 32 cores × 2 threads" in run.stdout and "hardware threads" not in run.stderr
    given = cli("init", "--config-ini", str(ini), "--version", "8.4.3", "--set", "host.cpu_cores=48")
    assert "\n  cpu_cores: 48\n" in given.stdout and "binds CPUs up to" not in given.stdout


def test_params_lays_set_over_the_config_ini_as_run_does(tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text(FOUR_REPLICA_INI)
    p = cli(
        "params",
        "--config-ini",
        str(ini),
        "--set",
        "version=8.4.3",
        "--set",
        "cluster.config.ThreadConfig=ldm={count=4}",
    )
    assert p.returncode == 0, p.stderr
    assert "(release from --set)" in p.stdout and "threads per data node: 4 LDM, 0 query" in p.stdout
    full = cli("params", "--config-ini", str(ini), "--version", "8.4.3")
    assert "; 52 threads of which 4 recover, running only while the node restores" in full.stdout
    alone = cli("params", "--set", "host.cpu_cores=32")
    assert alone.returncode == 2 and "add --config-ini FILE, or drop --set" in alone.stderr
