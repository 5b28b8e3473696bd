"""``ndbsim ndbinfo-sql`` and ``init --ndbinfo``: start from a running cluster; and ``params
--config-ini``: the thread layout NDB starts a config.ini with."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from ndbsim.cli.options import add_commands, echo, wrote
from ndbsim.errors import InputError


def register(app: typer.Typer) -> None:
    """Add ``ndbinfo-sql`` to the command line."""
    add_commands(app, ndbinfo_sql)


def ndbinfo_sql(
    snapshot: bool = typer.Option(
        False, "--snapshot", help="The short script `ndbsim eta` reads during a restart (returns at once)."
    ),
) -> None:
    """Print the SQL script that reads a running cluster's ndbinfo for `ndbsim init --ndbinfo`
    (run it with mysql --batch against any SQL node; it takes about a minute), or with --snapshot
    the one `ndbsim eta` reads while a restart runs."""
    from ndbsim.input.ndbinfo import SCRIPT, SNAPSHOT_SCRIPT, script_text

    sys.stdout.write(script_text(SNAPSHOT_SCRIPT if snapshot else SCRIPT))


def init_from_ndbinfo(
    export: Path, config_ini: Path | None, release: str | None, sets: list[str], output: Path | None
) -> None:
    """``init --ndbinfo``: the scenario of the exported cluster, each value with its ndbinfo table;
    its restart_info rows beside it as a calibration case (``ndbsim calibrate --restart-info``)."""
    from dataclasses import replace

    from ndbsim.input.init_scenario import init_text
    from ndbsim.input.ndbinfo import read_export
    from ndbsim.input.ndbinfo_scenario import scenario_from_export
    from ndbsim.models.load import prepare, read
    from ndbsim.models.registry import NDB

    for flag, given in (("--config-ini", config_ini), ("--version", release)):
        if given is not None:
            raise InputError(
                "the export holds the running configuration and each node's release; drop it or drop --ndbinfo",
                field=flag,
            )
    found = scenario_from_export(read_export(export))
    loaded = prepare(replace(read(found.raw, source=str(export), overrides=sets), model=NDB))
    notes = [*found.notes, *loaded.notes, *_layout_check(loaded.prepared, found.ldm_started)]
    csv_path = None
    if found.restart_info_csv is not None:
        if output is None:
            notes.append("ndbinfo.restart_info has rows: give -o FILE.yaml to write them as a calibration case")
        else:
            csv_path = output.with_name(output.stem + ".restart_info.csv")
            notes.append(
                f"ndbinfo.restart_info: the last restarts are in {csv_path.name}; add them as a calibration case with "
                f"ndbsim calibrate --restart-info {csv_path} --scenario {output}"
            )
    text = init_text(
        loaded.raw,
        None,
        notes,
        sources=found.sources,
        ndbinfo=str(export),
        origins=loaded.origins,
        not_simulated=loaded.not_simulated,
    )
    if output is None:
        sys.stdout.write(text)
        return
    from ndbsim.output.io import atomic_write_text

    if csv_path is not None and found.restart_info_csv is not None:
        atomic_write_text(csv_path, found.restart_info_csv)
    atomic_write_text(output, text)
    quoted = shlex.quote(str(output))
    wrote(output, f"; check it with ndbsim validate {quoted}, run it with ndbsim run {quoted}")
    if csv_path is not None:
        wrote(
            csv_path,
            f" (ndbinfo.restart_info); add it as a calibration case (its fit needs ndbsim[calibrate]): "
            f"ndbsim calibrate --restart-info {shlex.quote(str(csv_path))} --scenario {shlex.quote(str(output))}",
        )


def _layout_check(resolved: object, started: list[int]) -> list[str]:
    """A note when the LDM threads the nodes run differ from those ndbsim derives from the config."""
    from ndbsim.input.scenario import Resolved
    from ndbsim.input.threads import layout

    if not isinstance(resolved, Resolved) or not started:
        return []
    mech, h = resolved.profile.mechanisms, resolved.scenario.host
    derived = layout(resolved.config, mech.multithreaded, mech.query_threads, h.cpu_cores * h.threads_per_core)
    if started == [derived.ldm]:
        return []
    return [
        f"ndbinfo.threads: the nodes run {' or '.join(map(str, started))} LDM threads, but ndbsim derives "
        f"{derived.ldm} from the config ({derived.source}); set ThreadConfig to the running layout"
    ]


def print_layout(config_ini: Path | None, version: str | None, sets: list[str] | None = None) -> None:
    """``params --config-ini FILE --version V [--set K=V]``: the thread layout NDB starts each data
    node with (``sets`` laid over the config.ini, as ``run`` does)."""
    if config_ini is None:
        raise InputError(
            "--set changes a scenario, and params reads one only with --config-ini (the thread layout of that "
            "config.ini with your --set); add --config-ini FILE, or drop --set",
            field="--set",
        )
    from ndbsim.input.threads import layout
    from ndbsim.input.threads import threads_text as counted
    from ndbsim.models.load import prepare, read, release_needed
    from ndbsim.models.registry import NDB
    from ndbsim.output.header import threads_text

    given = [a.split("=", 1)[1].strip() for a in sets or [] if a.partition("=")[0].strip() == "version"]
    if version is None and not given:
        raise InputError(release_needed(), field="--version")
    from dataclasses import replace

    raw = read(config_ini=config_ini, overrides=sets or [], neutral=True, version=version)
    loaded = prepare(replace(raw, model=NDB))
    r = loaded.prepared
    mech, h = r.profile.mechanisms, r.scenario.host
    hw = h.cpu_cores * h.threads_per_core
    t = layout(r.config, mech.multithreaded, mech.query_threads, hw)
    counts = {k: v for k, v in t.counts().items() if k != "requested"}
    changes = "".join(f" --set {a.strip()}" for a in sets or [])
    origin = "--version" if version is not None else "--set"
    echo(f"NDB {r.scenario.version} (release from {origin}) · {config_ini}{changes}")
    echo(f"threads per data node: {threads_text({**counts, 'source': t.source})}")
    echo(", ".join(f"{k} {v}" for k, v in counts.items()))
    echo(f"restore threads (LDM + query + recover): {t.restore_threads}; {counted(t)}")
    if mech.query_threads and r.config.get("AutomaticThreadConfig") and not r.config.get("NumCPUs"):
        echo(f"NumCPUs=0: NDB counts the host's CPUs; ndbsim takes host.cpu_cores × threads_per_core = {hw}")
    for note in loaded.notes:
        if not note.startswith("data.size not given"):  # no restart is simulated here
            echo(f"note: {note}")
