"""Releases NDB never shipped are refused wherever a release is given, naming the nearest ones;
an upgrade between two releases that differ in nothing ndbsim models says so in one line."""

import pytest
from _helpers import ndbsim
from conftest import ROOT

from ndbsim.input.profiles.shipped import check_shipped, shipped_lines

ROLLING_80 = str(ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml")
UPGRADE = ("--set", "restart.type=rolling", "-n", "1")


@pytest.mark.parametrize(
    "args, field",
    [
        (("run", ROLLING_80, "--set", "version=8.0.99", "-n", "1"), "version"),
        (("run", ROLLING_80, "--set", "restart.upgrade_to=8.0.99", *UPGRADE), "restart.upgrade_to"),
        (("params", "--version", "8.0.99"), "--version"),
        (("params", "--version", "8.0.40", "--diff", "ndb-8.0.99"), "--diff"),
        (("init", "--set", "version=8.0.99"), "version"),
    ],
)
def test_a_release_ndb_never_shipped_is_refused_with_the_nearest(args, field):
    p = ndbsim(*args)
    assert p.returncode == 2 and p.stdout == "", p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert f"{field}: NDB never shipped 8.0.99" in lines[0] and "use 8.0.46, the newest" in lines[0]


def test_the_release_list_names_its_source_and_bounds_each_line():
    data = shipped_lines()
    assert data["as_of"] and {"7.5", "7.6", "8.0", "8.4", "9.0"} <= set(data["lines"])
    assert all("release notes" in x["source"] and x["first"] <= x["last"] for x in data["lines"].values())
    for ok in ("8.0.40", "8.0.13", "8.4.3", "7.6.37", "9.0.1", "8.4", "7.4.12"):  # 8.4 a line; 7.4 unlisted
        check_shipped(ok)
    with pytest.raises(Exception, match=r"its one 8\.1 release is 8\.1\.0.*use 8\.1\.0$"):
        check_shipped("8.1.3")
    with pytest.raises(Exception, match=r"use 8\.0\.13, the first"):
        check_shipped("8.0.5")


@pytest.mark.parametrize("target", ["8.0.41", "ndb-8.4.3"])
def test_an_upgrade_that_changes_nothing_modelled_says_so(target):
    p = ndbsim("run", ROLLING_80, "--set", "version=8.0.40", "--set", f"restart.upgrade_to={target}", *UPGRADE)
    assert p.returncode == 0, p.stderr
    said = [x for x in p.stderr.splitlines() if "differ in nothing ndbsim models" in x]
    shown = target.removeprefix("ndb-")
    assert len(said) == 1 and f"NDB 8.0.40 and {shown}" in said[0] and "plain rolling restart" in said[0]
    assert f"--diff {shown}" in said[0]


def test_an_upgrade_that_changes_a_mechanism_says_nothing_of_the_kind():
    p = ndbsim("run", ROLLING_80, "--set", "version=8.0.20", "--set", "restart.upgrade_to=8.0.35", *UPGRADE)
    assert p.returncode == 0, p.stderr
    assert "differ in nothing" not in p.stderr  # 8.0.23 brought query threads
