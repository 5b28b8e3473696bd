"""Issue 35, provenance after ``init``: a 3-replica NDB 8.4.3 cluster (NodeIds 21–23 and 31–33,
a ThreadConfig, disk-data InitialTablespace/InitialLogFileGroup, ODirect, CompressedLCP,
LockPagesInMainMemory) through the command line. The scenario ``init`` writes says where each
value came from; a run of it lists ndbsim's defaults as defaulted and warns about the parameters
ndbsim does not model, in the table, JSON, CSV and report, as a run on the config.ini does; a
value the user edits afterwards is the user's."""

import csv
import io
import json
from pathlib import Path

import pytest
from _helpers import THREE_REPLICA_NODES, ndbsim

CONFIG_INI = (
    """\
[ndbd default]
NoOfReplicas=3
DataMemory=16G
ThreadConfig=main={count=1},ldm={count=4},recv={count=2},send={count=1},tc={count=2},rep={count=1},io={count=1}
NoOfFragmentLogParts=4
NoOfFragmentLogFiles=16
FragmentLogFileSize=256M
InitialTablespace=name=ts1;extent_size=1M;data1.dat:8G
InitialLogFileGroup=name=lg1;undo_buffer_size=64M;undo1.log:4G
ODirect=1
CompressedLCP=1
LockPagesInMainMemory=1
DataDir=/var/lib/mysql-cluster

[ndb_mgmd]
NodeId=1
HostName=mgm1

"""
    + THREE_REPLICA_NODES
    + """
[mysqld]
NodeId=51
"""
)

EXPORT = Path(__file__).parent.parent / "ndbinfo" / "export-8.4.3-unmodelled.tsv"
"""The same cluster's ndbinfo export (config_values with param_default, as ``ndbsim ndbinfo-sql`` reads it)."""

HOST_FIGURES = {"host.disk_read", "host.disk_write", "host.network"}
NOT_MODELLED = ("ODirect", "CompressedLCP", "LockPagesInMainMemory")


@pytest.fixture
def ini(tmp_path):
    p = tmp_path / "prod-cluster.ini"  # warnings name the file
    p.write_text(CONFIG_INI)
    return p


@pytest.fixture
def from_ini(ini, tmp_path):
    out = tmp_path / "cluster.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 0, p.stderr
    return out


@pytest.fixture
def from_export(tmp_path):
    out = tmp_path / "fromndb.yaml"
    p = ndbsim("init", "--ndbinfo", str(EXPORT), "-o", str(out))
    assert p.returncode == 0, p.stderr
    return out


def run_json(*args):
    p = ndbsim("run", *args, "-f", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def not_simulated(warnings, where):
    return {w.split(": ", 1)[1].split(" is not simulated", 1)[0] for w in warnings if w.startswith(f"{where}: ")}


def test_init_then_run_lists_defaults_and_warnings_as_the_config_ini_run_does(ini, from_ini):
    direct = run_json("--config-ini", str(ini), "--version", "8.4.3")
    again = run_json(str(from_ini))
    assert {d["key"] for d in again["defaulted"]} >= HOST_FIGURES
    assert [(d["key"], d["from"]) for d in again["defaulted"]] == [(d["key"], d["from"]) for d in direct["defaulted"]]
    assert set(NOT_MODELLED) <= not_simulated(again["warnings"], "prod-cluster.ini")
    assert not_simulated(again["warnings"], "prod-cluster.ini") == not_simulated(direct["warnings"], "prod-cluster.ini")
    assert [w for w in again["warnings"] if "is not simulated" in w] == [
        w for w in direct["warnings"] if "is not simulated" in w
    ]


def test_the_table_names_the_host_defaults_and_warns(from_ini):
    p = ndbsim("run", str(from_ini))
    assert p.returncode == 0, p.stderr
    defaulted = " ".join(
        ln.strip() for ln in p.stdout.split("\n\n")[0].splitlines() if ln.startswith(("defaulted", " "))
    )
    for key in HOST_FIGURES:
        assert f"{key}=" in defaulted, p.stdout
    for name in NOT_MODELLED:
        assert f"prod-cluster.ini: {name} is not simulated" in p.stderr
    assert "host: not given, so ndbsim's defaults were simulated" in p.stderr


def test_csv_and_report_carry_them_too(from_ini, tmp_path):
    p = ndbsim("run", str(from_ini), "-f", "csv")
    assert p.returncode == 0, p.stderr
    row = next(csv.DictReader(io.StringIO(p.stdout)))
    assert set(row["defaulted"].split(";")) >= HOST_FIGURES
    for name in NOT_MODELLED:
        assert f"prod-cluster.ini: {name} is not simulated" in row["warnings"]
    html = tmp_path / "r.html"
    p = ndbsim("report", str(from_ini), "-o", str(html), "--no-advise", "-n", "2")
    assert p.returncode == 0, p.stderr
    page = html.read_text()
    assert "Warnings</h2><p>None" not in page
    for name in NOT_MODELLED:
        assert f"prod-cluster.ini: {name} is not simulated" in page
    for key in HOST_FIGURES:
        assert key in page.split("What was defaulted", 1)[1]


def test_a_value_the_user_edits_is_the_users(from_ini):
    text = from_ini.read_text()
    assert "  disk_read: 1G/s" in text
    from_ini.write_text(text.replace("  disk_read: 1G/s", "  disk_read: 2G/s", 1))
    keys = {d["key"] for d in run_json(str(from_ini))["defaulted"]}
    assert "host.disk_read" not in keys
    assert {"host.disk_write", "host.network"} <= keys


def test_a_set_on_the_run_is_the_users_and_leaves_its_siblings_defaulted(from_ini, ini):
    keys = {d["key"] for d in run_json(str(from_ini), "--set", "host.network=25Gbit/s")["defaulted"]}
    assert "host.network" not in keys and {"host.disk_read", "host.disk_write"} <= keys
    keys = {
        d["key"]
        for d in run_json("--config-ini", str(ini), "--version", "8.4.3", "-s", "host.network=25Gbit/s")["defaulted"]
    }
    assert "host.network" not in keys and {"host.disk_read", "host.disk_write"} <= keys


def test_validate_warns_about_the_unmodelled_parameters(from_ini):
    p = ndbsim("validate", str(from_ini))
    assert p.returncode == 0, p.stderr
    for name in NOT_MODELLED:
        assert f"prod-cluster.ini: {name} is not simulated" in p.stderr


def test_init_ndbinfo_then_run_lists_host_defaults_and_unmodelled_parameters(from_export, tmp_path):
    d = run_json(str(from_export))
    keys = {x["key"]: x["from"] for x in d["defaulted"]}
    assert set(keys) >= HOST_FIGURES and {keys[k] for k in HOST_FIGURES} == {"ndbsim default"}
    assert "host.cpu_cores" not in keys  # ndbinfo.hwinfo gave it
    assert d["simulated"]["version_from"] == "ndbinfo export"
    listed = not_simulated(d["warnings"], "ndbinfo.config_values")
    assert set(NOT_MODELLED) <= listed and "SpinMethod" in listed
    assert not {"HeartbeatIntervalDbDb", "MaxNoOfTables", "DataDir"} & listed  # at NDB's default, or placement
    p = ndbsim("run", str(from_export), "-f", "csv")
    row = next(csv.DictReader(io.StringIO(p.stdout)))
    assert set(row["defaulted"].split(";")) >= HOST_FIGURES
    assert "ndbinfo.config_values: ODirect is not simulated" in row["warnings"]
    html = tmp_path / "n.html"
    p = ndbsim("report", str(from_export), "-o", str(html), "--no-advise", "-n", "2")
    assert p.returncode == 0, p.stderr
    assert "ndbinfo.config_values: CompressedLCP is not simulated" in html.read_text()


def test_init_ndbinfo_says_so_when_the_export_cannot_tell_the_unmodelled_parameters(tmp_path):
    old = Path(__file__).parent.parent / "ndbinfo" / "export-8.0.35.tsv"  # config_values without param_default
    p = ndbsim("init", "--ndbinfo", str(old))
    assert p.returncode == 0, p.stderr
    assert "param_default" in p.stdout and "ndbsim ndbinfo-sql" in p.stdout


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (("  ndbsim default:\n", "  my guess:\n"), ("provenance.my guess", "ndbsim default")),
        (("      ODirect: '1'\n", "      NoSuchParam: '1'\n"), ("NoSuchParam", "remove the line")),
    ],
)
def test_a_damaged_provenance_section_is_one_line_naming_the_entry(from_ini, edit, needles):
    text = from_ini.read_text()
    assert edit[0] in text
    from_ini.write_text(text.replace(*edit, 1))
    p = ndbsim("run", str(from_ini))
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    for n in needles:
        assert n in p.stderr, p.stderr
