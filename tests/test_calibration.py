"""Calibration: the cases load, the fit is deterministic, and `ndbsim check` runs them all."""

import pytest

from ndbsim.calibrate import FITTED, case_from_restart_info
from ndbsim.calibration import DEFAULT_DIR, load_cases, predict
from ndbsim.check import format_check, run_check


def test_cases_have_both_roles_and_sources():
    cases = load_cases(DEFAULT_DIR)
    roles = {c.role for c in cases}
    assert roles == {"fit", "validate"}
    for c in cases:
        assert c.source.get("seed") or c.source.get("restart_info")
        assert c.figures[0].name == "total_restart_secs"


def test_fitted_constants_are_few_and_plausible():
    from ndbsim.profiles import calibrated_constants

    k = calibrated_constants("7.6")
    assert len(FITTED) == 7
    assert 1e-5 < k.copy_row_secs < 1e-4                   # seeds 001 and 004 agree on ~30 µs per copied row
    assert 2.0e9 < k.memory_touch_rate < 3.5e9            # seed 003: "roughly 2.7 GByte per second"
    assert 0.3 < k.hyperthread_gain < 0.8                  # 77 s on 16 hyperthreads vs 124 s on 8 cores
    assert 1e-6 < k.restore_row_secs < 1e-5                # ≈0.5 GB/s node-wide over 8 LDM threads


def test_fit_cases_totals_close_on_the_75_case():
    case = next(c for c in load_cases(DEFAULT_DIR) if c.name == "seed003-dbt2-7.5.10")
    total = predict(case)["total_restart_secs"]
    assert total == pytest.approx(1151, rel=0.05)


def test_check_table_covers_every_case():
    rows, _ = run_check(DEFAULT_DIR, claims=False)
    names = {r.case for r in rows}
    assert names == {c.name for c in load_cases(DEFAULT_DIR)}
    text = format_check(rows, [])
    assert "published" in text and "predicted" in text


def test_check_passes_every_tolerance():
    """`ndbsim check` in the suite: every case within tolerance, every claim holds."""
    rows, claims = run_check(DEFAULT_DIR, claims=True)
    assert all(r.ok for r in rows) and all(c.ok for c in claims)


def test_restart_info_import(tmp_path, root):
    csv = tmp_path / "ri.csv"
    cols = ["node_id", "total_restart_secs", "secs_restore_fragments", "secs_exec_redo_log"]
    csv.write_text(",".join(cols) + "\n2,420,130,30\n3,400,120,28\n")
    case = case_from_restart_info(csv, root / "scenarios/dbt2-600wh-7.6.6.yaml")
    assert case["role"] == "fit"
    assert case["published"]["total_restart_secs"]["value"] == 420
    assert case["published"]["phases"]["secs_restore_fragments"]["value"] == 130
