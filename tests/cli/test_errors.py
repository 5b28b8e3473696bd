"""Bad inputs: one line on stderr naming the field (or file+line), exit 2, no traceback, nothing written."""

from __future__ import annotations

import os

import pytest
from _helpers import ndbsim

from ndbsim.cli.app import main

# (id, --set assignment, text the one error line must contain)
SET_CASES = [
    ("neg-size", "data.size=-5G", "data.size"),
    ("zero-size", "data.size=0", "data.size"),
    ("bad-unit", "data.size=60Q", "data.size"),
    ("word-size", "data.size=abc", "data.size"),
    ("inf-size", "data.size=1e400", "data.size"),
    ("zero-disk", "host.disk_read=0", "host.disk_read"),
    ("word-disk", "host.disk_write=fast", "host.disk_write"),
    ("neg-net", "host.network=-1", "host.network"),
    ("nan-core", "host.core_speed=.nan", "host.core_speed"),
    ("cores-word", "host.cpu_cores=x", "host.cpu_cores"),
    ("cores-zero", "host.cpu_cores=0", "host.cpu_cores"),
    ("rw-low", "cluster.config.RecoveryWork=10", "RecoveryWork"),
    ("rw-high", "cluster.config.RecoveryWork=101", "RecoveryWork"),
    ("irw-high", "cluster.config.InsertRecoveryWork=71", "InsertRecoveryWork"),
    ("replicas-5", "cluster.config.NoOfReplicas=5", "NoOfReplicas"),
    ("replicas-0", "cluster.config.NoOfReplicas=0", "NoOfReplicas"),
    ("fraglog-2", "cluster.config.NoOfFragmentLogFiles=2", "NoOfFragmentLogFiles"),
    ("rows-too-many", "data.rows=1e12", "at least 16 bytes"),
    ("fraglogsize", "cluster.config.FragmentLogFileSize=1M", "FragmentLogFileSize"),
    ("dm-word", "cluster.config.DataMemory=lots", "DataMemory"),
    ("dm-nan", "cluster.config.DataMemory=.nan", "DataMemory"),
    ("bool-bad", "cluster.config.EnablePartialLcp=maybe", "EnablePartialLcp"),
    ("enum-bad", "cluster.config.InitFragmentLogFiles=x", "InitFragmentLogFiles"),
    ("threadconfig-list", "cluster.config.ThreadConfig=[1]", "ThreadConfig"),
    ("threadconfig-cpus", "cluster.config.ThreadConfig=ldm={cpubind=1-2-3}", "not a cpu list"),
    ("threadconfig-backwards", "cluster.config.ThreadConfig=ldm={cpubind=9-1}", "runs backwards"),
    ("threadconfig-word", "cluster.config.ThreadConfig=garbage", "not a thread type"),
    ("threadconfig-count", "cluster.config.ThreadConfig=ldm={count=abc}", "not a whole number"),
    ("param-typo", "cluster.config.DataMemery=1G", "did you mean 'DataMemory'"),
    ("section-typo", "hots.cpu_cores=4", "did you mean 'host'"),
    ("key-typo", "data.sise=1TB", "did you mean 'size'"),
    ("nodes-multiple", "cluster.data_nodes=3", "cluster.data_nodes"),
    ("restart-missing-node", "restart.nodes=[7]", "restart.nodes"),
    ("restart-dup-node", "restart.nodes=[2,2]", "restart.nodes"),
    ("restart-nodes-scalar", "restart.nodes=2", "restart.nodes"),
    ("whole-node-group", "restart.nodes=[1,2]", "no live replica"),
    ("one-replica", "cluster.config.NoOfReplicas=1", "NoOfReplicas=1"),
    ("ldm-count-76", "cluster.config.ThreadConfig=ldm={count=5}", "before NDB 8.0.23"),
    ("ldm-threadconfig", "cluster.config.ThreadConfig=ldm={count=99}", "ThreadConfig"),
    ("data-gt-dm", "data.size=200G", "data.size"),
    ("version-unknown", "version=9.9", "version"),
    ("version-junk", "version=abc", "version"),
    ("restart-type", "restart.type=warm", "restart.type"),
    ("lcp-phase", "simulation.lcp_phase=2", "simulation.lcp_phase"),
    ("neg-updates", "workload.updates_per_s=-1", "workload.updates_per_s"),
    ("rate-word", "workload.inserts_per_s=many", "workload.inserts_per_s"),
    ("cluster-scalar", "cluster=3", "cluster"),
    ("config-scalar", "cluster.config=5", "cluster.config"),
    ("name-list", "name=[1]", "name"),
    ("seed-neg", "simulation.seed=-1", "simulation.seed"),
    ("downtime", "restart.downtime=5x", "restart.downtime"),
    ("no-equals", "data.size", "--set"),
    ("value-not-section", "data.size.x=1", "data.size.x"),
    ("empty-key", "=1", "--set"),
]

# the value is shown normalised ("200.0G") or the error is about the key path
SHOWN_DIFFERENTLY = {"data.size=200G", "data.size.x=1", "data.rows=1e12"}


def run_cli(args, capsys, tmp_path):
    out = tmp_path / "out.json"
    gantt = tmp_path / "g.png"
    with pytest.raises(SystemExit) as exc:
        main([*args, "--output", str(out), "--gantt", str(gantt)] if args[0] == "run" else args)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert not out.exists() and not gantt.exists()
    assert not list(tmp_path.glob("*.part"))
    return err


@pytest.mark.parametrize("assignment,needle", [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_set_errors(assignment, needle, capsys, tmp_path):
    err = run_cli(["run", "--set", assignment], capsys, tmp_path)
    assert needle in err
    if "=" in assignment and not assignment.startswith("=") and assignment not in SHOWN_DIFFERENTLY:
        value = assignment.split("=", 1)[1].strip("[]").lstrip(".")
        assert value.split(",")[0].lower() in err.lower() or "unknown key" in err or "unknown NDB" in err, err


FILE_CASES = [
    ("unclosed-list", "name: x\ndata:\n  rows: [1, 2\n", "line "),
    ("tab", "data:\n\tsize: 1\n", "line 2, column 1"),
    ("bad-indent", "data:\n  size: 60G\n   rows: 3\n", "line 3, column 8"),
    ("duplicate-key", "name: a\nname: b\n", "line 2, column 1"),
    ("list-top", "- a\n- b\n", "mapping"),
    ("unknown-top", "x: 1\n", "x: unknown key"),
    ("nested-typo", "host:\n  cpu_core: 8\n", "did you mean 'cpu_cores'"),
    ("bad-version", "version: 5.0\n", "version"),
    ("config-spelled-twice", "cluster:\n  config:\n    datamemory: 80G\n    DataMemory: 1G\n", "set twice"),
]


@pytest.mark.parametrize("text,needle", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_file_errors(text, needle, command, capsys, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    err = run_cli([command, str(f)], capsys, tmp_path)
    assert str(f) in err and needle in err


INI_CASES = [
    ("rw", "[ndbd default]\nRecoveryWork=10\n", "RecoveryWork (line 2)"),
    ("unclosed-section", "[ndbd default\nx=1\n", "line 1, column 1"),
    ("no-section", "DataMemory=1G\n", "line 1, column 1"),
    ("junk-line", "[ndbd default]\nfoo\n", "line 2, column 1"),
    ("dm-word", "[ndbd default]\nDataMemory=lots\n", "DataMemory (line 2)"),
    ("three-nodes", "[ndbd default]\nNoOfReplicas=2\n[ndbd]\n[ndbd]\n[ndbd]\n", "cluster.data_nodes"),
]


@pytest.mark.parametrize("text,needle", [c[1:] for c in INI_CASES], ids=[c[0] for c in INI_CASES])
def test_config_ini_errors(text, needle, capsys, tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    err = run_cli(["run", "--config-ini", str(ini), "--version", "7.6.6"], capsys, tmp_path)
    assert "config.ini" in err and needle in err


OPTION_CASES = [
    ("format", ["run", "--format", "xml"], "--format"),
    ("replications", ["run", "-n", "0"], "--replications"),
    ("seed", ["run", "--seed", "-1"], "--seed"),
    ("missing-file", ["run", "nope.yaml"], "nope.yaml"),
    ("missing-ini", ["run", "--config-ini", "nope.ini"], "--config-ini"),
    ("dir-ini", ["run", "--config-ini", "."], "--config-ini"),
    ("bad-option", ["run", "--bogus"], "--bogus"),
    ("validate-missing", ["validate", "nope.yaml"], "nope.yaml"),
    ("replications-huge", ["run", "-n", "1000000000"], "--replications"),
]


@pytest.mark.parametrize("args,needle", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_option_errors(args, needle, capsys, tmp_path):
    assert needle in run_cli(args, capsys, tmp_path)


def test_bad_output_paths(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--output", str(tmp_path / "nodir" / "x.json"), "--gantt", str(tmp_path / "g.png")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--output" in err and err.count("\n") == 1
    assert not (tmp_path / "g.png").exists()
    with pytest.raises(SystemExit) as exc:
        main(["run", "--gantt", str(tmp_path / "g.txt")])
    assert exc.value.code == 2 and "--gantt" in capsys.readouterr().err


def test_output_paths_that_cannot_be_written(capsys, tmp_path):
    (tmp_path / "adir").mkdir()
    os.mkfifo(tmp_path / "fifo.json")
    cases = [
        (["run", "-o", str(tmp_path / "adir")], "is a directory"),
        (["run", "-o", str(tmp_path / "fifo.json")], "not a regular file"),
        (["run", "-o", str(tmp_path / "x.xlsx")], "writes text"),
        (["run", "-o", str(tmp_path / "x.json"), "-f", "csv"], "make them agree"),
        (["run", "-o", str(tmp_path / ("x" * 300 + ".json"))], "cannot write"),
        (["run", "--gantt", str(tmp_path / ("g" * 300 + ".png")), "-o", str(tmp_path / "o.json")], "--gantt"),
    ]
    for args, needle in cases:
        with pytest.raises(SystemExit) as exc:
            main(args)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and needle in err and err.count("\n") == 1, (args, err)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["adir", "fifo.json"]


def test_output_through_a_symlink_writes_its_target(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    (tmp_path / "link.json").symlink_to(real)
    main_ok(["run", "-o", str(tmp_path / "link.json")])
    assert (tmp_path / "link.json").is_symlink()
    assert real.read_text().lstrip().startswith("{")  # .json picks the JSON format


def main_ok(args):
    try:
        main(args)
    except SystemExit as e:
        assert e.code in (0, None)


SWEEP_CASES = [
    (
        "nan-low",
        "factors:\n  data.size: {low: .nan, high: 20GB}\nmode: random\nsamples: 3\n",
        [],
        "factors.data.size.low",
    ),
    ("inf-high", "factors:\n  data.size: {low: 1GB, high: .inf}\nmode: random\nsamples: 3\n", [], "not a finite"),
    (
        "huge-samples",
        "factors:\n  data.size: {low: 1GB, high: 9GB}\nmode: random\nsamples: 1000000000\n",
        [],
        "samples",
    ),
    (
        "huge-grid",
        "factors:\n  data.size: [1GB, 2GB, 3GB]\n  data.rows: " + str(list(range(1, 1001))) + "\n"
        "  data.tables: " + str(list(range(1, 1001))) + "\n",
        [],
        "factors",
    ),
    ("scheduler-word", "factors:\n  data.size: [1GB]\n", ["--scheduler", "notaurl"], "--scheduler"),
    ("scheduler-port", "factors:\n  data.size: [1GB]\n", ["--scheduler", "tcp://127.0.0.1:99999"], "1–65535"),
    ("output-nodir", "factors:\n  data.size: [1GB]\n", ["-o", "nodir/x.csv"], "does not exist"),
    ("output-proc", "factors:\n  data.size: [1GB]\n", ["-o", "/proc/x.csv"], "cannot write"),
]


@pytest.mark.parametrize("text,extra,needle", [c[1:] for c in SWEEP_CASES], ids=[c[0] for c in SWEEP_CASES])
def test_sweep_errors_before_any_work(text, extra, needle, capsys, tmp_path, monkeypatch):
    import importlib

    def never(*a, **k):
        raise AssertionError("the sweep ran")

    monkeypatch.setattr(importlib.import_module("ndbsim.studies.sweep.run")._Run, "execute", never)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(text)
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(tmp_path / "s.yaml"), *extra])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and needle in err and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_innodb_errors_name_field_and_fix(capsys, root):
    inno = str(root / "scenarios/innodb-tpcc1000-bp52g-flash.yaml")
    for args, needle in (
        (["--set", "server=[1]"], "server: [1] is not a section"),
        (["--set", "server.buffer_pool_size=abc"], "write it like"),
        (["--config-ini", str(root / "scenarios/example-config.ini")], "drop --config-ini"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["run", inno, *args])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and needle in err and err.count("\n") == 1, err


def test_corpus_is_large_enough():
    assert len(SET_CASES) + 2 * len(FILE_CASES) + len(INI_CASES) + len(OPTION_CASES) >= 45


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--set", "data.size=-5G", "-o", "out.json"],
        ["run", "--set", "cluster.config.RecoveryWork=10", "-o", "out.json"],
        ["run", "bad.yaml", "-o", "out.json", "--gantt", "g.png"],
        ["validate", "bad.yaml"],
        ["run", "--config-ini", "bad.ini", "-o", "out.json"],
    ],
    ids=["negative-size", "recoverywork", "yaml-syntax", "validate", "config-ini"],
)
def test_subprocess_errors(args, tmp_path):
    (tmp_path / "bad.yaml").write_text("data:\n  size: [1\n")
    (tmp_path / "bad.ini").write_text("[ndbd default]\nNoOfReplicas=9\n")
    p = ndbsim(*args, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stdout == ""
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "g.png").exists()


def test_debug_shows_traceback(tmp_path):
    p = ndbsim("run", "--debug", "--set", "data.size=-5G", cwd=tmp_path)
    assert p.returncode == 1  # the exception propagates instead of the one-line exit 2
    assert "Traceback" in p.stderr and "InputError" in p.stderr


@pytest.mark.parametrize(
    "sets,needle",
    [
        (["version=8.0.35", "cluster.config.NoOfFragmentLogParts=5"], "use one of 4, 6, 8, 10, 12, 16, 20, 24, 32"),
        (
            ["cluster.config.NoOfFragmentLogParts=32", "cluster.config.MaxNoOfExecutionThreads=2"],
            "at most 4 per LDM thread",
        ),
    ],
    ids=["parts-80-values", "parts-per-ldm"],
)
def test_redo_log_parts_follow_ndbs_rules(sets, needle, capsys, tmp_path):
    args = ["run"]
    for a in sets:
        args += ["--set", a]
    err = run_cli(args, capsys, tmp_path)
    assert "cluster.config.NoOfFragmentLogParts" in err and needle in err


def test_a_minimal_file_says_which_values_are_defaults(capsys, tmp_path):
    path = tmp_path / "min.yaml"
    path.write_text('version: "8.0.35"\n')
    err = run_cli(["validate", str(path)], capsys, tmp_path)
    assert "not set: ndbsim's default" in err and "not set: NDB 8.0.35's default" in err


@pytest.mark.parametrize(
    ("call", "kwargs", "field"),
    [
        ("simulate", {"seed": -1}, "--seed"),
        ("simulate", {"replications": 0}, "--replications"),
        ("solve", {"replications": 0}, "--replications"),
        ("solve", {"seed": -1}, "--seed"),
        ("advise", {"replications": 10**7}, "--replications"),
    ],
)
def test_python_api_refuses_a_bad_seed_or_replication_count(call, kwargs, field):
    import ndbsim
    from ndbsim.errors import InputError

    args = ("redo-log",) if call == "solve" else ()
    with pytest.raises(InputError) as e:
        getattr(ndbsim, call)(*args, **kwargs)
    assert e.value.field == field
