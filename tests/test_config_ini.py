"""config.ini read into a scenario: parameters that differ per node, placement parameters read
silently, unknown and misspelt ones listed, and the scenario's values kept where config.ini is silent."""

from _helpers import ndbsim
from conftest import SCENARIOS


def run_with_ini(tmp_path, text, *scenario):
    ini = tmp_path / "config.ini"
    ini.write_text(text)
    p = ndbsim("run", *scenario, "--config-ini", str(ini))
    assert p.returncode == 0, p.stderr
    return p


def test_config_ini_parameters_that_differ_per_node_are_reported(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\n[ndbd]\nMaxNoOfExecutionThreads=8\n"
        "[ndbd]\nMaxNoOfExecutionThreads=16\n",
    )
    assert "MaxNoOfExecutionThreads (differs between [ndbd] sections)" in p.stderr


def test_config_ini_placement_parameters_are_read_silently_and_unknown_ones_listed(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\nDataDir=/var/lib/ndb\n"
        "MadeUpParameter=3\n[ndbd]\nNodeId=1\nHostName=a\n[ndbd]\nNodeId=2\nHostName=b\n",
    )
    warning = [line for line in p.stderr.splitlines() if "config.ini: skipped" in line]
    assert len(warning) == 1 and "MadeUpParameter" in warning[0]
    assert not any(name in warning[0] for name in ("DataDir", "NodeId", "HostName"))


def test_config_ini_notes_misspellings_kept_scenario_values_and_a_missing_node_count(tmp_path):
    p = run_with_ini(
        tmp_path,
        "[ndbd default]\nDataMemory=80G\nRecoveryWrok=50\n",
        str(SCENARIOS[0].parent / "dbt2-600wh-7.6.6.yaml"),
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[2].startswith("with --config-ini ")
    assert "ndbsim: warning: config.ini: skipped 1 parameter that" in p.stderr
    assert "RecoveryWrok (did you mean 'RecoveryWork'?)" in p.stderr
    kept = next(line for line in p.stderr.splitlines() if "config.ini does not set" in line)
    assert "NoOfFragmentLogFiles" in kept and "DataMemory" not in kept
    assert "config.ini has no [ndbd] section: the scenario's 2 data nodes kept" in p.stderr
