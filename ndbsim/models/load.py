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
    """Where each given dotted key came from (``origins.origins``): the scenario file, the
    built-in default scenario, the config.ini, ``--set``, or DataMemory for a derived data.size."""

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
    (``origins.SET`` unless told, ``origins.PYTHON_ARG`` for ``simulate()``). ``rows_fix``: when
    given, a note that ``data.rows`` stays fixed while ``data.size`` changes (by an override or
    a ``varied`` key) ends with this fix. ``version``: the NDB release ``--version`` names; a
    config.ini without a scenario needs it (or ``--set version=``), as no config.ini names its release.
    """
    from ndbsim.output import origins as origin

    neutral = scenario is None and (neutral or config_ini is not None)
    if neutral:  # a config.ini alone: an idle cluster, not the built-in DBT2 benchmark
        from ndbsim.input.init_scenario import neutral_base

        scenario = neutral_base(config_ini)
    raw, own = sc.raw_from(scenario)
    source = source or own
    origins = origin.origins(raw, builtin=scenario is None)
    notes: list[str] = []
    ini_keys = _with_config_ini(raw, config_ini, source, notes, origins)
    _override(raw, overrides, overrides_field, sets, source)
    override_keys = {sc.override_key(a) for a in overrides}
    where = overrides_field or ("set: or --set" if varied else "--set")  # only a sweep varies keys
    notes += sc.repeated_notes(overrides, ini_keys, varied, where)
    origins = origin.origins({}, False, (), [*override_keys, *(sets or {})], origins, set_origin or origin.SET)
    _release(raw, origins, version, needed=neutral and config_ini is not None)
    if neutral:
        _size_from_datamemory(raw, notes, origins)
    if rows_fix is not None:
        notes += _rows_note(raw, {*varied, *override_keys}, rows_fix)
    return Loaded(
        model_of(raw),
        raw,
        source,
        notes,
        ini_keys=ini_keys,
        override_keys=override_keys,
        config_ini=config_ini,
        origins=origins,
    )


def _with_config_ini(
    raw: dict[str, Any], config_ini: str | Path | None, source: str | None, notes: list[str], origins: dict[str, str]
) -> set[str]:
    """Overlay the config.ini's values on ``raw``, their origin the config.ini; the keys it set."""
    if config_ini is None:
        return set()
    from ndbsim.output import origins as origin

    ini_keys = _overlay_config_ini(raw, config_ini, source, notes)
    origins.update(dict.fromkeys(ini_keys, origin.CONFIG_INI))
    return ini_keys


def _release(raw: dict[str, Any], origins: dict[str, str], version: str | None, needed: bool) -> None:
    """The release ``--version`` names, if given; an error when ``needed`` (a config.ini alone)
    and nothing names it."""
    from ndbsim.output import origins as origin

    if version is not None:
        raw["version"] = version
        origins["version"] = origin.VERSION_OPTION
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


def _overlay_config_ini(raw: dict[str, Any], config_ini: str | Path, source: str | None, notes: list[str]) -> set[str]:
    """Lay the config.ini over ``raw`` (its notes go to ``notes``); the dotted keys it set."""
    from ndbsim.input.config_ini import merge_config_ini

    model_of(raw).check_config_ini(config_ini, source)
    cluster = merge_config_ini(raw, config_ini, source, notes)
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


def _size_from_datamemory(raw: dict[str, Any], notes: list[str], origins: dict[str, str]) -> None:
    """A neutral base without data.size takes it from DataMemory, and says so."""
    from ndbsim.input.init_scenario import data_size_from_datamemory, disk_data_note
    from ndbsim.output.origins import FROM_DATAMEMORY

    if data_size_from_datamemory(raw, raw.get("version"), notes):
        origins["data.size"] = FROM_DATAMEMORY
    disk_data_note(raw, notes)


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
