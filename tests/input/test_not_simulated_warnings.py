"""The parameters ndbsim does not simulate, as a run of the conf-daily-perf cluster
(tests/data/daily-perf-8.0.40) states them (issue 47 item 7): one line for those that cannot
change a restart, a warning for each that could, and the disk-data files on paths of their own
(FileSystemPathDataFiles, FileSystemPathUndoFiles) warned with what the model assumes, in the
table's stderr, JSON and CSV alike, from the config.ini and from the scenario ndbsim init wrote."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from _helpers import ndbsim

DATA = Path(__file__).resolve().parents[1] / "data" / "daily-perf-8.0.40"
INI = DATA / "config.ini"
LINES = (DATA / "init-sets.txt").read_text().splitlines()
SETS = [a for ln in LINES if ln and not ln.startswith("#") for a in ("-s", ln)]
QUIET = "config.ini: not simulated, and cannot change a restart: "


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    d = tmp_path_factory.mktemp("daily-perf")
    p = ndbsim("init", "--config-ini", str(INI), "--version", "8.0.40", *SETS, "-o", "my.yaml", cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "my.yaml"


def _check(warnings: list[str]) -> None:
    quiet = [w for w in warnings if w.startswith(QUIET)]
    assert len(quiet) == 1, warnings
    for name in ("BackupMemory", "MaxNoOfConcurrentScans", "MaxNoOfSavedMessages"):
        assert name in quiet[0]
        assert not any(w.startswith(f"config.ini: {name} is not simulated") for w in warnings)
    for name in ("ODirect", "FileSystemPathDataFiles", "FileSystemPathUndoFiles"):
        assert any(w.startswith(f"config.ini: {name} is not simulated: ") for w in warnings), (name, warnings)
    # SharedGlobalMemory is touched at start with DataMemory (ndbd.cpp init_global_memory_manager):
    # simulated, so never listed as not simulated
    assert not any("SharedGlobalMemory" in w for w in warnings), warnings
    for name in ("FileSystemPathDataFiles", "FileSystemPathUndoFiles"):
        (w,) = [w for w in warnings if w.startswith(f"config.ini: {name} ")]
        assert "one device per host" in w and "host.disk_write" in w


@pytest.mark.parametrize("source", ["config-ini", "init"])
def test_table_json_and_csv_say_the_same(source, scenario):
    direct = ["run", "--config-ini", str(INI), "--version", "8.0.40", *SETS]
    args = ["run", str(scenario)] if source == "init" else direct
    table = ndbsim(*args)
    assert table.returncode == 0, table.stderr
    _check([ln.removeprefix("ndbsim: warning: ") for ln in table.stderr.splitlines()])
    as_json = ndbsim(*args, "-f", "json")
    _check(json.loads(as_json.stdout)["warnings"])
    as_csv = ndbsim(*args, "-f", "csv")
    row = next(csv.DictReader(io.StringIO(as_csv.stdout)))
    _check(row["warnings"].split(" | ") if " | " in row["warnings"] else row["warnings"].split(";"))


def test_disk_data_paths_on_filesystempath_are_not_warned(tmp_path):
    ini = tmp_path / "config.ini"
    text = INI.read_text()
    text = text.replace("/data1/autotest", "/data0/autotest").replace("/data2/autotest", "/data0/autotest/")
    ini.write_text(text)
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.40", *SETS, "-f", "json")
    assert p.returncode == 0, p.stderr
    assert not any("FileSystemPath" in w for w in json.loads(p.stdout)["warnings"])
