"""InnoDB crash recovery (seed 002), next to NDB's node restarts: ``kind: innodb`` scenarios."""

from ndbsim.innodb.answer import run_scenario, simulate_innodb
from ndbsim.innodb.constants import DEFAULTS, FREE_CONSTANTS, Constants, load_constants
from ndbsim.innodb.fit import calibrate, load_cases, save_calibrated
from ndbsim.innodb.model import InnodbReplication, InnodbResult
from ndbsim.innodb.scenario import InnodbScenario, scenario_from_dict

__all__ = [
    "DEFAULTS",
    "FREE_CONSTANTS",
    "Constants",
    "InnodbReplication",
    "InnodbResult",
    "InnodbScenario",
    "calibrate",
    "load_cases",
    "load_constants",
    "run_scenario",
    "save_calibrated",
    "scenario_from_dict",
    "simulate_innodb",
]
