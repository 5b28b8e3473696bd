"""A release may be given as NDB prints it: ``ndb-8.4.3`` (``@@ndb_version_string``), ``8.4.3``, or
``mysql-8.0.35 ndb-8.0.35`` (``ndbinfo.processes.node_version``). Wherever a user gives one (the
scenario's ``version:``, ``--version``, ``--set version=``, ``restart.upgrade_to``, ``params``),
each form gives the same output as the bare release, which is the form every output shows."""

import json

import pytest
from _helpers import ndbsim

from ndbsim.errors import InputError
from ndbsim.input.profiles import canonical_release, parse_version, profile_for
from ndbsim.input.upgrade import check_upgrade

PRINTED = [("ndb-8.4.3", "8.4.3"), ("mysql-8.0.35 ndb-8.0.35", "8.0.35"), ("mysql-5.7.44 ndb-7.6.34", "7.6.34")]
"""(as NDB prints it, the bare release): 7.6 prints its MySQL server's 5.7 beside its NDB release."""


def same_output(a, b, echo_a, echo_b):
    """Both runs exit 0 and print the same bytes, once the echo of the option as given is set aside."""
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stderr
    assert echo_a in a.stdout  # the run says what it was given, as it was given
    assert a.stdout.replace(echo_a, echo_b) == b.stdout


@pytest.mark.parametrize("printed, bare", PRINTED)
def test_the_forms_ndb_prints_read_as_the_bare_release(printed, bare):
    assert canonical_release(printed) == bare
    assert canonical_release(f" {printed}\n") == bare
    assert parse_version(printed) == parse_version(bare)
    assert profile_for(printed) is profile_for(bare)


def test_the_forms_that_already_worked_are_kept():
    assert canonical_release(8.0) == "8.0"  # a YAML number
    assert canonical_release("8.4") == "8.4"  # a release line
    assert canonical_release("7.6.6") == "7.6.6"


@pytest.mark.parametrize("bad", ["ndb-8.x", "mysql-8.0.35", "ndb-8.4.3 ndb-8.0.35", "8.4.3 ndb-8.4.3", ""])
def test_a_text_that_is_no_printed_release_is_refused_with_the_forms(bad):
    with pytest.raises(InputError) as e:
        parse_version(bad)
    assert repr(bad) in e.value.message and '"ndb-8.4.3"' in e.value.message
    assert '"mysql-8.0.35 ndb-8.0.35"' in e.value.message and '"8.4.3"' in e.value.message


def test_an_upgrade_path_takes_the_printed_forms():
    check_upgrade("mysql-8.0.35 ndb-8.0.35", "ndb-8.4.3", "rolling")
    with pytest.raises(InputError) as e:
        check_upgrade("ndb-8.4.3", "ndb-8.0.35", "rolling")
    assert e.value.field == "restart.upgrade_to" and "'ndb-8.0.35' is not newer than version ndb-8.4.3" in str(e.value)


@pytest.mark.parametrize("printed, bare", PRINTED[:2])
def test_run_version_option(printed, bare):
    a = ndbsim("run", "--version", printed, "-n", "1", "-f", "json")
    b = ndbsim("run", "--version", bare, "-n", "1", "-f", "json")
    same_output(a, b, f"--version {printed}", f"--version {bare}")
    assert json.loads(a.stdout)["version"] == bare


@pytest.mark.parametrize("printed, bare", PRINTED[:2])
def test_run_set_version(printed, bare):
    a = ndbsim("run", "--set", f"version={printed}", "-n", "1", "-f", "json")
    b = ndbsim("run", "--set", f"version={bare}", "-n", "1", "-f", "json")
    same_output(a, b, f"--set version={printed}", f"--set version={bare}")


def test_the_scenario_key_and_upgrade_to(tmp_path):
    def scenario(version, target):
        path = tmp_path / f"s{len(list(tmp_path.iterdir()))}.yaml"
        path.write_text(
            f"name: four 8.0 nodes\nversion: {version}\ncluster:\n  data_nodes: 4\ndata:\n  size: 60M\n"
            f"restart:\n  type: rolling\n  upgrade_to: {target}\n",
            encoding="utf-8",
        )
        return ndbsim("run", str(path), "-n", "1", "-f", "json")

    a, b = scenario("'mysql-8.0.35 ndb-8.0.35'", "ndb-8.4.3"), scenario("8.0.35", "8.4.3")
    same_output(a, b, "", "")
    assert json.loads(a.stdout)["version"] == "8.0.35"
    a = ndbsim("run", "--version", "8.0.35", "--set", "restart.type=rolling", "--set", "restart.upgrade_to=ndb-8.4.3")
    b = ndbsim("run", "--version", "8.0.35", "--set", "restart.type=rolling", "--set", "restart.upgrade_to=8.4.3")
    same_output(a, b, "restart.upgrade_to=ndb-8.4.3", "restart.upgrade_to=8.4.3")


@pytest.mark.parametrize("option", ["--version", "--set"])
def test_init_writes_the_bare_release(tmp_path, option):
    def init(release, out):
        args = ["--version", release] if option == "--version" else ["--set", f"version={release}"]
        p = ndbsim("init", *args, "-o", str(tmp_path / out))
        assert p.returncode == 0, p.stderr
        return (tmp_path / out).read_bytes()

    written = init("mysql-8.0.35 ndb-8.0.35", "a.yaml")
    assert written == init("8.0.35", "b.yaml")
    assert b'\nversion: "8.0.35"' in written


def test_params_shows_the_bare_release():
    a, b = ndbsim("params", "--version", "ndb-8.4.3"), ndbsim("params", "--version", "8.4.3")
    same_output(a, b, "NDB 8.4.3", "NDB 8.4.3")
    a = ndbsim("params", "--version", "mysql-5.7.44 ndb-7.6.34", "--diff", "ndb-8.4.3")
    b = ndbsim("params", "--version", "7.6.34", "--diff", "8.4.3")
    same_output(a, b, "7.6.34", "7.6.34")


@pytest.mark.parametrize(
    "args, field",
    [
        (["run", "--version", "ndb-8.x"], "version"),
        (["run", "--set", "version=ndb-8.x"], "version"),
        (["run", "--set", "restart.type=rolling", "--set", "restart.upgrade_to=ndb-8.x"], "restart.upgrade_to"),
        (["init", "--version", "ndb-8.x", "-o", "never-written.yaml"], "version"),
        (["params", "--version", "ndb-8.x"], "--version"),
        (["params", "--diff", "ndb-8.x"], "--diff"),
    ],
)
def test_a_bad_release_is_one_line_naming_field_value_and_forms(tmp_path, args, field):
    p = ndbsim(*args, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("ndbsim: error:")]
    assert len(lines) == 1 and "Traceback" not in p.stderr and not p.stdout
    assert f"{field}: 'ndb-8.x' is not an NDB release" in lines[0]
    assert '"ndb-8.4.3" or "mysql-8.0.35 ndb-8.0.35" as NDB prints it, or "8.4.3"' in lines[0]
    assert not list(tmp_path.iterdir())
