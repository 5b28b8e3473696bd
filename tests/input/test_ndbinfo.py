"""Start from the running cluster: the SQL script, its `mysql --batch` export (fixtures in that exact
form: tab-separated, a header per result, NULL as NULL, \\t and \\n escaped, empty results printing
nothing) and `ndbsim init --ndbinfo`."""

import json
import shlex
from pathlib import Path

import pytest
import yaml
from _helpers import ndbsim

from ndbsim.input.ndbinfo import REQUIRED, parse_export, unescape

HERE = Path(__file__).resolve().parents[1] / "ndbinfo"
EXPORT_80 = HERE / "export-8.0.35.tsv"
EXPORT_76 = HERE / "export-7.6.30.tsv"
EXPORT_3R = HERE / "export-8.4.3-3replicas.tsv"
"""8.4.3, NoOfReplicas=3, NodeIds 21-23 and 31-33; restart_info rows of node 31, then 21 (a rolling
restart); made from the 8.0 fixture by make_3replica_export.py."""

HAND_WRITTEN_80 = """\
name: the exported cluster, written by hand
version: "8.0.35"
cluster:
  data_nodes: 4
  node_ids: [11, 12, 13, 14]
  config:
    NoOfReplicas: 2
    DataMemory: 64G
    AutomaticThreadConfig: true
    NumCPUs: 16
    NoOfFragmentLogParts: 8
    NoOfFragmentLogFiles: 32
    FragmentLogFileSize: 1G
host: {cpu_cores: 16, threads_per_core: 2}
data: {size: 40G, rows: 160M, tables: 20, ordered_indexes: 30}
workload: {updates_per_s: 20000, inserts_per_s: 500, deletes_per_s: 500}
restart: {type: node, nodes: [12]}
"""
"""The facts the 8.0 fixture states (its restart_info row: node 12 restarted; 2 replicas: its
per-replica operation counts are twice the cluster-wide rates), the rest at 8.0.35's defaults as
the export's config_values give them."""


def test_the_script_reads_every_table_the_export_needs():
    p = ndbsim("ndbinfo-sql")
    assert p.returncode == 0, p.stderr
    for block in REQUIRED:
        assert f"SELECT '{block}' AS ndbsim_table;" in p.stdout
    for table in ("processes", "memoryusage", "memory_per_fragment", "dict_obj_info", "config_values",
                  "config_params", "threads", "threadblocks", "hwinfo", "disk_write_speed_aggregate",
                  "operations_per_fragment", "restart_info"):  # fmt: skip
        assert f"ndbinfo.{table}" in p.stdout
    assert "SELECT 'end' AS ndbsim_table;" in p.stdout
    assert "SLEEP(60)" in p.stdout


def test_mysql_batch_escapes_and_null():
    assert unescape("NULL") is None
    assert unescape("a\\tb\\nc\\\\d") == "a\tb\nc\\d"
    text = EXPORT_80.read_text().replace("Restart completed", "Restart\\tcompleted")
    ex = parse_export(text, "x.tsv")
    assert ex.rows("restart_info")[0]["node_restart_status"] == "Restart\tcompleted"


def init_run(tmp_path, export, *sets):
    out = tmp_path / "from-export.yaml"
    p = ndbsim("init", "--ndbinfo", str(export), "-o", str(out), *sets)
    assert p.returncode == 0, p.stderr
    return out


def test_init_from_an_80_export_runs_as_the_hand_written_scenario(tmp_path):
    out = init_run(tmp_path, EXPORT_80)
    text = out.read_text()
    assert 'version: "8.0.35"   # ndbinfo.processes' in text
    assert "size: 40G   # ndbinfo.memoryusage" in text and "rows: 160000000   # ndbinfo.memory_per_fragment" in text
    assert "updates_per_s: 20000   # ndbinfo.operations_per_fragment" in text
    assert "cpu_cores: 16   # ndbinfo.hwinfo" in text and "ordered_indexes: 30   # ndbinfo.dict_obj_info" in text
    assert "AutomaticThreadConfig: true   # ndbinfo.config_values" in text
    hand = tmp_path / "hand.yaml"
    hand.write_text(HAND_WRITTEN_80)
    a, b = (json.loads(ndbsim("run", str(f), "-f", "json").stdout) for f in (out, hand))
    assert round(a["total_restart_secs"]) == round(b["total_restart_secs"])
    assert {k: round(v) for k, v in a["phases"].items()} == {k: round(v) for k, v in b["phases"].items()}
    assert a["simulated"]["threads"]["ldm"] == 4


def test_init_writes_restart_info_as_a_calibration_case(tmp_path):
    out = tmp_path / "from-export.yaml"
    p = ndbsim("init", "--ndbinfo", str(EXPORT_80), "-o", str(out))
    assert p.returncode == 0, p.stderr
    case = tmp_path / "from-export.restart_info.csv"
    head, row = case.read_text().splitlines()
    assert head.startswith("node_id,node_restart_status,") and row.startswith("12,Restart completed,")
    assert f"ndbsim calibrate --restart-info {case} --scenario {out}" in p.stderr
    assert "from-export.restart_info.csv" in out.read_text()


def test_a_76_export_without_80s_tables(tmp_path):
    out = init_run(tmp_path, EXPORT_76)
    text = out.read_text()
    assert 'version: "7.6.30"' in text and "no ndbinfo.hwinfo" in text
    assert not (tmp_path / "from-export.restart_info.csv").exists()  # 7.6 fixture: no restart yet
    p = ndbsim("run", str(out), "-f", "json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["version"] == "7.6.30" and d["simulated"]["threads"]["ldm"] == 8


def _without_block(text, name):
    lines = text.splitlines()
    i = lines.index(name)
    j = next(k for k in range(i + 1, len(lines)) if lines[k] == "ndbsim_table")
    return "\n".join(lines[: i - 1] + lines[j:]) + "\n"


def _mixed(text):
    return text.replace("13\tNDB\t8.0.35", "13\tNDB\t8.0.34", 1)


def _truncated(text):
    return text[: text.index("ndbsim_table\nthreads")]


def _strangers(text):
    return text.replace("\n12\tRestart completed", "\n7\tRestart completed")


@pytest.mark.parametrize(
    ("damage", "needles"),
    [
        (lambda t: _without_block(t, "memoryusage"), ("ndbinfo.memoryusage", "missing")),
        (_mixed, ("ndbinfo.processes", "8.0.34", "upgrade")),
        (_truncated, ("ndbinfo.config_values", "run the whole script again")),
        (_strangers, ("ndbinfo.restart_info", "same cluster")),
        (lambda t: t.replace("ndbsim_export", "nope", 1), ("ndbsim ndbinfo-sql",)),
    ],
    ids=["table-missing", "mixed-releases", "truncated", "another-cluster", "not-an-export"],
)
def test_a_bad_export_is_one_line_naming_the_table_and_fix(tmp_path, damage, needles):
    bad = tmp_path / "bad.tsv"
    bad.write_text(damage(EXPORT_80.read_text()))
    out = tmp_path / "x.yaml"
    p = ndbsim("init", "--ndbinfo", str(bad), "-o", str(out))
    assert p.returncode == 2, p.stdout + p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    for n in needles:
        assert n in p.stderr, p.stderr
    assert not out.exists()


def test_init_takes_the_restart_from_restart_info_rows(tmp_path):
    """A rolling restart's rows give a rolling scenario of those nodes in their order; one node's
    row a node restart of that node."""
    out = init_run(tmp_path, EXPORT_3R)
    restart = yaml.safe_load(out.read_text())["restart"]
    assert (restart["type"], restart["nodes"], restart["plan"]) == ("rolling", [31, 21], [[31], [21]])
    one = yaml.safe_load(init_run(tmp_path, EXPORT_80).read_text())["restart"]
    assert (one["type"], one["nodes"]) == ("node", [12])


def test_the_printed_calibrate_command_works_unedited_on_a_3_replica_export(tmp_path):
    """init --ndbinfo prints a calibrate command; run word for word it fits the host figures
    beside the scenario (which stays byte-identical), and check --cases reads the case it wrote."""
    p = ndbsim("init", "--ndbinfo", str(EXPORT_3R), "-o", "fromndb.yaml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    printed = next(line for line in p.stderr.splitlines() if "ndbsim calibrate" in line)
    command = shlex.split(printed[printed.index("ndbsim calibrate") :])
    before = (tmp_path / "fromndb.yaml").read_bytes()
    fit = ndbsim(*command[1:], cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    assert (tmp_path / "fromndb.yaml").read_bytes() == before
    assert "core_speed" in yaml.safe_load((tmp_path / "fromndb.calibrated.yaml").read_text())["host"]
    printed = next(line for line in fit.stderr.splitlines() if "ndbsim check --cases" in line)
    check = ndbsim(*shlex.split(printed[printed.index("ndbsim check") : printed.rindex(")")])[1:], cwd=tmp_path)
    assert check.returncode in (0, 1), check.stderr  # ran: each row within tolerance or not
    for node in (31, 21):
        assert f"node {node}: total_restart_secs" in check.stdout
