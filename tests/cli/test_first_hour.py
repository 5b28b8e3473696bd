"""A DBA's first hour: every run says what it simulated, and the CLI behaves like its peers
(issue 17's ten observations, one or more tests each; the CLI ones through the CLI)."""

import csv
import io
import json
import sys

import pytest
import yaml
from _helpers import ndbsim
from conftest import ROOT

INI = """[ndbd default]
NoOfReplicas=2
DataMemory=256G
MaxNoOfExecutionThreads=32
[ndb_mgmd]
NodeId=1
[ndbd]
NodeId=11
[ndbd]
NodeId=12
[ndbd]
NodeId=13
[ndbd]
NodeId=14
"""


@pytest.fixture
def ini(tmp_path):
    p = tmp_path / "config.ini"
    p.write_text(INI)
    return p


# 1. a config.ini alone: no DBT2 data, burst or host in disguise; the header says what ran


def test_config_ini_alone_starts_idle_and_names_every_defaulted_value(ini):
    p = ndbsim("run", "--config-ini", str(ini), "--version", "7.6.6")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "DBT2" not in out.splitlines()[0]
    assert "data per node: 256.0G" in out  # from DataMemory, not the default scenario's 60G
    assert "before the restart no burst; during it idle" in out
    assert (
        "threads per data node: 16 LDM, 0 query, 0 recover, 8 tc, 1 main, 1 rep, 3 send, 3 recv threads "
        "(MaxNoOfExecutionThreads=32)" in out
    )
    assert "ndbsim: warning: data.size not given: DataMemory=256G taken as the data size" in p.stderr
    defaulted = " ".join(line for line in out.splitlines() if line.startswith(("defaulted", "  ")))
    for key in (
        "host.cpu_cores=8",
        "host.disk_read=",
        "data.tables=9",
        "workload.updates_per_s=0",
        "restart.type=node",
    ):
        assert key in defaulted, key
    assert "defaulted (derived from DataMemory): data.size=256.0G" in out


def test_config_ini_alone_json_has_the_same_as_fields(ini):
    p = ndbsim("run", "--config-ini", str(ini), "--version", "7.6.6", "-f", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    sim = d["simulated"]
    assert sim["data"]["size"] == 256 * 2**30 and sim["threads"]["ldm"] == 16
    assert sim["workload"]["before_restart"] is None
    assert sim["host"]["cpu_cores"] == 8
    origins = {x["key"]: x["from"] for x in d["defaulted"]}
    assert origins["host.cpu_cores"] == "ndbsim default"
    assert origins["data.size"] == "derived from DataMemory"
    assert "cluster.data_nodes" not in origins  # the config.ini gave it
    assert any("data.size not given" in w for w in d["warnings"])


def test_default_run_says_it_is_the_built_in_scenario():
    p = ndbsim("run", "-f", "json")
    d = json.loads(p.stdout)
    assert {x["from"] for x in d["defaulted"]} >= {"built-in default scenario"}
    assert any("no scenario given" in w for w in d["warnings"])


def test_python_api_results_explain_themselves_too():
    from ndbsim import simulate

    r = simulate(None, overrides=["workload.updates_per_s=5000"], version="8.0.36")
    d = r.to_dict()
    assert {x["from"] for x in d["defaulted"] if x["key"] == "data.size"} == {"built-in default scenario"}
    assert any("runs before the restart only" in w for w in r.warnings)
    assert d["title"].endswith("[as run: workload.updates_per_s=5000, version=8.0.36]") and "8.0.36" in d["title"]


def test_csv_carries_the_simulated_fields_and_warnings(ini):
    p = ndbsim("run", "--config-ini", str(ini), "--version", "7.6.6", "-f", "csv")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert rows and all(float(r["data_size"]) == 256 * 2**30 for r in rows)
    assert rows[0]["threads_ldm"] == "16" and rows[0]["version"] == "7.6.6"
    assert "host.cpu_cores" in rows[0]["defaulted"].split(";")
    assert "data.size not given" in rows[0]["warnings"]


# 2. a --set rate that during_restart overrides is warned about, and the shipped sweep varies it


def test_set_rate_overridden_during_restart_is_warned_in_every_format():
    args = ("run", "--set", "workload.updates_per_s=200000")
    table = ndbsim(*args)
    assert "ndbsim: warning: workload.updates_per_s=200K (--set) runs before the restart only" in table.stderr
    d = json.loads(ndbsim(*args, "-f", "json").stdout)
    assert any("workload.during_restart.updates_per_s=0 replaces it" in w for w in d["warnings"])
    rows = list(csv.DictReader(io.StringIO(ndbsim(*args, "-f", "csv").stdout)))
    assert "during_restart.updates_per_s=0 replaces it" in rows[0]["warnings"]
    fixed = ndbsim(*args, "--set", "workload.during_restart.updates_per_s=null", "-f", "json")
    d = json.loads(fixed.stdout)
    assert not any("replaces it" in w for w in d["warnings"])
    assert d["phases"]["secs_to_synchronize_starting_node"] > 3.75


def test_the_overridden_rate_warning_names_where_the_rate_came_from():
    """The same overridden rate given three ways: each warning names its origin and the fix
    that works there."""
    import warnings

    import ndbsim as api
    from ndbsim.studies.sweep import sweep

    cli = ndbsim("run", "--set", "workload.updates_per_s=200000").stderr
    assert "(--set) runs before" in cli and "add --set workload.during_restart.updates_per_s=null" in cli
    for r in (
        api.simulate(workload__updates_per_s=200000),
        api.simulate(overrides=["workload.updates_per_s=200000"]),
    ):
        (w,) = (w for w in r.warnings if "replaces it" in w)
        assert "(simulate() argument) runs before" in w and "--set" not in w
        assert "pass workload__during_restart__updates_per_s=None" in w
    fixed = api.simulate(workload__updates_per_s=200000, workload__during_restart__updates_per_s=None)
    assert not any("replaces it" in w for w in fixed.warnings)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep(None, {"workload.updates_per_s": [1000, 2000]}, workers=1, progress=False)
    (w,) = (str(c.message) for c in caught if "is varied but" in str(c.message))
    assert "set workload.during_restart.updates_per_s=null (in sweep()'s overrides=)" in w


def test_shipped_random_sweep_restarts_at_the_varied_rate():
    import warnings

    from ndbsim.studies.sweep import load_sweep, sweep

    spec = load_sweep(ROOT / "scenarios/sweeps/update-rate-random.yaml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = sweep(
            spec["base"], spec["factors"], mode="random", samples=3, seed=42, workers=1, overrides=spec["overrides"]
        )
    assert not any("replaces it" in str(w.message) for w in caught)
    assert df["secs_to_synchronize_starting_node"].nunique() == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep(spec["base"], spec["factors"], mode="random", samples=2, seed=42, workers=1)
    assert any("during_restart.updates_per_s=0 replaces it" in str(w.message) for w in caught)


# 3. titles follow the scenario as run


def test_titles_follow_version_and_data_nodes_as_run(tmp_path):
    p = ndbsim("run", "--set", "version=8.0.36", "--set", "cluster.data_nodes=4", "-f", "json")
    d = json.loads(p.stdout)
    assert "8.0.36" in d["title"] and "7.6.6" not in d["title"]
    assert "--set version=8.0.36" in d["title"]
    table = ndbsim("run", "--set", "version=8.0.36").stdout.splitlines()
    assert "8.0.36" in table[0] and "7.6.6" not in table[0]
    from ndbsim.output.header import title_as_run

    assert (
        title_as_run("Rolling restart, 4 data nodes, NDB 8.0", "8.0.36", 8) == "Rolling restart, 8 data nodes, NDB 8.0"
    )
    assert title_as_run("MySQL Cluster 5.1, 1 GB", "5.1.56", 2) == "MySQL Cluster 5.1, 1 GB"


def test_gantt_title_follows_the_run(tmp_path):
    from ndbsim import simulate
    from ndbsim.output.plot import gantt

    r = simulate(None, overrides=["version=8.0.36"])
    r.changes = ["--set version=8.0.36"]
    fig = gantt(r)
    title = fig.axes[0].get_title()
    assert "8.0.36 node restart" in title and "7.6.6" not in title


# 4. config.ini notes in every format and in validate; NodeIds and node groups honoured


def test_config_ini_notes_reach_json_csv_and_validate(tmp_path):
    ini = tmp_path / "c.ini"
    ini.write_text("[ndbd default]\nDataMemory=80G\nODirect=1\n[ndbd]\n[ndbd]\n")
    scenario = str(ROOT / "scenarios/dbt2-600wh-7.6.6.yaml")
    d = json.loads(ndbsim("run", scenario, "--config-ini", str(ini), "-f", "json").stdout)
    assert any("ODirect is not simulated" in w for w in d["warnings"])
    rows = list(csv.DictReader(io.StringIO(ndbsim("run", scenario, "--config-ini", str(ini), "-f", "csv").stdout)))
    assert "ODirect" in rows[0]["warnings"]
    v = ndbsim("validate", scenario, "--config-ini", str(ini))
    assert v.returncode == 0 and "valid" in v.stdout and "ndbsim: warning: c.ini: ODirect is not simulated" in v.stderr


def test_config_ini_node_ids_name_the_nodes(ini):
    p = ndbsim(
        "run",
        "--config-ini",
        str(ini),
        "--version",
        "7.6.6",
        "--set",
        "data.size=10G",
        "--set",
        "restart.type=rolling",
        "-f",
        "json",
    )
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert [n["node_id"] for n in d["nodes"]] == [11, 13, 12, 14]  # one member of each node group per wave
    assert d["scenario"]["cluster"]["node_ids"] == [11, 12, 13, 14]
    p = ndbsim(
        "run", "--config-ini", str(ini), "--version", "7.6.6", "--set", "data.size=10G", "--set", "restart.nodes=[13]"
    )
    assert p.returncode == 0, p.stderr
    assert "node 13" in p.stdout.split("phase (ndbinfo.restart_info)")[1].splitlines()[0]
    bad = ndbsim(
        "run", "--config-ini", str(ini), "--version", "7.6.6", "--set", "data.size=10G", "--set", "restart.nodes=[2]"
    )
    assert bad.returncode == 2
    assert "restart.nodes: node 2 is not a data node; use NodeIds 11, 12, 13, 14" in bad.stderr
    group = ndbsim(
        "run",
        "--config-ini",
        str(ini),
        "--version",
        "7.6.6",
        "--set",
        "data.size=10G",
        "--set",
        "restart.nodes=[11,12]",
    )
    assert group.returncode == 2 and "every node of node group 0 (nodes [11, 12])" in group.stderr


def test_config_ini_node_groups_form_the_groups(tmp_path):
    ini = tmp_path / "g.ini"
    ini.write_text(
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=16G\n"
        "[ndbd]\nNodeId=3\nNodeGroup=0\n[ndbd]\nNodeId=4\nNodeGroup=1\n"
        "[ndbd]\nNodeId=5\nNodeGroup=0\n[ndbd]\nNodeId=6\nNodeGroup=1\n"
    )
    d = json.loads(
        ndbsim(
            "run", "--config-ini", str(ini), "--version", "7.6.6", "--set", "restart.type=rolling", "-f", "json"
        ).stdout
    )
    assert d["scenario"]["cluster"]["node_ids"] == [3, 5, 4, 6]  # node group 0 = {3, 5}
    assert [n["node_id"] for n in d["nodes"]] == [3, 4, 5, 6]
    ini.write_text(ini.read_text().replace("NodeId=6\nNodeGroup=1", "NodeId=6\nNodeGroup=0"))
    bad = ndbsim("run", "--config-ini", str(ini), "--version", "7.6.6")
    assert bad.returncode == 2 and "node groups of unequal size" in bad.stderr


# 5. exit codes scripts can use


@pytest.mark.parametrize(
    "sets, status",
    [
        (["workload.updates_per_s=3e5"], "redo-overload"),
        (["workload.during_restart.inserts_per_s=5e6"], "non-converging"),
    ],
)
def test_a_restart_that_would_not_make_it_exits_4_and_still_prints(sets, status):
    args = [a for s in sets for a in ("--set", s)]
    p = ndbsim("run", *args, "-f", "json")
    assert p.returncode == 4, p.stderr
    assert json.loads(p.stdout)["status"] == status
    assert ndbsim("run").returncode == 0
    assert ndbsim("run", "--set", "data.size=x").returncode == 2


# 6. calibrate never overwrites the packaged constants unless told


def test_calibrate_writes_a_user_file_by_default(tmp_path):
    from ndbsim.input.profiles import CALIBRATED_FILE

    before = CALIBRATED_FILE.read_bytes()
    p = ndbsim("calibrate", "--cases", str(ROOT / "calibration"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "ndbsim-constants.yaml").exists()
    assert CALIBRATED_FILE.read_bytes() == before
    assert "wrote ndbsim-constants.yaml; use it with --constants ndbsim-constants.yaml" in p.stderr
    bad = ndbsim("calibrate", "--output", str(CALIBRATED_FILE), cwd=tmp_path)
    assert bad.returncode == 2 and "--replace-packaged" in bad.stderr
    assert CALIBRATED_FILE.read_bytes() == before


def test_a_fit_that_breaks_published_cases_is_found(tmp_path):
    from _helpers import KNOWN_GAPS

    from ndbsim.input.profiles import CALIBRATED_FILE, constants_file
    from ndbsim.studies.calibration.check import broken_cases

    def beyond_gaps(broken: list[str]) -> list[str]:
        return [b for b in broken if b.split(":")[0] not in KNOWN_GAPS]

    assert beyond_gaps(broken_cases(CALIBRATED_FILE)) == []
    bad = yaml.safe_load(CALIBRATED_FILE.read_text())
    bad["shared"]["constants"]["restore_row_secs"] *= 3
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad))
    broken = beyond_gaps(broken_cases(path))
    assert any("secs_restore_fragments" in b for b in broken)
    assert constants_file() == CALIBRATED_FILE  # the constants in use are restored


def test_a_constants_fit_that_breaks_published_cases_is_refused(tmp_path, monkeypatch, capsys):
    """A fit that puts a published figure out of tolerance writes nothing and exits 1, naming the
    figure and by how much; --accept-worse writes it."""
    import dataclasses

    import ndbsim.studies.calibration.calibrate
    from ndbsim.cli.app import main
    from ndbsim.input.profiles import calibrated_constants

    good = calibrated_constants("7.6")
    bad = dataclasses.replace(good, restore_row_secs=good.restore_row_secs * 3)
    monkeypatch.setattr(ndbsim.studies.calibration.calibrate, "fit", lambda cases, steps=None: (bad, {}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["calibrate", "--cases", str(ROOT / "calibration")])
    out = capsys.readouterr().out
    assert exc.value.code == 1
    assert "fit refused" in out and "secs_restore_fragments" in out and "WORSE" in out
    assert not (tmp_path / "ndbsim-constants.yaml").exists()
    with pytest.raises(SystemExit) as exc:
        main(["calibrate", "--cases", str(ROOT / "calibration"), "--accept-worse"])
        raise SystemExit(0)
    assert exc.value.code == 0
    assert (tmp_path / "ndbsim-constants.yaml").exists()


# 7. --version, -h, examples, defaults and choices, readable metavars, init


def test_version_and_short_help():
    p = ndbsim("--version")
    assert p.returncode == 0 and p.stdout.startswith("ndbsim ")
    for command in ("run", "validate", "init", "params", "check", "calibrate", "sweep"):
        h = ndbsim(command, "-h")
        assert h.returncode == 0, (command, h.stderr)
        assert "Examples:" in h.stdout, command
        assert "<list[str]>" not in h.stdout and "<str>" not in h.stdout and "_file" not in h.stdout, command
    run = ndbsim("run", "-h").stdout
    assert "[SCENARIO.yaml]" in run and "KEY=VALUE" in run and "[table|json|csv]" in run
    assert "default: the scenario's, 1" in run
    assert "default 7.6.6" in ndbsim("params", "-h").stdout


def test_init_writes_a_commented_scenario_that_runs(ini, tmp_path):
    out = tmp_path / "my.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "7.6.6", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert "DataMemory: 256G   # from config.ini" in text and "node_ids: [11, 12, 13, 14]" in text
    assert "# Physical cores per data-node host." in text  # every key's meaning
    assert "size: 256G   # DataMemory's: replace with your data's size" in text
    raw = yaml.safe_load(text)
    assert raw["workload"].get("before_restart") is None  # neutral: no DBT2 burst
    assert ndbsim("validate", str(out)).returncode == 0
    assert ndbsim("run", str(out), "--set", "data.size=20G").returncode == 0
    plain = ndbsim("init")
    assert plain.returncode == 0 and "cpu_cores: 8" in plain.stdout
    assert "size: 80M   # DataMemory's" in plain.stdout  # NDB's default DataMemory, until you give yours


def test_init_writes_datamemory_as_the_exact_data_size(tmp_path):
    """data.size taken from DataMemory is written exactly, not rounded to one decimal of a unit."""
    from ndbsim.input.units import parse_bytes

    ini = tmp_path / "c.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nDataMemory=1234M\n[ndbd]\n[ndbd]\n")
    p = ndbsim("init", "--config-ini", str(ini), "--version", "7.6.6")
    assert p.returncode == 0, p.stderr
    assert parse_bytes(yaml.safe_load(p.stdout)["data"]["size"]) == 1234 * 2**20


def test_init_reads_the_config_ini_as_run_does(tmp_path):
    """One load pipeline: an error in a value the config.ini set is the same error, naming the
    file, from ndbsim init and ndbsim run; a --set that repairs it counts for both."""
    ini = tmp_path / "bad.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=3\n[ndbd]\n[ndbd]\n")
    init, run = (
        ndbsim(cmd, "--config-ini", str(ini), "--version", "7.6.6", "--set", "data.size=1G") for cmd in ("init", "run")
    )
    assert init.returncode == run.returncode == 2
    assert init.stderr == run.stderr
    assert init.stderr.strip().endswith(f"(value from {ini})")
    fixed = ndbsim("init", "--config-ini", str(ini), "--version", "7.6.6", "--set", "cluster.config.NoOfReplicas=2")
    assert fixed.returncode == 0, fixed.stderr
    assert "NoOfReplicas: 2" in fixed.stdout


# 8. counts and durations DBAs write


def test_billions_and_days_are_read():
    from ndbsim.input.units import parse_count, parse_duration

    assert parse_count("1.2B") == parse_count("1.2G") == 1.2e9
    assert parse_duration("1d") == 86400 and parse_duration("1d12h") == 129600
    p = ndbsim("run", "--set", "data.rows=1.2B", "--set", "data.size=250G", "--set", "cluster.config.DataMemory=260G")
    assert p.returncode == 0, p.stderr
    assert "1.2B rows" in p.stdout
    p = ndbsim("run", "--set", "restart.downtime=1d", "-f", "json")
    assert json.loads(p.stdout)["simulated"]["restart"]["downtime"] == 86400


# 9. a lighter base install; a missing extra is one line naming it


def test_base_install_leaves_the_optional_paths_to_extras():
    text = (ROOT / "pyproject.toml").read_text()
    base = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    for heavy in ("scipy", "pyarrow", "dask", "prometheus"):
        assert heavy not in base
    test = text.split("test = [", 1)[1].split("]\n", 1)[0]
    assert '"ndbsim[calibrate,parquet,cluster,prometheus,notebooks]"' in test
    assert 'requires-python = ">=3.10"' in text
    assert "Python 3.10 or newer" in (ROOT / "README.md").read_text()


def test_the_notebooks_extra_installs_what_they_import_and_the_readme_says_so():
    """The notebooks need a kernel and ``jupyter execute``: an extra installs them, README says how."""
    import json
    import re

    text = (ROOT / "pyproject.toml").read_text()
    extra = re.search(r"^notebooks = \[(.*)\]$", text, re.M)
    assert extra is not None and all(p in extra.group(1) for p in ("ipykernel", "nbclient", "nbformat"))
    readme = (ROOT / "README.md").read_text()
    assert 'pip install -e ".[notebooks]"' in readme and "jupyter execute" in readme
    imported = set()
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in json.loads(nb.read_text())["cells"]:
            imported |= set(re.findall(r"^(?:from|import) (\w+)", "".join(cell["source"]), re.M))
    base = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    stdlib = {"os", "_common", "ndbsim", "math", "json", "re", "itertools"}
    assert imported - stdlib <= {"matplotlib", "pandas", "numpy", "yaml"}
    assert all(p in base for p in ("matplotlib", "pandas", "numpy", "pyyaml"))


@pytest.mark.parametrize(
    "module, extra",
    [
        ("scipy", "calibrate"),
        ("pyarrow", "parquet"),
        ("dask.distributed", "cluster"),
        ("prometheus_client", "prometheus"),
    ],
)
def test_a_missing_extra_names_its_install(module, extra, monkeypatch):
    from ndbsim.errors import InputError
    from ndbsim.extras import require

    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(InputError, match=rf"pip install 'ndbsim\[{extra}\]'"):
        require(module)
