"""The one load pipeline of every entry point: read a scenario (file, mapping or the built-in
default), lay a config.ini over it, apply ``--set`` overrides, pick the model, resolve.

``read`` stops before resolving (a sweep checks its base itself, a point's factors may repair
it); ``load`` resolves. The notes the steps produce (config.ini, the fixed-rows note) come back
as data for the caller to print or warn with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.input import scenario as sc
from ndbsim.input.scenario import provenance
from ndbsim.models.registry import Model, model_of


@dataclass
class Loaded:
    """A scenario after the pipeline: its model, the raw mapping, the file it came from, the
    notes for the reader, and (after ``load``) the model's prepared scenario."""

    model: Model
    raw: dict[str, Any]
    source: str | None
    notes: list[str] = field(default_factory=list)
    prepared: Any = None
    ini_keys: set[str] = field(default_factory=set)
    """The dotted scenario keys the config.ini set (an error in one names the file)."""
    override_keys: set[str] = field(default_factory=set)
    config_ini: str | Path | None = None
    origins: dict[str, str] = field(default_factory=dict)
    """Where each given dotted key came from (``input.scenario.provenance.origins``, built once by ``read``):
    the scenario file, the built-in default scenario, the config.ini, ``--set``, ``--version``, or
    DataMemory for a derived data.size."""
    not_simulated: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The parameters the config.ini or the ndbinfo export set that ndbsim does not model, by
    where they were set (the config.ini's file name, ``ndbinfo.config_values``): label -> value
    as set. A run warns about each."""

    def run(self, seed: int | None = None, replications: int | None = None, *, explained: bool = True) -> Any:
        """Simulate the prepared scenario; ``seed`` and ``replications`` default to its own.
        ``explained=False`` when ``annotate`` will describe the result (see ``Model.run``)."""
        sc.check_run_counts(seed, replications)
        return self.model.run(self.prepared, seed, replications, explained=explained)


def read(
    scenario: Any = None,
    *,
    source: str | None = None,
    config_ini: str | Path | None = None,
    overrides: Sequence[str] = (),
    overrides_field: str | None = None,
    sets: Mapping[str, Any] | None = None,
    varied: Iterable[str] = (),
    rows_fix: str | None = None,
    neutral: bool = False,
    set_origin: str | None = None,
    version: str | None = None,
) -> Loaded:
    """Read, overlay and override a scenario, and pick its model; nothing is resolved.

    ``scenario``: a YAML path, a mapping, a ``Scenario`` or None: the built-in default, or with
    a config.ini or ``neutral`` (``ndbsim init``) the neutral base (an idle cluster, data.size
    from DataMemory unless given).
    ``source``: the file errors name, when not the scenario's own. ``overrides``: ``--set``
    assignments; with ``overrides_field`` an error in the i-th names ``FIELD[i]``. ``sets``:
    dotted keys to values. ``set_origin``: the origin ``overrides`` and ``sets`` are given
    (``provenance.SET`` unless told, ``provenance.PYTHON_ARG`` for ``simulate()``). ``rows_fix``: when
    given, a note that ``data.rows`` stays fixed while ``data.size`` changes (by an override or
    a ``varied`` key) ends with this fix. ``version``: the NDB release ``--version`` names; a
    config.ini without a scenario needs it (or ``--set version=``), as no config.ini names its release.
    """
    neutral = scenario is None and (neutral or config_ini is not None)
    if neutral:  # a config.ini alone: an idle cluster, not the built-in DBT2 benchmark
        from ndbsim.input.init_scenario import neutral_base

        scenario = neutral_base(config_ini)
    raw, own = sc.raw_from(scenario)
    source = source or own
    marks = provenance.take(raw, source)
    held = marks.held(raw)
    scenario_keys = provenance.flat_keys(raw)
    from_ini: dict[str, Any] = {}
    notes: list[str] = []
    ini_keys = _overlay_config_ini(raw, config_ini, source, notes, from_ini) if config_ini is not None else set()
    given = {sc.override_key(a) for a in overrides} | set(sets or {})  # a value set again is no longer init's
    notes[:0] = marks.notes(
        {k: o for k, o in held.items() if k not in given},
        dropped=[label.partition(provenance.DIFFERS)[0] for label in from_ini],
    )
    _override(raw, overrides, overrides_field, sets, source)
    override_keys = {sc.override_key(a) for a in overrides}
    where = overrides_field or ("set: or --set" if varied else "--set")  # only a sweep varies keys
    notes += sc.repeated_notes(overrides, ini_keys, varied, where)
    _release(raw, version, needed=neutral and config_ini is not None)
    derived = neutral and _size_from_datamemory(raw, notes)
    if neutral:
        ini_keys |= _host_from_thread_config(raw, notes)
    if rows_fix is not None:
        notes += _rows_note(raw, {*varied, *override_keys}, rows_fix)
    origins = provenance.origins(
        scenario_keys,
        builtin=scenario is None,
        config_ini=ini_keys,
        sets=[*override_keys, *(sets or {})],
        set_origin=set_origin or provenance.SET,
        version_option=version is not None,
        from_datamemory=derived,
        marked=held,
    )
    return Loaded(
        model_of(raw),
        raw,
        source,
        notes,
        ini_keys=ini_keys,
        override_keys=override_keys,
        config_ini=config_ini,
        origins=origins,
        not_simulated=_not_simulated(marks, from_ini, config_ini),
    )


def _not_simulated(
    marks: provenance.Marks, from_ini: dict[str, Any], config_ini: str | Path | None
) -> dict[str, dict[str, Any]]:
    """The parameters ndbsim does not model, by where they were set: the scenario's own (less
    those a config.ini given to the run sets again), then the config.ini's, under its file name."""
    dropped = {label.partition(provenance.DIFFERS)[0] for label in from_ini}
    out = {
        where: kept
        for where, params in marks.not_simulated.items()
        if (kept := {k: v for k, v in params.items() if k.partition(provenance.DIFFERS)[0] not in dropped})
    }
    if config_ini is not None and from_ini:
        name = Path(config_ini).name
        out[name] = {**out.get(name, {}), **from_ini}
    return out


def _release(raw: dict[str, Any], version: str | None, needed: bool) -> None:
    """The release ``--version`` names, if given; an error when ``needed`` (a config.ini alone)
    and nothing names it."""
    if version is not None:
        raw["version"] = version
    if needed and "version" not in raw:
        raise InputError(release_needed(), field="--version")


def _rows_note(raw: dict[str, Any], changed: set[str], rows_fix: str) -> list[str]:
    """The note that ``data.rows`` stays fixed while ``data.size`` changes, if it does."""
    note = sc.fixed_rows_note(raw, changed, rows_fix)
    return [note] if note else []


def release_needed() -> str:
    """The one-line error of a config.ini given without its release: which releases ndbsim runs."""
    from ndbsim.input.profiles import KNOWN_VERSIONS

    return (
        "a config.ini does not say which NDB release the cluster runs, and ndbsim assumes none; give it with "
        f"--version X.Y.Z (e.g. --version 8.0.35; release lines ndbsim simulates: {', '.join(KNOWN_VERSIONS)})"
    )


def _overlay_config_ini(
    raw: dict[str, Any], config_ini: str | Path, source: str | None, notes: list[str], not_simulated: dict[str, Any]
) -> set[str]:
    """Lay the config.ini over ``raw`` (its notes go to ``notes``, the parameters ndbsim does
    not model to ``not_simulated``); the dotted keys it set."""
    from ndbsim.input.config.ini import merge_config_ini

    model_of(raw).check_config_ini(config_ini, source)
    cluster = merge_config_ini(raw, config_ini, source, notes, not_simulated)
    ini_keys = {f"cluster.config.{k}" for k in cluster["config"]}
    ini_keys |= {f"cluster.{k}" for k in ("data_nodes", "node_ids") if k in cluster}
    ini_keys |= {f"data.{k}" for k in cluster.get("disk_files", {})}
    return ini_keys


def _override(
    raw: dict[str, Any],
    overrides: Sequence[str],
    overrides_field: str | None,
    sets: Mapping[str, Any] | None,
    source: str | None,
) -> None:
    """Apply the ``--set`` assignments, then the dotted ``sets``; with ``overrides_field`` an
    error in the i-th assignment names ``FIELD[i]``."""
    for i, assignment in enumerate(overrides):
        try:
            sc.set_override(raw, assignment)
        except InputError as e:
            if overrides_field is None:
                raise
            raise InputError(e.message, field=f"{overrides_field}[{i}]", source=source) from None
    for key, value in (sets or {}).items():
        sc.set_path(raw, key, value)


def _size_from_datamemory(raw: dict[str, Any], notes: list[str]) -> bool:
    """A neutral base without data.size takes it from DataMemory, and says so (and what its disk
    data is taken as); whether it took data.size."""
    from ndbsim.input.init_scenario import data_size_from_datamemory, disk_data_note

    derived = data_size_from_datamemory(raw, raw.get("version"), notes)
    disk_data_note(raw, notes)
    return derived


def _host_from_thread_config(raw: dict[str, Any], notes: list[str]) -> set[str]:
    """A neutral base whose ThreadConfig binds CPUs the default host lacks takes a host that holds
    them, and says so; the keys it set (from the config.ini's ThreadConfig)."""
    from ndbsim.input.init_scenario import host_from_thread_config

    return host_from_thread_config(raw, notes)


def prepare(loaded: Loaded) -> Loaded:
    """Resolve ``loaded`` with its model; an error in a value the config.ini set (and no
    override set again) names the config.ini."""
    try:
        loaded.prepared = loaded.model.prepare(loaded.raw, loaded.source)
    except InputError as e:
        if e.field in loaded.ini_keys and e.field not in loaded.override_keys:
            raise InputError(f"{e.message} (value from {loaded.config_ini})", field=e.field, source=e.source) from None
        raise
    return loaded


def load(
    scenario: Any = None,
    *,
    config_ini: str | Path | None = None,
    overrides: Sequence[str] = (),
    sets: Mapping[str, Any] | None = None,
    rows_fix: str | None = None,
    set_origin: str | None = None,
    version: str | None = None,
) -> Loaded:
    """``read`` then ``prepare``: a scenario ready to run."""
    loaded = read(
        scenario,
        config_ini=config_ini,
        overrides=overrides,
        sets=sets,
        rows_fix=rows_fix,
        set_origin=set_origin,
        version=version,
    )
    return prepare(loaded)
