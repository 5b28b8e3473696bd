"""Sizes printed for a DBA to type (issue 47 item 8): ``units.clean_size_text`` writes a size
exactly when a config.ini suffix divides it, else rounded up by at most 1% to a whole number of
the largest unit (``118G``, never ``120150M``), and ``solve data-size --grow-datamemory`` prints
its DataMemory so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _helpers import ndbsim

from ndbsim.input.units import clean_size_text, parse_bytes

DATA = Path(__file__).resolve().parents[1] / "data" / "daily-perf-8.0.40"


@pytest.mark.parametrize(
    ("size", "text"),
    [("120150M", "118G"), ("117G", "117G"), ("48G", "48G"), ("1234M", "1234M"), ("2.5G", "2560M"), ("64K", "64K")],
)
def test_clean_size(size, text):
    n = parse_bytes(size)
    assert clean_size_text(n) == text
    assert n <= parse_bytes(text) <= n * 1.01


def test_solve_prints_datamemory_as_a_dba_writes_it(tmp_path):
    sets = [a for ln in (DATA / "init-sets.txt").read_text().splitlines() if ln and ln[0] != "#" for a in ("-s", ln)]
    ini = str(DATA / "config.ini")
    p = ndbsim(
        "solve", "data-size", "--config-ini", ini, "--version", "8.0.40", *sets, "--window", "30m", "--grow-datamemory"
    )
    assert p.returncode == 0, p.stderr
    shown = re.findall(r"cluster\.config\.DataMemory=(\d+)([KMG])", p.stdout)
    assert shown, p.stdout
    for number, unit in shown:
        assert unit == "G" or int(number) < 100 * 1024, (number, unit)
