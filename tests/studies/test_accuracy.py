"""The accuracy band beside p5–p95 (issue 35): the packaged per-family validation errors are what
``ndbsim check``'s cases give (regenerate with ``python -m ndbsim.studies.calibration.accuracy --write``),
only validation cases make them, the nearest release family is named (and that none is the run's
major release), a calibrated scenario shows its own fit's error instead, and the table and JSON
show the band with what p5–p95 means."""

import json
import shutil
from pathlib import Path

import yaml
from _helpers import ndbsim

from ndbsim.output.accuracy import accuracy, nearest_family, pct_range, published_errors
from ndbsim.paths import ACCURACY_FILE, CASES_DIR
from ndbsim.studies.calibration.accuracy import accuracy_data, render

ROLLING = "scenarios/rolling-4-nodes-8.0.yaml"


def test_the_packaged_band_is_what_the_cases_give_now():
    """One pass over the cases without the claims (under a second): the file is regenerated, never
    edited, and a change to the cases or the constants that moves a validation error fails here."""
    assert ACCURACY_FILE.read_text(encoding="utf-8") == render(accuracy_data()), (
        "input/data/accuracy.yaml is stale: run python -m ndbsim.studies.calibration.accuracy --write"
    )
    assert "`python -m ndbsim.studies.calibration.accuracy --write`" in ACCURACY_FILE.read_text()


def test_only_validation_cases_make_the_band(tmp_path):
    cases = tmp_path / "calibration"
    cases.mkdir()
    (tmp_path / "scenarios").symlink_to(CASES_DIR.parent / "scenarios")
    names = (
        "seed004-51-onr-idle.yaml",
        "seed001-70-normal.yaml",
        "seed001-70-initial.yaml",
        "lab-2node-7.5.4-tiny.yaml",
    )
    for name in names:  # validate, info, fit, reference
        shutil.copy(CASES_DIR / name, cases / name)
    data = accuracy_data(cases)
    assert list(data["families"]) == ["5.1"]
    assert [c["case"] for c in data["families"]["5.1"]] == ["seed004-51-onr-idle"]
    fig = data["families"]["5.1"][0]["figures"][0]
    assert fig["figure"] == "total_restart_secs" and fig["published"] == 183.0 and fig["predicted"] > 0


def test_nearest_family_is_the_latest_older_one_else_the_earliest_newer():
    have = ["5.1", "7.0", "7.5", "7.6"]
    assert nearest_family("8.4", have) == "7.6"
    assert nearest_family("9.x", have) == "7.6"
    assert nearest_family("7.5", have) == "7.5"
    assert nearest_family("7.0", ["7.5", "7.6"]) == "7.5"
    assert nearest_family("7.0", []) is None


def test_an_8x_run_says_no_published_8x_restart_and_names_the_nearest_family():
    band = accuracy("8.4.3", {})
    nearest = nearest_family("8.4", list(published_errors()))  # the validation cases' latest family
    assert nearest is not None and not nearest.startswith("8")
    assert band["basis"] == "published" and band["family"] == "8.4"
    assert band["nearest_family"] == nearest and not band["major_release_published"]
    assert band["text"].startswith("no published 8.x restart to check against")
    assert f"nearest family, {nearest}" in band["text"]
    assert "precision, not accuracy" in band["spread"] and "LCP cycle" in band["spread"]
    own = accuracy("5.1", {})
    assert own["nearest_family"] == "5.1" and own["major_release_published"]
    assert own["text"].startswith("on published 5.1 restarts (4 validation cases)")


def test_a_calibrated_scenario_shows_its_fits_error_not_the_published_one():
    record = {
        "restart_info": "ri.csv",
        "nodes": [21, 22],
        "fitted": ["core_speed"],
        "error": {
            "total_restart_secs": {"secs": [-6.0, 9.0], "share": [-0.02, 0.03]},
            "secs_index_rebuild": {"secs": [-1.0, 2.0], "share": [-0.05, 0.1]},
            "secs_restore_fragments": {"secs": [-12.5, 4.0], "share": [-0.1, 0.04]},
        },
    }
    band = accuracy("8.4.3", {"calibrated": record})
    assert band["basis"] == "calibrated" and band["total_error"] == [-0.02, 0.03]
    assert list(band["phases"]) == ["secs_restore_fragments", "secs_index_rebuild"]  # worst first
    assert "ri.csv" in band["text"] and "-2%…+3%" in band["text"] and "secs_restore_fragments" in band["text"]
    changed = accuracy("8.4.3", {"calibrated": record}, ["--set data.size=2TB"])
    assert changed["text"].endswith("; measured before this run's --set data.size=2TB")


def test_pct_range_keeps_a_small_error_from_reading_as_zero():
    assert pct_range([-0.0014, -0.0014]) == "-0.1%"
    assert pct_range([-0.13, 0.04]) == "-13%…+4%"


def test_table_and_json_show_the_band_beside_p5_p95(tmp_path):
    table = ndbsim("run", ROLLING, "-n", "3")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    # the predictive interval first (issue 43), then the crash moment's spread and what it is
    assert lines[next(i for i, ln in enumerate(lines) if ln.startswith("restart total:")) + 1].startswith("predictive")
    at = next(i for i, ln in enumerate(lines) if ln.startswith("crash-moment spread:"))
    assert "p5" in lines[at] and "precision, not accuracy" in lines[at + 1]
    assert lines[at + 2].startswith("accuracy: no published 8.x restart")
    d = json.loads(ndbsim("run", ROLLING, "-n", "3", "--format", "json").stdout)
    assert d["accuracy"]["basis"] == "published"
    assert d["accuracy"]["nearest_family"] == nearest_family("8.0", list(published_errors()))
    assert d["accuracy"]["text"] in " ".join(" ".join(lines[at + 2 : at + 5]).split())


def test_a_calibrated_section_in_the_scenario_reaches_the_json(tmp_path):
    raw = yaml.safe_load(Path(ROLLING).read_text())
    raw["calibrated"] = {
        "restart_info": "ri.csv",
        "nodes": [1, 2],
        "fitted": ["disk_read"],
        "error": {"total_restart_secs": {"secs": [-3.0, 1.0], "share": [-0.01, 0.004]}},
    }
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(raw))
    d = json.loads(ndbsim("run", str(tmp_path / "s.yaml"), "--format", "json").stdout)
    assert d["accuracy"]["basis"] == "calibrated" and d["accuracy"]["restart_info"] == "ri.csv"
