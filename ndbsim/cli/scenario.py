"""``ndbsim validate``, ``init`` and ``params``: check a scenario, write one for a cluster, list the
config.ini parameters a version has."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ndbsim.cli.help import NDBINFO_HELP, RELEASE_HELP, SET_HELP
from ndbsim.cli.options import CONFIG_INI_OPTION, SCENARIO_ARGUMENT, add_commands, echo, warn, wrote
from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.input.profiles import Profile


def register(app: typer.Typer) -> None:
    """Add ``validate``, ``init`` and ``params`` to the command line."""
    add_commands(app, validate, init, params)


def validate(
    scenario: Path | None = SCENARIO_ARGUMENT,
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = typer.Option(None, "--version", metavar="X.Y.Z", help=RELEASE_HELP),
) -> None:
    """Check what a run would simulate — a scenario file, or none (the built-in default, or your
    --config-ini with --version) — with the --set, --config-ini and --version a run would use;
    print what is wrong (exit 2) or that it is valid (exit 0), and the warnings a run would print."""
    from ndbsim.models.load import load

    loaded = load(scenario, config_ini=config_ini, overrides=set_, rows_fix="add --set data.rows=null", version=release)
    what = scenario if scenario is not None else (config_ini or "the built-in default scenario")
    echo(f"{what}: valid ({loaded.model.summary(loaded.prepared)})")
    # the configuration's own warnings (an oversubscribed host, a cliff, a plan's) come with a run:
    # one replication, milliseconds, as advise and solve take them
    ran = loaded.run(None, 1, explained=False).warnings
    warn([*loaded.notes, *loaded.model.input_notes(loaded.prepared, loaded.origins), *ran])


def init(
    config_ini: Path | None = CONFIG_INI_OPTION,
    release: str | None = typer.Option(None, "--version", metavar="X.Y.Z", help=RELEASE_HELP),
    ndbinfo: Path | None = typer.Option(None, "--ndbinfo", metavar="EXPORT.tsv", help=NDBINFO_HELP),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
    output: Path | None = typer.Option(
        None, "--output", "-o", metavar="FILE.yaml", help="Write the scenario to FILE.yaml (default: stdout)."
    ),
) -> None:
    """Write a commented scenario for your cluster: every key with its meaning and default,
    filled from --config-ini (an idle cluster; data.size from DataMemory until you give it) or
    from a running cluster's --ndbinfo export."""
    from dataclasses import replace

    from ndbsim.input.init_scenario import init_text
    from ndbsim.input.scenario.provenance import FROM_DATAMEMORY
    from ndbsim.models.load import prepare, read
    from ndbsim.models.registry import NDB
    from ndbsim.output.io import stdout_if_dash

    output = stdout_if_dash(output)  # type: ignore[assignment]
    if output is not None:
        from ndbsim.output.io import check_not_inputs, check_output_path

        check_output_path(output, "--output")
        check_not_inputs({"--output": output}, {"--config-ini": config_ini, "--ndbinfo": ndbinfo})
    if ndbinfo is not None:
        from ndbsim.cli.ndbinfo import init_from_ndbinfo

        init_from_ndbinfo(ndbinfo, config_ini, release, set_, output)
        return
    loaded = read(config_ini=config_ini, overrides=set_, neutral=True, version=release)
    prepare(replace(loaded, model=NDB))  # what init writes must be a valid NDB scenario
    notes = list(loaded.notes)
    derived = frozenset(k for k, origin in loaded.origins.items() if origin == FROM_DATAMEMORY)
    text = init_text(
        loaded.raw,
        str(config_ini) if config_ini else None,
        notes,
        derived,
        origins=loaded.origins,
        not_simulated=loaded.not_simulated,
    )
    if output is None:
        sys.stdout.write(text)
        return
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(output, text)
    quoted = shlex.quote(str(output))
    wrote(output, f"; check it with ndbsim validate {quoted}, run it with ndbsim run {quoted}")


def params(
    version: str | None = typer.Option(
        None,
        "--version",
        metavar="X.Y.Z",
        help="NDB release, as NDB prints it (ndb-8.4.3) or bare (default 7.6.6; needed with --config-ini).",
    ),
    diff: str | None = typer.Option(
        None, "--diff", metavar="X.Y.Z", help="Another NDB version: list what differs, with sources."
    ),
    config_ini: Path | None = typer.Option(
        None, "--config-ini", metavar="config.ini", help="Print the thread layout NDB starts this config.ini with."
    ),
    set_: list[str] = typer.Option([], "--set", "-s", metavar="KEY=VALUE", help=SET_HELP),
) -> None:
    """List the config.ini parameters ndbsim models, with this version's defaults and thread layout;
    with --config-ini (and --set, as run lays them over it) the layout that cluster starts with."""
    from ndbsim.input.config.params import PARAMS, show
    from ndbsim.input.profiles import parse_version, unused_params

    if config_ini is not None or set_:
        from ndbsim.cli.ndbinfo import print_layout

        print_layout(config_ini, version, set_)
        return
    # given empty, it is refused like any unknown release
    version, prof = _profile("7.6.6" if version is None else version, "--version")
    if diff is not None:
        from ndbsim.input.profiles import differences

        diff, other = _profile(diff, "--diff")
        (old_v, old), (new_v, new) = sorted(((version, prof), (diff, other)), key=lambda x: parse_version(x[0]))
        rows = differences(old, new)
        for note in (*prof.notes, *other.notes):
            echo(f"note: {note}")
        if not rows:
            echo(f"NDB {old_v} and {new_v}: no modelled default or mechanism differs")
            for key in ("line",):
                if key in new.sources:
                    echo(f"  source: {new.sources[key]}")
            return
        echo(f"{'parameter or mechanism':32s} {version:>10s} {diff:>10s}  source")
        for name, a_val, b_val, source in rows:
            mine, theirs = (a_val, b_val) if version == old_v else (b_val, a_val)
            echo(f"{name:32s} {mine!s:>10s} {theirs!s:>10s}  {source or '-'}")
        return
    unused = unused_params(prof.mechanisms)
    echo(f"{'parameter':38s} {'default':>10s}  {'kind':5s} range")
    for name in sorted(PARAMS):
        if name in unused:
            continue
        p = PARAMS[name]
        rng = f"{show(p.kind, p.lo)}–{show(p.kind, p.hi)}" if p.lo is not None else ""
        echo(f"{name:38s} {prof.defaults.get(name, '')!s:>10s}  {p.kind:5s} {rng}")
    if unused:
        echo(f"not in NDB {version}, ignored if set: {', '.join(unused)}")
    echo(f"thread layout at these defaults: {_default_layout(prof)}")
    for note in prof.notes:
        echo(f"note: {note}")


def _default_layout(prof: Profile) -> str:
    """The thread layout NDB derives from a profile's defaults (threads.layout), described."""
    from ndbsim.input.config.params import resolve
    from ndbsim.input.threads import layout

    cfg = resolve(prof.defaults, {})
    mech = prof.mechanisms
    lay = layout(cfg, mech.multithreaded, mech.query_threads, host_threads=1)
    return f"{lay.describe()} ({lay.source}; restore threads {lay.restore_threads})"


def _profile(version: str, option: str) -> tuple[str, Any]:
    """``version`` as every output shows it (``ndb-8.4.3`` reads ``8.4.3``) and its profile, its error
    naming the option that gave it."""
    from ndbsim.input.profiles import canonical_release, profile_for

    try:
        return str(canonical_release(version)), profile_for(version)
    except InputError as e:
        raise InputError(e.message, field=option) from None
