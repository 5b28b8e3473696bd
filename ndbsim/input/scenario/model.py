"""The whole scenario (``Scenario``) and a scenario resolved against its version profile
(``Resolved``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from ndbsim.input.fields import StrictModel
from ndbsim.input.profiles import Profile, profile_for
from ndbsim.input.scenario.data import Data
from ndbsim.input.scenario.sections import Cluster, Host, Restart, Simulation, version_text
from ndbsim.input.scenario.workload import Workload


class Scenario(StrictModel):
    name: str = "unnamed scenario"
    """Label shown in reports; a placeholder by default."""
    version: Annotated[str, BeforeValidator(version_text)] = "7.6.6"
    """NDB release, as NDB prints it (``ndb-8.4.3``, ``mysql-8.0.35 ndb-8.0.35``) or bare (``8.4.3``),
    kept bare; picks the profile (defaults and mechanisms). Default 7.6.6: seed 003's 7.6.6, the
    default scenario's version."""
    cluster: Cluster = Field(default_factory=Cluster)
    """Data nodes and config.ini parameters; defaults as in ``Cluster``."""
    host: Host = Field(default_factory=Host)
    """Host hardware; defaults as in ``Host`` (seed 003's 8 cores × 2 threads)."""
    data: Data = Field(default_factory=Data)
    """Data per node; defaults as in ``Data`` (seed 003's 60 GB DBT2 schema)."""
    workload: Workload = Field(default_factory=Workload)
    """Traffic before and during the restart; defaults as in ``Workload`` (idle, no burst)."""
    restart: Restart = Field(default_factory=Restart)
    """What restarts and how; defaults as in ``Restart`` (a planned node restart)."""
    simulation: Simulation = Field(default_factory=Simulation)
    """Seed, replications, LCP phase and horizon; defaults as in ``Simulation``."""
    expect: dict[str, Any] | None = None
    """Expected outcomes written next to the scenario, checked by the test suite."""
    calibrated: dict[str, Any] | None = None
    """What ``ndbsim calibrate --restart-info`` recorded when it fitted this scenario's host figures:
    the rows' file, their nodes, the figures fitted and the fit's error per restart_info column
    (``studies.calibration.fit_record``); runs show it as their accuracy band. Absent: not calibrated."""

    @model_validator(mode="after")
    def _version_known(self) -> Scenario:
        profile_for(self.version)
        return self


class Resolved:
    """A scenario with its profile and fully resolved config.ini parameters."""

    __slots__ = ("config", "node_ids", "profile", "scenario", "upgrade")

    def __init__(
        self,
        scenario: Scenario,
        profile: Profile,
        config: dict[str, Any],
        node_ids: list[int] | None = None,
        upgrade: Resolved | None = None,
    ):
        self.scenario = scenario
        """The scenario as the engine reads it: data nodes numbered 1..data_nodes."""
        self.profile = profile
        self.config = config
        self.node_ids = node_ids
        """``cluster.node_ids``: engine node i is NDB NodeId ``node_ids[i - 1]``; None when 1..N."""
        self.upgrade = upgrade
        """The release the restarted nodes come back on (restart.upgrade_to), resolved; None: no upgrade."""

    def node_id(self, index: int) -> int:
        """The NDB NodeId of the engine's data node ``index`` (1-based)."""
        return self.node_ids[index - 1] if self.node_ids else index

    def to_dict(self) -> dict[str, Any]:
        d = self.scenario.model_dump(mode="json")
        d["cluster"]["config"] = dict(self.config)
        if self.node_ids:
            d["cluster"]["node_ids"] = list(self.node_ids)
            if d["restart"]["nodes"]:
                d["restart"]["nodes"] = [self.node_id(i) for i in d["restart"]["nodes"]]
            if isinstance(d["restart"].get("plan"), list):  # waves as the user wrote them: NodeIds
                d["restart"]["plan"] = [[self.node_id(i) for i in wave] for wave in d["restart"]["plan"]]
        if d["restart"].get("upgrade_to") is None:
            del d["restart"]["upgrade_to"]  # a scenario without an upgrade is written as it was given
        return d
