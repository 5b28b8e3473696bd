"""``ndbsim compare``: two runs side by side, phase by phase, with the difference and the why on
each side (``studies.compare``)."""

from __future__ import annotations

from pathlib import Path

import typer

from ndbsim.cli.help import EXAMPLES, SET_HELP
from ndbsim.cli.options import CONSTANTS_OPTION, emit, use_constants, warn
from ndbsim.errors import InputError

FORMATS = ("table", "json", "csv")
"""Output formats of ``ndbsim compare --format``."""


def register(app: typer.Typer) -> None:
    """Add ``compare`` to the command line."""
    app.command(epilog=EXAMPLES["compare"])(compare)


def compare(
    scenarios: list[Path] = typer.Argument(
        ..., metavar="A.yaml [B.yaml]", help="One or two scenario files.", show_default=False
    ),
    set_: list[str] = typer.Option(
        [],
        "--set",
        "-s",
        metavar="KEY=VALUE",
        help="With one scenario and one config.ini at most: B's changes. Otherwise applied to both sides. " + SET_HELP,
    ),
    config_ini: list[Path] = typer.Option(
        [], "--config-ini", metavar="config.ini", help="Once: both sides'. Twice: A's, then B's, on the same data."
    ),
    replications: int | None = typer.Option(
        None, "--replications", "-n", metavar="N", help="Replications on both sides (default: A's scenario's, 1)."
    ),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Root seed of both sides (default: A's)."),
    format: str | None = typer.Option(None, "--format", "-f", metavar="[table|json|csv]", help="Output format."),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the output to FILE."),
    constants: Path | None = CONSTANTS_OPTION,
) -> None:
    """Compare two restarts phase by phase: the seconds on each side, the difference, the why."""
    from ndbsim.input.scenario import check_run_counts
    from ndbsim.models.load import load
    from ndbsim.output.io import check_not_inputs, check_output_path
    from ndbsim.studies import compare as study

    fmt = _format(format, output)
    use_constants(constants)
    check_run_counts(seed, replications)
    check_output_path(output, "--output")
    inputs: dict[str, str | Path | None] = {f"{side} scenario": x for side, x in zip(("A's", "B's"), scenarios)}
    inputs.update({f"{side} --config-ini": x for side, x in zip(("first", "second"), config_ini)})
    check_not_inputs({"--output": output}, inputs)
    plan = _sides(scenarios, config_ini, set_)
    loaded = [load(path, config_ini=ini, overrides=sets) for path, ini, sets, _ in plan]
    for x, (_, _, _, label) in zip(loaded, plan):
        study.check_ndb(x, label)
    sides = study.run_sides(loaded[0], loaded[1], (plan[0][3], plan[1][3]), seed, replications)
    cmp = study.comparison(sides)
    for key, x in zip("ab", loaded):  # each side's input notes (its config.ini's), as run warns them
        notes = [*x.notes, *x.model.input_notes(x.prepared, x.origins)]
        cmp[key]["warnings"] = [*notes, *(w for w in cmp[key]["warnings"] if w not in notes)]
    text = {"json": study.to_json, "csv": study.to_csv, "table": study.table}[fmt](cmp)
    warn([f"{side} ({cmp[key]['label']}): {w}" for side, key in zip("AB", "ab") for w in cmp[key]["warnings"]])
    emit(text, output, fitted=fmt == "table")


def _sides(scenarios: list[Path], inis: list[Path], sets: list[str]) -> list[tuple[Path, Path | None, list[str], str]]:
    """(scenario, config.ini, --set, label) of side A and side B, from what was given."""
    if len(scenarios) > 2:
        raise InputError(f"{len(scenarios)} scenarios given; compare takes one or two", field="scenario")
    if len(inis) > 2:
        raise InputError(
            f"{len(inis)} config.ini files given; give one (both sides) or two (A, B)", field="--config-ini"
        )
    ini_a = inis[0] if inis else None
    ini_b = inis[1] if len(inis) == 2 else ini_a
    a, b = scenarios[0], scenarios[-1]
    if len(scenarios) == 1 and len(inis) < 2:
        if not sets:
            raise InputError(
                "one scenario and nothing to change: give a second scenario, --set KEY=VALUE for side B, "
                "or two --config-ini files",
                field="scenario",
            )
        return [(a, ini_a, [], _label(a, ini_a, [])), (a, ini_b, list(sets), _label(a, ini_b, sets))]
    return [(a, ini_a, list(sets), _label(a, ini_a, sets)), (b, ini_b, list(sets), _label(b, ini_b, sets))]


def _label(path: Path, ini: Path | None, sets: list[str]) -> str:
    return " ".join([str(path)] + ([f"--config-ini {ini}"] if ini else []) + [f"--set {s}" for s in sets])


def _format(format: str | None, output: Path | None) -> str:
    if format is None:
        suffix = output.suffix.lower() if output is not None else ""
        return {".json": "json", ".csv": "csv"}.get(suffix, "table")
    if format not in FORMATS:
        raise InputError(f"{format!r} is not a format; use one of {', '.join(FORMATS)}", field="--format")
    return format
