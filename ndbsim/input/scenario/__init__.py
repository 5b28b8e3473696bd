"""Scenario files: typed, validated models (CONTRACT §1), ``--set`` overrides, loading.

A scenario is validated once into a ``Scenario``; ``resolve()`` then fills in the version
profile's config.ini defaults. Every error is an ``InputError`` naming field, value and fix.

The modules, in the order a scenario passes through them: ``sections``, ``data`` and
``workload`` (the pydantic sections), ``model`` (``Scenario``, ``Resolved``), ``validation``
(a raw mapping into a ``Scenario``), ``overrides`` (``--set``), ``resolving`` (``resolve()``)
and ``loading`` (files and the built-in default); ``provenance`` says where each value came
from (built once per load by ``models.load.read``, with the provenance section ``ndbsim init``
writes). Their names are re-exported here, so
``from ndbsim.input import scenario as sc`` gives all of them.
"""

from __future__ import annotations

from ndbsim.input.scenario.data import MAX_TABLES, SCHEMA_AGREEMENT, Data, Table, TableAmounts
from ndbsim.input.scenario.loading import (
    DEFAULT_FILE,
    DEFAULT_SCENARIO,
    load,
    load_raw,
    raw_from,
    read_yaml,
    scenario_reusing,
    sections_of,
)
from ndbsim.input.scenario.model import Resolved, Scenario
from ndbsim.input.scenario.overrides import (
    copy_raw,
    fixed_rows_note,
    override_key,
    repeated_notes,
    set_override,
    set_path,
)
from ndbsim.input.scenario.resolving import (
    LOG_PARTS_80,
    LOG_PARTS_PER_LDM,
    MIN_ROW_BYTES,
    check_within_horizon,
    resolve,
)
from ndbsim.input.scenario.sections import (
    MAX_REPLICATIONS,
    MAX_SEED,
    ROLLING_TYPES,
    Cluster,
    Host,
    Restart,
    Simulation,
    check_run_counts,
    check_seed,
)
from ndbsim.input.scenario.validation import error_from_validation, scenario_from_dict, shown_value
from ndbsim.input.scenario.workload import Burst, PartialRates, Workload, WorkloadRates

__all__ = [
    "DEFAULT_FILE",
    "DEFAULT_SCENARIO",
    "LOG_PARTS_80",
    "LOG_PARTS_PER_LDM",
    "MAX_REPLICATIONS",
    "MAX_SEED",
    "MAX_TABLES",
    "MIN_ROW_BYTES",
    "ROLLING_TYPES",
    "SCHEMA_AGREEMENT",
    "Burst",
    "Cluster",
    "Data",
    "Host",
    "PartialRates",
    "Resolved",
    "Restart",
    "Scenario",
    "Simulation",
    "Table",
    "TableAmounts",
    "Workload",
    "WorkloadRates",
    "check_run_counts",
    "check_seed",
    "check_within_horizon",
    "copy_raw",
    "error_from_validation",
    "fixed_rows_note",
    "load",
    "load_raw",
    "override_key",
    "raw_from",
    "read_yaml",
    "repeated_notes",
    "resolve",
    "scenario_from_dict",
    "scenario_reusing",
    "sections_of",
    "set_override",
    "set_path",
    "shown_value",
]
