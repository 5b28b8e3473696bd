"""Every InnoDB run says what it simulated and what it defaulted, as NDB runs do: under the
table's title, in JSON (``simulated``, ``defaulted``) and in CSV columns."""

import csv
import io
import json
import subprocess
import sys

import pytest
from conftest import ROOT

FLASH = ROOT / "scenarios/innodb-tpcc1000-bp52g-flash.yaml"


def ndbsim(*args):
    p = subprocess.run([sys.executable, "-m", "ndbsim", *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture
def minimal(tmp_path):
    """An InnoDB scenario that gives only the redo rate: every other input is ndbsim's default."""
    path = tmp_path / "min.yaml"
    path.write_text("name: minimal\nkind: innodb\nworkload:\n  redo_rate: 2MB/s\n")
    return path


def test_the_table_says_what_was_simulated():
    out = ndbsim("run", str(FLASH), "--set", "server.buffer_pool_size=144G")
    head = out.split("\n\n")[0].splitlines()
    assert head[2] == "with --set server.buffer_pool_size=144G"
    assert head[3].startswith("simulated: InnoDB 5.5.7-percona crash recovery · buffer pool 144.0G · redo log 2 × 4.0G")
    assert head[4].startswith("storage: flash, 100K read IOPS, 50K write IOPS, sequential read 800.0M/s")
    assert "2.9M/s of redo (1.0K txn/s × 3.0K) for 30m00s, 75% dirty pages" in head[5]
    assert head[6].startswith("data 100.0G, 5.0K uncommitted rows")
    # the shipped case gives every input but the jitter
    assert head[7] == "defaulted (ndbsim default): simulation.jitter=0.05"


def test_json_names_each_defaulted_value_and_skips_the_redo_rate_form_not_used(minimal):
    d = json.loads(ndbsim("run", str(minimal), "-f", "json"))
    sim = d["simulated"]
    assert sim["server"]["log_capacity"] == 8 * 2**30
    assert sim["workload"]["redo_rate"] == 2 * 2**20
    assert sim["workload"]["data_size"] == sim["server"]["buffer_pool_size"] == 52 * 2**30  # the buffer pool
    assert sim["storage"]["read_latency"] == pytest.approx(1e-4)  # flash's
    defaulted = {x["key"]: x for x in d["defaulted"]}
    assert defaulted["server.buffer_pool_size"] == {
        "key": "server.buffer_pool_size",
        "value": 52 * 2**30,
        "from": "ndbsim default",
    }
    assert {"version", "storage.kind", "workload.run_time", "simulation.jitter"} <= set(defaulted)
    assert not {"workload.redo_rate", "workload.tps", "workload.redo_per_txn", "simulation.seed"} & set(defaulted)
    assert any(w.startswith("storage: not given") for w in d["warnings"])


def test_a_set_value_is_not_defaulted_and_the_title_names_it(minimal):
    d = json.loads(ndbsim("run", str(minimal), "-f", "json", "--set", "storage.kind=raid10"))
    assert "storage.kind" not in {x["key"] for x in d["defaulted"]}
    assert d["simulated"]["storage"]["read_latency"] == pytest.approx(5e-3)  # raid10's
    assert d["title"] == "minimal [as run: --set storage.kind=raid10]"
    assert not any(w.startswith("storage: not given") for w in d["warnings"])


def test_csv_rows_carry_the_simulated_fields(minimal):
    rows = list(csv.DictReader(io.StringIO(ndbsim("run", str(minimal), "-f", "csv"))))
    assert [r["phase"] for r in rows] == ["secs_redo_scan", "secs_redo_apply", "secs_rollback", "total_restart_secs"]
    for r in rows:
        assert float(r["server_buffer_pool_size"]) == 52 * 2**30
        assert r["storage_kind"] == "flash"
        assert "server.innodb_log_file_size" in r["defaulted"].split(";")
        assert "server: not given" in r["warnings"]


def test_the_python_api_says_it_too():
    import ndbsim as api

    r = api.simulate(str(FLASH), overrides=["workload.dirty_pct=80"])
    assert r.explained["simulated"]["workload"]["dirty_pct"] == 80
    assert [x["key"] for x in r.explained["defaulted"]] == ["simulation.jitter"]
