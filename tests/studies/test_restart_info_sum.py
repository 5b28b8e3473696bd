"""A restart_info row whose total is not its phases' sum is refused by every reader of the rows
(issue 47 item 9): ``calibrate --restart-info``, ``eta --ndbinfo`` and ``init --ndbinfo``. Each
``secs_`` column and the total are gaps between the master's timestamps, each a whole second
(reference §12), so the phases add up to the total within one second per column. The refusal is
one line naming the node and both figures, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from _helpers import ETA_DATA, ndbsim

from ndbsim.errors import InputError
from ndbsim.input.restart_info import COLUMNS, check_row

ROOT = Path(__file__).resolve().parents[2]
EXPORT_80 = ROOT / "tests" / "ndbinfo" / "export-8.0.35.tsv"
GOOD_TOTAL = "\t540\n"
"""Node 12's row in the 8.0 fixture: its phases add up to 532 s, its total is 540 s."""


def _one_line_exit_2(p) -> str:
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    return lines[0]


def test_the_rounding_of_each_column_is_allowed_and_no_more():
    phases = dict.fromkeys(COLUMNS, 10.0)  # 17 columns: 170 s
    check_row(phases, 170.0 + len(COLUMNS) + 1, None, "node 3")  # every column and the total 1 s off
    check_row(phases, 170.0 - len(COLUMNS) - 1, None, "node 3")
    with pytest.raises(InputError, match=r"node 3: its phases add up to 170 s but total_restart_secs is 10000000 s"):
        check_row(phases, 10_000_000.0, None, "node 3")
    with pytest.raises(InputError):
        check_row(phases, 170.0 + len(COLUMNS) + 2, None, "node 3")


def test_a_partial_export_may_fall_short_of_its_total():
    """Without every column the phases given may add up to less than the total, never more."""
    check_row({"secs_restore_fragments": 140.0}, 415.0, None, "node 2")


def test_calibrate_refuses_a_row_whose_total_is_not_its_phases_sum(tmp_path_factory):
    import shutil

    from _helpers import eta_cluster

    from ndbsim.studies.calibration.cases import DEFAULT_DIR

    c = eta_cluster(tmp_path_factory, "calibrate-sum")
    d = c["dir"]
    shutil.copytree(DEFAULT_DIR, d / "calibration")
    (d / "scenarios").symlink_to(ROOT / "scenarios")
    rows = (ETA_DATA / "restart_info.csv").read_text().splitlines()
    header, first = rows[0], rows[1]
    assert first.endswith(",312")  # its phases add up to 312 s
    (d / "ri.csv").write_text(header + "\n" + first.removesuffix(",312") + ",10000000\n")
    before = sorted(str(x) for x in d.rglob("*"))
    args = ["--restart-info", "ri.csv", "--scenario", "my.yaml", "--node", "11", "--cases", "calibration"]
    p = ndbsim("calibrate", *args, "--output", "k.yaml", cwd=d)
    line = _one_line_exit_2(p)
    assert "node 11" in line and "312 s" in line and "10000000 s" in line and "total_restart_secs" in line
    assert sorted(str(x) for x in d.rglob("*")) == before


def test_init_ndbinfo_refuses_it(tmp_path):
    text = EXPORT_80.read_text()
    assert text.count(GOOD_TOTAL) == 1
    bad = tmp_path / "bad.tsv"
    bad.write_text(text.replace(GOOD_TOTAL, "\t10000000\n"))
    out = tmp_path / "x.yaml"
    line = _one_line_exit_2(ndbsim("init", "--ndbinfo", str(bad), "-o", str(out)))
    assert "node 12" in line and "532 s" in line and "10000000 s" in line and "ndbinfo.restart_info" in line
    assert not out.exists() and not (tmp_path / "x.restart_info.csv").exists()


def test_init_ndbinfo_takes_the_fixture_as_it_is(tmp_path):
    out = tmp_path / "x.yaml"
    p = ndbsim("init", "--ndbinfo", str(EXPORT_80), "-o", str(out))
    assert p.returncode == 0, p.stderr


def test_eta_refuses_it(tmp_path_factory):
    from _helpers import ETA_START, eta_cluster

    from ndbsim.studies.eta.replay import snapshot_text

    c = eta_cluster(tmp_path_factory, "eta-sum")
    good = snapshot_text(c["rows"], [[11, 13], [12, 14]], ETA_START, ETA_START + 400)
    row = next(ln for ln in good.splitlines() if ln.startswith("11\tRestart completed"))
    assert row.endswith("\t312")
    (c["dir"] / "bad.tsv").write_text(good.replace(row, row.removesuffix("\t312") + "\t10000000"))
    line = _one_line_exit_2(ndbsim("eta", "my.yaml", "--ndbinfo", "bad.tsv", cwd=c["dir"]))
    assert "node 11" in line and "312 s" in line and "10000000 s" in line
