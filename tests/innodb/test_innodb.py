"""InnoDB crash recovery (seed 002): published cases, monotonicity, determinism, input errors."""

from __future__ import annotations

import copy
import math

import pytest
import yaml

from ndbsim.errors import InputError
from ndbsim.innodb import FREE_CONSTANTS, Constants, load_cases, load_constants, simulate_innodb
from ndbsim.models.registry import INNODB, NDB, model_of
from tests.conftest import ROOT

SCEN = ROOT / "scenarios"
CASES = load_cases(ROOT / "calibration")


def raw(name: str) -> dict:
    return yaml.safe_load((SCEN / f"innodb-tpcc1000-{name}.yaml").read_text())


def total(r: dict, **kw) -> float:
    return simulate_innodb(r, **kw).total_restart_secs


HELD_OUT = {}


def _held_out() -> dict:
    """Each case predicted by the constants fitted on the other two (``held_out``), computed once."""
    if not HELD_OUT:
        from ndbsim.innodb.fit import held_out

        HELD_OUT.update({r["case"]: r for r in held_out(CASES)})
    return HELD_OUT


RAID10_ALONE = pytest.mark.xfail(
    strict=True,
    reason="read_queue_depth is set by the RAID10 case alone: fitted on the two flash cases, which barely "
    "depend on it (0.1 ms reads), it drifts to 0.41 and the held-out RAID10 recovery comes out +244% "
    "(calibration/README.md); strict, so a model change that predicts it leaves this mark",
)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=RAID10_ALONE) if "raid10" in c["name"] else c for c in CASES],
    ids=[c["name"] for c in CASES],
)
def test_published_cases_within_tolerance(case):
    """Held out: the case predicted by constants fitted without it, within its published tolerance."""
    found = _held_out()[case["name"]]
    assert case["name"] not in found["fitted_on"]
    assert abs(found["error"]) <= case["published"]["total_restart_secs"]["tolerance"], found


def test_three_cases_present():
    assert len(CASES) == 3
    assert {c["published"]["total_restart_secs"]["value"] for c in CASES} == {471, 563, 897}


def test_downtime_excludes_rollback():
    r = raw("bp52g-flash")
    r["workload"]["uncommitted_txn_rows"] = 50_000_000  # a long transaction: rollback for ages
    res = simulate_innodb(r)
    ph = res.phases()
    assert ph["secs_rollback"] > 1000
    assert math.isclose(res.total_restart_secs, ph["secs_redo_scan"] + ph["secs_redo_apply"], rel_tol=1e-9)
    assert math.isclose(res.total_restart_secs, total(raw("bp52g-flash")), rel_tol=1e-9)


def test_bigger_log_longer_when_log_fills():
    r = raw("bp144g-flash")
    small = copy.deepcopy(r)
    small["server"]["innodb_log_file_size"] = "1G"
    big = copy.deepcopy(r)
    big["server"]["innodb_log_file_size"] = "16G"
    big["workload"]["run_time"] = "24h"
    assert total(small) < total(r) < total(big)


def test_more_dirty_pages_longer():
    r = raw("bp52g-flash")
    lo = copy.deepcopy(r)
    lo["workload"]["dirty_pct"] = 20
    assert total(lo) < total(r)
    r2 = raw("bp144g-raid10")
    lo2 = copy.deepcopy(r2)
    lo2["workload"]["dirty_pct"] = 20
    assert total(lo2) < total(r2)


def test_raid10_slower_than_flash():
    assert total(raw("bp144g-raid10")) > 1.3 * total(raw("bp144g-flash"))


def test_deterministic():
    a = simulate_innodb(raw("bp52g-flash"), seed=7, replications=5)
    b = simulate_innodb(raw("bp52g-flash"), seed=7, replications=5)
    assert a.totals == b.totals and a.to_json() == b.to_json()
    c = simulate_innodb(raw("bp52g-flash"), seed=8, replications=5)
    assert a.totals != c.totals


def test_unknown_key_is_input_error_with_hint():
    r = raw("bp52g-flash")
    r["server"]["buffer_pool_sise"] = "52G"
    with pytest.raises(InputError) as e:
        simulate_innodb(r)
    msg = str(e.value)
    assert "\n" not in msg and "server.buffer_pool_sise" in msg and "buffer_pool_size" in msg
    with pytest.raises(InputError):
        simulate_innodb({**raw("bp52g-flash"), "sever": {}})
    with pytest.raises(InputError):
        simulate_innodb(raw("bp52g-flash"), constants={"aply_rate": 1.0})


def test_events_independent_of_log_size():
    counts = set()
    for size in ("1G", "4G", "16G"):
        r = raw("bp144g-flash")
        r["server"]["innodb_log_file_size"] = size
        r["workload"]["run_time"] = "24h"
        counts.add(simulate_innodb(r).events)
    assert len(counts) == 1 and counts.pop() < 50


def test_api_shape():
    r = raw("bp52g-flash")
    assert model_of(r) is INNODB and model_of({"version": "7.6.6"}) is NDB
    res = simulate_innodb(r, replications=3)
    d = res.to_dict()
    for k in ("name", "kind", "total_restart_secs", "phases", "status", "warnings", "replications", "scenario"):
        assert k in d
    assert d["kind"] == "innodb" and d["replications"]["n"] == 3 and res.status == "ok"
    assert set(res.phases()) == {"secs_redo_scan", "secs_redo_apply", "secs_rollback"}
    assert res.to_csv().startswith("phase,secs,interval_p5,interval_p95,version,server_buffer_pool_size,")
    assert len(res.to_frame()) == 9
    assert len(res.replications) == 3 and res.replications[0].total_restart_secs > 0


def test_free_constants_documented_and_stored():
    import dataclasses
    import inspect

    src = inspect.getsource(Constants)
    for f in dataclasses.fields(Constants):
        assert f"{f.name}:" in src and '"""' in src.split(f"{f.name}:")[1].split("\n", 2)[1]
    stored = load_constants()
    defaults = load_constants(use_calibrated=False)
    assert set(FREE_CONSTANTS) <= {f.name for f in dataclasses.fields(Constants)}
    assert any(getattr(stored, k) != getattr(defaults, k) for k in FREE_CONSTANTS)


def test_calibrate_reproduces_stored_constants():
    from ndbsim.innodb import calibrate

    out = calibrate(CASES)
    stored = load_constants()
    for k in FREE_CONSTANTS:
        assert math.isclose(out["constants"][k], getattr(stored, k), rel_tol=1e-3)
    assert all(abs(v) <= 0.15 for v in out["residuals"].values())
