"""Every input a calibration case's scenario sets is either one its source states (``states:``,
with the source's words) or an assumption (``assumptions:``, with its value, why, and a range
where the case depends on it): nothing is assumed silently (issue 43, seed 003's
``before_restart.duration``, REDO log and change size)."""

from pathlib import Path

import pytest
import yaml

from ndbsim.input import scenario as sc
from ndbsim.studies.calibration.case_spec import UNSTATED_KEYS, scenario_inputs
from ndbsim.studies.calibration.cases import DEFAULT_DIR, load_case

CASE_FILES = sorted(DEFAULT_DIR.glob("*.yaml"))


def _scenario_raw(path: Path, data: dict) -> dict:
    if isinstance(data["scenario"], dict):
        return data["scenario"]
    raw, _ = sc.raw_from(path.parent / data["scenario"])
    for override in data.get("overrides") or []:
        key, value = override.split("=", 1)
        sc.set_path(raw, key, value)
    return raw


def test_scenario_inputs_walks_every_leaf_but_the_label_and_the_simulation():
    raw = {
        "name": "x",
        "version": "8.4.3",
        "cluster": {"data_nodes": 144, "config": {"NoOfReplicas": 4, "DataMemory": "1T"}},
        "workload": {"before_restart": {"duration": "90d", "inserts_per_s": 1000}},
        "restart": {"type": "rolling", "nodes": [11, 12]},
        "simulation": {"seed": 3},
    }
    assert scenario_inputs(raw) == [
        "version",
        "cluster.data_nodes",
        "cluster.config.NoOfReplicas",
        "cluster.config.DataMemory",
        "workload.before_restart.duration",
        "workload.before_restart.inserts_per_s",
        "restart.type",
        "restart.nodes",
    ]
    assert set(UNSTATED_KEYS) == {"name", "kind", "simulation"}


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_every_scenario_input_is_stated_or_assumed(path: Path):
    data = yaml.safe_load(path.read_text())
    stated = data.get("states") or {}
    assumed = data.get("assumptions") or {}
    inputs = scenario_inputs(_scenario_raw(path, data))
    silent = [p for p in inputs if p not in stated and p not in assumed]
    assert not silent, f"{path.name}: not stated by its source and not under assumptions: {silent}"
    assert not set(stated) & set(assumed), "an input is either stated or assumed"
    assert set(stated) <= set(inputs), "a stated input the scenario does not set"
    assert all(len(words.strip()) > 5 for words in stated.values()), "each stated input quotes its source"
    case = load_case(path)
    for a in case.assumptions:
        assert len(a.why) > 20, (path.name, a.path)
        # an assumption without a range says why the case needs none
        assert a.ranged or "no range" in a.why or "not used" in a.why or a.default is not None, (path.name, a.path)


def test_seed_003s_unstated_load_and_redo_log_are_assumptions_with_ranges():
    case = load_case(DEFAULT_DIR / "seed003-dbt2-7.5.10.yaml")
    by_path = {a.path: a for a in case.assumptions}
    for path in (
        "workload.before_restart.duration",
        "cluster.config.NoOfFragmentLogFiles",
        "workload.bytes_per_change",
    ):
        assert by_path[path].ranged, path
    assert by_path["cluster.config.FragmentLogFileSize"].value == "256M"


def test_seed_004s_initial_lcp_is_compared_where_the_wait_is_its_writing():
    """ "~2min spent writing initial LCP" (seed 004): compared on the idle restarts, where the wait
    for LCP is that writing alone, with the ±30 s of a figure rounded to the minute."""
    for name in ("full-idle", "onr-idle", "full-2000ups", "onr-2000ups"):
        case = load_case(DEFAULT_DIR / f"seed004-51-{name}.yaml")
        lcp = [f for f in case.figures if f.name == "secs_wait_lcp_for_restart"]
        if "idle" in name:
            assert len(lcp) == 1 and lcp[0].value == 120 and not lcp[0].info and lcp[0].allowed() == 30
        else:
            assert not lcp, "under load the wait also holds the end of the running LCP"


def test_innodbs_transaction_rate_is_an_assumption_with_its_effect():
    for name in ("bp52g-flash", "bp144g-flash", "bp144g-raid10"):
        case = load_case(DEFAULT_DIR / f"innodb-tpcc1000-{name}.yaml")
        tps = next(a for a in case.assumptions if a.path == "workload.tps")
        assert tps.ranged
        if "flash" in name:
            assert "effect" in tps.why.lower() and "comment 11" in tps.why
