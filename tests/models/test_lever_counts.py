"""advise shows a count or an event rate as a DBA writes it (``1.5M``, ``200K``: ``format_count``),
never ``1.5e+06``; the ``--set`` that applies a candidate carries the exact value."""

from conftest import ROOT

from ndbsim.input.scenario import load_raw
from ndbsim.models.levers import innodb_levers, levers_for
from ndbsim.studies.runs import resolve_variant

ROLLING_80 = ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml"
INNODB = ROOT / "scenarios" / "innodb-tpcc1000-bp52g-flash.yaml"


def lever(levers, name):
    return next(lv for lv in levers if lv.name == name)


def test_an_update_rate_in_millions_reads_as_a_dba_writes_it():
    key = "workload.during_restart.updates_per_s"
    prepared = resolve_variant(load_raw(str(ROLLING_80)), (f"{key}=3M",)).prepared
    lv = lever(levers_for(prepared), key)
    assert lv.current == "3.0M"
    assert [(c.value, c.sets) for c in lv.candidates] == [("1.5M", (f"{key}=1500000",)), ("0", (f"{key}=0",))]


def test_a_rate_shown_rounded_is_set_exactly():
    key = "workload.during_restart.updates_per_s"
    prepared = resolve_variant(load_raw(str(ROLLING_80)), (f"{key}=1234567",)).prepared
    half = lever(levers_for(prepared), key).candidates[0]
    assert (half.value, half.sets) == ("617K", (f"{key}=617283.5",))


def test_a_redo_file_count_stays_a_config_ini_integer():
    prepared = resolve_variant(load_raw(str(ROLLING_80)), ("cluster.config.NoOfFragmentLogFiles=3000000",)).prepared
    lv = lever(levers_for(prepared), "NoOfFragmentLogFiles")
    assert "cluster.config.NoOfFragmentLogFiles=6000000" in [s for c in lv.candidates for s in c.sets]
    assert all("e+" not in c.value for c in lv.candidates)


def test_innodb_iops_read_in_thousands_and_millions():
    prepared = resolve_variant(load_raw(str(INNODB)), ("storage.read_iops=750K",)).prepared
    lv = lever(innodb_levers(prepared), "storage.read_iops")
    assert lv.current == "750K"
    assert [(c.value, c.sets) for c in lv.candidates] == [
        ("1.5M", ("storage.read_iops=1500000",)),
        ("3.0M", ("storage.read_iops=3000000",)),
    ]
