"""Answers a DBA can act on: every answer solve and advise print agrees with the run they print as
its check (no warning of that run contradicts it), on the quantile asked for, naming nodes by
NodeId, and with no lever NDB ignores (issue 41, items 1-4, 6, 9 and 11)."""

from __future__ import annotations

import shlex

import pytest
from _helpers import ndbsim as cli
from conftest import ROOT

import ndbsim
from ndbsim.errors import InputError
from ndbsim.input.units import format_secs
from ndbsim.models.levers import Candidate, Lever
from ndbsim.output.result import quantile
from ndbsim.output.stdout import fit
from ndbsim.studies.advise.report import advice_table
from ndbsim.studies.advise.study import _combination, _ranked, advise_full
from ndbsim.studies.runs import evaluate
from ndbsim.studies.solve import solve
from ndbsim.studies.solve.search import DATA_MEMORY_ANSWER_FILL

DATA = ROOT / "tests" / "data"
THREE = str(DATA / "three-replicas-8.4.3.yaml")
CLUSTERS = {"disk": ("disk-data-8.0.35", "8.0.35"), "four": ("four-replicas-8.4.3", "8.4.3")}
"""The user's clusters: an 8.0.35 cluster with two node groups and 900G of disk data per node, and
an 8.4.3 cluster with four replicas (NodeIds 101-104, 141-144); each a config.ini and the --set
lines its user gives ``ndbsim init``."""
N = 2
"""Replications of every answer and check: the check reproduces the answer's runs exactly at any
count, so two keep the tests cheap."""
CONTRADICTING = ("overloads (error 410)", "(NDB error 827)")
"""What a check run's warnings may not say of an answer: that its REDO log overloads or that its
inserts fill DataMemory (nor, ``_against``, that NDB ignores a setting the answer sets)."""


def _against(warnings, sets):
    """The warnings of a check run that contradict an answer setting ``sets``."""
    keys = {x.partition("=")[0].removeprefix("cluster.config.") for x in sets}
    return [
        w
        for w in warnings
        if any(c in w for c in CONTRADICTING) or (", as " in w and w.partition(":")[0] in keys and "ignored" in w)
    ]


SMALL_THREADS = "main={count=1},rep={count=1},recv={count=1},send={count=1},tc={count=1},ldm={count=1}"


def _raw(path, *sets):
    from ndbsim.input import scenario as sc

    raw, _ = sc.raw_from(path)
    for a in sets:
        sc.set_override(raw, a)
    return raw


def test_the_best_combination_never_sets_a_thread_config_that_automatic_thread_config_overrides():
    """ThreadConfig ranked first, AutomaticThreadConfig=true after it: the run with both is faster
    (NDB sizes the threads from the CPUs and ignores the ThreadConfig), so the greedy used to keep
    both. NDB ignores ThreadConfig there (manual: AutomaticThreadConfig "overrides any settings for
    ThreadConfig and MaxNoOfExecutionThreads"), so the combination keeps the ThreadConfig alone."""
    raw = _raw(THREE)
    base = evaluate(raw, (), 1, 1)
    tc = (f"cluster.config.ThreadConfig={SMALL_THREADS}",)
    auto = ("cluster.config.AutomaticThreadConfig=true",)
    first = evaluate(raw, tc, 1, 1)
    assert evaluate(raw, (*tc, *auto), 1, 1).median < first.median  # what made the greedy take both
    rows = [
        {"lever": "ThreadConfig", "sets": tc, "saving_secs": 1.0, "added_flag": ""},
        {"lever": "AutomaticThreadConfig", "sets": auto, "saving_secs": 0.5, "added_flag": ""},
    ]
    combo, levers = _combination(raw, base, rows, first, 1, 1)
    assert levers == ["ThreadConfig"] and combo is first


def test_a_lever_ndb_ignores_is_never_ranked():
    """On a cluster with AutomaticThreadConfig=true a ThreadConfig candidate changes nothing NDB
    reads: it is no row of the table."""
    raw = _raw(THREE, "cluster.config.AutomaticThreadConfig=true")
    base = evaluate(raw, (), 1, 1)
    cand = Candidate("ThreadConfig", "ldm 1", (f"cluster.config.ThreadConfig={SMALL_THREADS}",))
    rows = _ranked([Lever("ThreadConfig", "config", "ldm 8", (cand,))], [cand], [evaluate(raw, cand.sets, 1, 1)], base)
    assert rows == []


def test_run_warns_when_automatic_thread_config_overrides_a_thread_config():
    p = cli("run", THREE, "-n", "1", "--set", "cluster.config.AutomaticThreadConfig=true")
    assert p.returncode == 0, p.stderr
    assert "ThreadConfig: ignored, as AutomaticThreadConfig=true is set" in p.stderr
    p = cli("run", THREE, "-n", "1")
    assert "ignored, as" not in p.stderr


def test_compare_names_an_explicit_plan_by_node_id():
    """The plan a side runs is shown as the user wrote it, in NodeIds (21-23, 31-33), never in the
    engine's 1..N indices."""
    plan = "restart.plan=[[21, 22, 31, 32], [23, 33]]"
    p = cli("compare", THREE, "-n", "1", "--set", "restart.type=rolling", "--set", plan)
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.strip().startswith("restart.plan:"))
    assert line.strip().endswith("B [[21, 22, 31, 32], [23, 33]]"), line


@pytest.fixture(scope="module")
def clusters(tmp_path_factory):
    """Each cluster's scenario as ``ndbsim init`` writes it from the config.ini and the user's --set lines."""
    out = {}
    for key, (name, version) in CLUSTERS.items():
        sets = [x for x in (DATA / name / "init-sets.txt").read_text().splitlines() if x and not x.startswith("#")]
        path = tmp_path_factory.mktemp(key) / f"{name}.yaml"
        args = [a for x in sets for a in ("--set", x)]
        p = cli("init", "--config-ini", str(DATA / name / "config.ini"), "--version", version, *args, "-o", str(path))
        assert p.returncode == 0, p.stderr
        out[key] = str(path)
    return out


def _check(text: str, q: float = 0.5):
    """Run each check command ``text`` prints (``check: ndbsim run …``) as ``ndbsim run`` would: its
    totals at ``q`` and its warnings, per command."""
    runs = []
    for line in text.splitlines():
        if "check: ndbsim run " not in line:
            continue
        args = shlex.split(line.split("check: ndbsim run ", 1)[1].rstrip(")"))
        path, n, seed = args[0], int(args[args.index("-n") + 1]), int(args[args.index("--seed") + 1])
        sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
        r = ndbsim.simulate(path, overrides=sets, seed=seed, replications=n)
        runs.append((quantile(r.totals, q), r.status, r.warnings))
    return runs


def _agrees(answer, runs, q=0.5):
    """Each answer (and a recommended one) agrees with its check run: the same total at ``q``, ok,
    and no warning that contradicts it."""
    answers = [a for a in (answer, answer.recommended) if a is not None]
    assert len(runs) == len(answers)
    for a, (total, status, warnings) in zip(answers, runs):
        assert a.passed
        assert total == pytest.approx(quantile(list(a.outcome.totals), q))
        assert status == "ok", status
        assert not _against(warnings, a.sets), warnings


@pytest.mark.parametrize(
    "cluster, question, window",
    [
        ("disk", "data-size", 2.0),  # bounded by the inserts filling DataMemory (item 1)
        ("disk", "lcp-speed", 1.02),  # below the configured MaxDiskWriteSpeedOwnRestart (item 9)
        ("disk", "redo-log", None),
        ("disk", "update-rate", None),
        ("disk", "plan", 1.2),
        ("four", "data-size", "20m"),
        ("four", "lcp-speed", "14m45s"),
        ("four", "redo-log", None),
        ("four", "update-rate", "20m"),
        ("four", "plan", "10m"),
    ],
)
def test_every_solve_answer_agrees_with_the_run_it_prints_as_its_check(clusters, cluster, question, window):
    path = clusters[cluster]
    if isinstance(window, float):
        window = _window(path, window)
    a = solve(question, path, window=window, replications=N, source=path)
    _agrees(a, _check(a.text(path)))


def _window(path: str, times: float) -> str:
    """A window ``times`` the cluster's own restart as configured (so the answers stay questions
    of the mechanism, whatever the constants make of the restart's length)."""
    return format_secs(times * ndbsim.simulate(path, replications=N).total_restart_secs)


def test_data_size_leaves_room_for_the_inserts_its_check_run_would_warn_of(clusters):
    """Item 1: the answer used to be DataMemory itself, 256G, "meets the target", while its check
    run warned that the inserts during the restart fill DataMemory after 0 s (error 827). A window
    twice the configured restart's leaves DataMemory as the only bound."""
    a = solve("data-size", clusters["disk"], window=_window(clusters["disk"], 2.0), replications=N)
    # issue 47 item 8: the answer now also keeps DataMemory's headroom (at most 80% full), which
    # bounds it before the inserts fill the rest; its check run still warns of no error 827
    assert a.value <= DATA_MEMORY_ANSWER_FILL * 256 * 2**30 and not a.outcome.data_memory_full
    assert any(n.startswith("DataMemory headroom: 204G is 80% of DataMemory=256.0G") for n in a.notes)
    assert "error 827" not in a.text().split("one step more")[0]


def test_lcp_speed_below_a_configured_speed_says_so_as_redo_log_does(clusters):
    """Item 9: the answer is below the configured MaxDiskWriteSpeedOwnRestart=400M, which already
    meets the window; the note says both, as redo-log's note on a log below the configured one."""
    a = solve("lcp-speed", clusters["disk"], window=_window(clusters["disk"], 1.02), replications=N)
    assert a.value < 400 * 2**20
    note = next(n for n in a.notes if n.startswith("below the configured MaxDiskWriteSpeedOwnRestart = 400.0M"))
    assert "meet the target" in note


def test_no_plan_fitting_is_exit_2_naming_the_fastest(clusters):
    """Item 2: no plan of the 4-replica cluster fits 5m: one line and exit 2, as every window
    question whose target no value meets. The fastest restarts two nodes of every node group per
    wave, the second of each copying after the first (one take-over per node group)."""
    with pytest.raises(InputError, match=r"the fastest of the 6 plans, \[\[101, 102, 141, 142\], .* takes 7m5\ds"):
        solve("plan", clusters["four"], window="5m", replications=N)
    p = cli("solve", "plan", clusters["four"], "--window", "5m", "-n", str(N))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and p.stdout == "", p.stderr


def test_every_line_shows_the_quantile_asked_for(clusters):
    """Item 3: with --quantile 0.95 the answer's line, the step-short line and the plans listed show
    the p95 (the predictive distribution's, issue 49 item 4), and the check run's totals are the
    answer's."""
    from ndbsim.output.interval.predictive import predictive_quantile

    a = solve("plan", clusters["four"], window="20m", quantile=0.95, replications=N)
    text = a.text(clusters["four"])
    p95 = predictive_quantile(a.outcome.interval, 0.95)
    assert p95 != a.outcome.median
    assert f"run with it: p95 {format_secs(p95)}, ok" in text
    assert "the next plan (" in text and ": p95 " in text.split("the next plan (", 1)[1].splitlines()[0]
    listed = text.split("plans run (safest first):")[1].splitlines()[1:7]
    assert all(": p95 " in x for x in listed), listed
    assert f"{a.value:.3f}" == f"{p95:.3f}"
    _agrees(a, _check(text, 0.95), 0.95)


ADVISE_LEVERS = (
    "AutomaticThreadConfig",
    "host.cpu_cores",
    "RecoveryWork",
    "workload.during_restart.updates_per_s",
    "MaxDiskWriteSpeedOtherNodeRestart",
    "MaxParallelCopyInstances",
)
"""The levers the advise test tries on both clusters: the top of each cluster's full table, the
longest lever name and a flagged lever (the table's widest cells), each thread setting of its own."""


@pytest.mark.parametrize("cluster, threads", [("disk", "MaxNoOfExecutionThreads"), ("four", "ThreadConfig")])
def test_advise_best_combination_agrees_with_its_run_and_the_table_fits_a_terminal(clusters, cluster, threads):
    """The best combination's run with --set is what advise printed, ends ok with no warning
    against it and sets no lever NDB ignores; the table fits 120 columns (item 11: about 240)."""
    path = clusters[cluster]
    a = advise_full(path, levers=(*ADVISE_LEVERS, threads), replications=N, source=path)
    assert a.combination is not None
    r = ndbsim.simulate(path, overrides=list(a.combination.sets), seed=a.seed, replications=N)
    assert r.total_restart_secs == pytest.approx(a.combination.median) and r.status == "ok"
    assert not _against(r.warnings, a.combination.sets), r.warnings
    # the header and notes are prose, fitted to the terminal where printed (output.stdout.fit); the
    # table's own rows must fit a 120-column terminal unbroken
    text = advice_table(a)
    table = [x for x in text.splitlines() if x[:1].isdigit() or x.startswith("#")]
    assert table and max(map(len, table)) <= 120, max(table, key=len)
    assert max(map(len, fit(text, 120).splitlines())) <= 120


def test_a_data_size_given_with_set_is_no_longer_datamemorys(tmp_path):
    """init writes data.size from DataMemory and every run warns so; a run (or a solve's check) that
    gives data.size with --set no longer says the data is DataMemory's."""
    path = tmp_path / "my.yaml"
    ini = str(DATA / "four-replicas-8.4.3" / "config.ini")
    assert cli("init", "--config-ini", ini, "--version", "8.4.3", "-o", str(path)).returncode == 0
    assert "is DataMemory's" in cli("run", str(path), "-n", "1").stderr
    assert "is DataMemory's" not in cli("run", str(path), "-n", "1", "--set", "data.size=100G").stderr
