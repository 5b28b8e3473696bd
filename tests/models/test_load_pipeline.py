"""The load pipeline (ndbsim/models/load.py): read → config.ini → --set → model → resolve, with its
notes returned as data, for every entry point."""

import pytest
from conftest import ROOT

import ndbsim
from ndbsim.errors import InputError
from ndbsim.innodb import InnodbResult, simulate_innodb
from ndbsim.input import scenario as sc
from ndbsim.models.load import load, read
from ndbsim.models.registry import INNODB, NDB

NDB_FILE = ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml"
INNODB_FILE = ROOT / "scenarios" / "innodb-tpcc1000-bp52g-flash.yaml"


def write_ini(tmp_path, text):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    return ini


def test_the_model_comes_from_kind_after_the_overrides():
    assert read(NDB_FILE).model is NDB
    assert read(INNODB_FILE).model is INNODB
    assert read(None).model is NDB  # the built-in default
    assert read(INNODB_FILE, overrides=["kind=ndb"]).model is NDB


def test_each_model_resolves_to_its_own_scenario_type():
    assert isinstance(load(NDB_FILE).prepared, sc.Resolved)
    assert load(INNODB_FILE).prepared.kind == "innodb"


def test_config_ini_notes_come_before_the_fixed_rows_note(tmp_path):
    ini = write_ini(tmp_path, "[ndbd default]\nNoOfReplicas=2\nDataMemory=200G\nHostName=x\n[ndbd]\n[ndbd]\n")
    loaded = load(
        {**sc.load_raw(NDB_FILE), "data": {"size": "60G", "rows": 1000}},
        config_ini=ini,
        overrides=["data.size=100G"],
        rows_fix="FIX",
    )
    from ndbsim.input.config.ini import merge_config_ini

    ini_notes: list[str] = []
    merge_config_ini({**sc.load_raw(NDB_FILE), "data": {"size": "60G", "rows": 1000}}, ini, None, ini_notes, {})
    assert ini_notes and loaded.notes[:-1] == ini_notes
    assert loaded.notes[-1].startswith("data.rows stays 1000")
    assert loaded.notes[-1].endswith("FIX to derive the rows from data.row_size")


def test_without_a_fix_there_is_no_rows_note():
    raw = {**sc.load_raw(NDB_FILE), "data": {"size": "60G", "rows": 1000}}
    assert read(raw, overrides=["data.size=30G"]).notes == []
    assert read(raw, varied=["data.size"], rows_fix="FIX").notes  # a swept size counts too


def test_a_config_ini_value_that_fails_names_the_file(tmp_path):
    ini = write_ini(tmp_path, "[ndbd default]\nNoOfReplicas=1\n[ndbd]\n[ndbd]\n")
    with pytest.raises(InputError) as e:
        load(NDB_FILE, config_ini=ini)
    assert e.value.field == "cluster.config.NoOfReplicas" and f"(value from {ini})" in e.value.message
    with pytest.raises(InputError) as e:  # set again by --set: the override is to blame
        load(NDB_FILE, config_ini=ini, overrides=["cluster.config.NoOfReplicas=1"])
    assert "value from" not in e.value.message


def test_a_config_ini_on_an_innodb_scenario_is_refused(tmp_path):
    ini = write_ini(tmp_path, "[ndbd default]\nNoOfReplicas=2\n")
    with pytest.raises(InputError) as e:
        read(INNODB_FILE, config_ini=ini)
    assert e.value.field == "--config-ini" and "InnoDB" in e.value.message


def test_an_override_error_can_name_its_list_entry():
    with pytest.raises(InputError) as e:
        read(NDB_FILE, source="case.yaml", overrides=["data.size=1G", "nokey"], overrides_field="overrides")
    assert (e.value.field, e.value.source) == ("overrides[1]", "case.yaml")
    with pytest.raises(InputError) as e:
        read(NDB_FILE, overrides=["nokey"])
    assert e.value.field == "--set"


def test_simulate_runs_innodb_scenarios_like_simulate_innodb():
    r = ndbsim.simulate(INNODB_FILE, seed=4, replications=3, workload__run_time=600)
    assert isinstance(r, InnodbResult)
    raw = sc.load_raw(INNODB_FILE)
    raw["workload"]["run_time"] = 600
    ours, theirs = r.to_dict(), simulate_innodb(raw, seed=4, replications=3).to_dict()
    assert ours.pop("title") == f"{theirs.pop('title')} [as run: workload.run_time=600]"
    assert ours == theirs
