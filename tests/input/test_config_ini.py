"""config.ini read into a scenario: parameters that differ per node, placement parameters read
silently, parameters ndbsim does not simulate listed with what they would do, misspelt ones
refused as NDB refuses them, and the scenario's values kept where config.ini is silent."""

from _helpers import ndbsim
from conftest import SCENARIOS


def run_with_ini(tmp_path, text, *scenario):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    release = () if scenario else ("--version", "7.6.6")
    p = ndbsim("run", *scenario, "--config-ini", str(ini), *release)
    assert p.returncode == 0, p.stderr
    return p


def test_config_ini_parameters_that_differ_per_node_are_reported(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\n[ndbd]\nMaxNoOfExecutionThreads=8\n"
        "[ndbd]\nMaxNoOfExecutionThreads=16\n",
    )
    assert "config.ini: MaxNoOfExecutionThreads differs between [ndbd] sections" in p.stderr


def test_config_ini_placement_parameters_are_read_silently_and_unused_ones_listed(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\nDataDir=/var/lib/ndb\n"
        "MaxNoOfTables=400\n[ndbd]\nNodeId=1\nHostName=a\n[ndbd]\nNodeId=2\nHostName=b\n",
    )
    notes = [line for line in p.stderr.splitlines() if "config.ini: " in line and "not simulated" in line]
    quiet = "ndbsim: warning: config.ini: not simulated, and cannot change a restart: MaxNoOfTables (record pools)"
    assert notes == [quiet]
    assert not any(name in p.stdout + p.stderr for name in ("DataDir is", "NodeId is", "HostName is"))


def test_config_ini_refuses_a_misspelt_parameter_and_keeps_scenario_values(tmp_path):
    ini = tmp_path / "config.ini"
    scenario = str(SCENARIOS[0].parent / "dbt2-600wh-7.6.6.yaml")
    ini.write_text("[ndbd default]\nDataMemory=80G\nRecoveryWrok=50\n")
    bad = ndbsim("run", scenario, "--config-ini", str(ini))
    assert bad.returncode == 2 and "RecoveryWrok (line 3): unknown data-node parameter" in bad.stderr
    assert "did you mean 'RecoveryWork'?" in bad.stderr
    p = run_with_ini(tmp_path, "[ndbd default]\nDataMemory=80G\n[ndbd]\n[ndbd]\n", scenario)
    assert p.stdout.splitlines()[2].startswith("with --config-ini ")
    kept = next(line for line in p.stderr.splitlines() if "config.ini does not set" in line)
    assert "NoOfFragmentLogFiles" in kept and "DataMemory" not in kept


def test_unknown_parameters_outside_data_node_sections_are_not_ndbsims_business(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=8G\n[ndbd]\n[ndbd]\n[mysqld]\nSomethingElse=1\n",
    )
    assert "SomethingElse" not in p.stdout + p.stderr


def test_config_ini_without_data_nodes_is_refused(tmp_path):
    """No [ndbd] section: no data node to simulate, not an invented two-node cluster."""
    ini = tmp_path / "config.ini"
    ini.write_text("[ndbd default]\nDataMemory=80G\n")
    for args in (["run"], ["init"], ["run", str(SCENARIOS[0].parent / "dbt2-600wh-7.6.6.yaml")]):
        p = ndbsim(*args, "--config-ini", str(ini))
        assert p.returncode == 2 and p.stdout == ""
        assert p.stderr.count("\n") == 1 and f"{ini}: no [ndbd] section" in p.stderr


def test_ndb_suffixes_only_on_every_parameter_modelled_or_not(tmp_path):
    """``16GiB`` is refused on DiskPageBufferMemory (not modelled) as on DataMemory (modelled): NDB's
    config.ini numbers take digits and at most one K, M or G."""
    ini = tmp_path / "config.ini"
    for line in ("DataMemory=16GiB", "DiskPageBufferMemory=16GiB", "SharedGlobalMemory=64MB"):
        ini.write_text(f"[ndbd default]\nNoOfReplicas=2\n{line}\n[ndbd]\n[ndbd]\n")
        p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35")
        assert p.returncode == 2, (line, p.stderr)
        name = line.split("=")[0]
        assert f"{name} (line 3): " in p.stderr and "is not a number NDB reads" in p.stderr, p.stderr
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nDataMemory=16G\nDiskPageBufferMemory=1G\n[ndbd]\n[ndbd]\n")
    assert ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35").returncode == 0


def test_warnings_name_the_config_ini_file_they_come_from(tmp_path):
    ini = tmp_path / "prod-cluster.ini"
    ini.write_text("[ndbd default]\nNoOfReplicas=2\nDataMemory=8G\nODirect=1\n[ndbd]\n[ndbd]\n")
    p = ndbsim("run", "--config-ini", str(ini), "--version", "8.0.35")
    assert p.returncode == 0, p.stderr
    assert "ndbsim: warning: prod-cluster.ini: ODirect is not simulated" in p.stderr
    assert "config.ini: ODirect" not in p.stderr
