"""Calibration cases: published restart timings as data (see calibration/README.md).

``load_cases`` reads the case files; ``predict`` simulates one case with given constants;
``compare`` lines predictions up against the published figures and their tolerances.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError
from pydantic_core import PydanticCustomError

from ndbsim.errors import InputError, did_you_mean
from ndbsim.input import scenario as sc
from ndbsim.input.fields import StrictModel
from ndbsim.input.profiles import Constants
from ndbsim.models.load import prepare, read
from ndbsim.models.registry import Model, model_of
from ndbsim.paths import CASES_DIR

DEFAULT_DIR = CASES_DIR
"""The repository's ``calibration/`` directory (``ndbsim.paths.CASES_DIR``)."""
PHASE_REL_TOL = 0.10
"""A phase is within tolerance at ±10% ..."""
PHASE_ABS_TOL = 5.0
"""... or ±5 s, whichever is looser (issue 3: "±10% (or ±5 s) per phase")."""
TOTAL_TOL = {"fit": 0.05, "validate": 0.15}
"""Totals: ±5% for fit cases, ±15% for validation cases (issue 3's "done when")."""
CASE_KEYS = {"source", "role", "scenario", "overrides", "replications", "seed", "stated", "assumed", "published"}
"""The top-level keys a calibration case file may have (the case format of calibration/README.md);
any other key is an error."""
MAX_REPLICATIONS = 1000
"""A case's ``replications`` cap: the published cases use at most 21, and ``ndbsim check`` and
every step of the fit simulate each case that many times, so more would run for hours."""
MAX_SECS = 1e6
"""The largest published or measured time ndbsim accepts, in seconds (about 11.6 days): far
above any real restart, low enough to catch a wrong unit or a corrupt export."""


# ---------------------------------------------------------------------------------------
# The case file format (calibration/README.md), checked with pydantic when a case is loaded


def _no_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise PydanticCustomError("bool_not_number", "a boolean is not a number")
    return v


Number = Annotated[float, BeforeValidator(_no_bool)]
Whole = Annotated[int, BeforeValidator(_no_bool)]


class FigureSpec(StrictModel):
    """One published figure: ``{value: SECONDS, tolerance: FRACTION, abs_tolerance: SECONDS,
    info: BOOL, note: TEXT}``."""

    value: Annotated[Number, Field(ge=0, le=MAX_SECS)]
    tolerance: Annotated[Number, Field(ge=0)] | None = None
    abs_tolerance: Annotated[Number, Field(ge=0, le=MAX_SECS)] | None = None
    info: bool = False
    note: Any = None


class PublishedSpec(StrictModel):
    total_restart_secs: FigureSpec
    phases: dict[str, FigureSpec] | None = None


class CaseSpec(StrictModel):
    source: Any = None
    role: Literal["fit", "validate"]
    scenario: Any
    overrides: list[str] | None = None
    replications: Annotated[Whole, Field(ge=1, le=MAX_REPLICATIONS)] | None = None
    seed: Annotated[Whole, Field(ge=0)] | None = None
    stated: Any = None
    assumed: Any = None
    published: PublishedSpec


FIGURE_KEYS = tuple(FigureSpec.model_fields)
PUBLISHED_KEYS = tuple(PublishedSpec.model_fields)


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _is_figure(loc: tuple[Any, ...]) -> bool:
    return loc == ("published", "total_restart_secs") or (len(loc) == 3 and loc[:2] == ("published", "phases"))


def _fix_for_number(loc: tuple[Any, ...]) -> str:
    last = loc[-1] if loc else ""
    if last == "tolerance":
        return "write a fraction such as 0.1 (±10%)"
    if last in ("replications", "seed"):
        return "write a whole number such as 9"
    return "write seconds such as 35"


def _describe(e: Mapping[str, Any]) -> InputError:
    """pydantic's first error in a case file, as 'FIELD: VALUE is ...; FIX'."""
    loc = tuple(e.get("loc", ()))
    fld = _path(loc) or "case"
    kind = e.get("type", "")
    ctx = dict(e.get("ctx") or {})
    value = e.get("input")
    v = sc.shown_value(value)
    last = loc[-1] if loc else ""
    if kind == "missing":
        fixes = {
            "role": "add role: fit or role: validate",
            "scenario": "give a scenario file path (relative to the case file) or an inline scenario mapping",
            "published": "give the published figures, e.g. published: {total_restart_secs: {value: 409}}",
            "total_restart_secs": "give the published total, e.g. total_restart_secs: {value: 409}",
            "value": "give the published seconds, e.g. {value: 35}",
        }
        return InputError(f"missing; {fixes.get(str(last), 'add it')}", field=fld)
    if kind == "extra_forbidden":
        keys = CASE_KEYS if len(loc) == 1 else PUBLISHED_KEYS if loc[:-1] == ("published",) else FIGURE_KEYS
        return InputError(f"unknown key{did_you_mean(str(last), keys)}; remove it or fix its spelling", field=fld)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        if _is_figure(loc):
            example = (
                f"{{value: {value}}}"
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else "{value: SECONDS}"
            )
            return InputError(f"{v} is not a mapping; write it as {example}", field=fld)
        if loc == ("published", "phases"):
            return InputError(f"{v} is not a mapping; write one phase a line, as NAME: {{value: SECONDS}}", field=fld)
        if loc == ("published",):
            return InputError(
                f"{v} is not a mapping; write total_restart_secs: {{value: SECONDS}} (and phases) under it", field=fld
            )
        return InputError(f"{v} is not a mapping; write a mapping of keys under it", field=fld)
    if kind in ("list_type", "tuple_type"):
        example = f"[{value}]" if isinstance(value, str) else "[data.size=1TB]"
        return InputError(f"{v} is not a list; write a list of dotted.path=value overrides, e.g. {example}", field=fld)
    if kind in ("string_type", "string_unicode"):
        return InputError(f"{v} is not text; write an override as dotted.path=value, e.g. data.size=1TB", field=fld)
    if kind == "literal_error":
        return InputError(f"{v} is not a role; use fit or validate", field=fld)
    if kind in ("bool_parsing", "bool_type"):
        return InputError(f"{v} is not true or false; write true or false", field=fld)
    if kind in ("float_parsing", "float_type", "bool_not_number"):
        what = "a whole number" if last in ("replications", "seed") else "a number"
        return InputError(f"{v} is not {what}; {_fix_for_number(loc)}", field=fld)
    if kind == "finite_number":
        return InputError(f"{v} is not a finite number; {_fix_for_number(loc)}", field=fld)
    if kind in ("int_parsing", "int_type", "int_from_float", "int_parsing_size"):
        return InputError(f"{v} is not a whole number; {_fix_for_number(loc)}", field=fld)
    if kind == "greater_than_equal":
        bound = ctx.get("ge")
        if bound == 0:
            return InputError(f"{v} is negative; use 0 or more", field=fld)
        return InputError(f"{v} is too small; use {bound} or more", field=fld)
    if kind == "less_than_equal":
        bound = ctx.get("le")
        if last == "replications":
            return InputError(
                f"{v} is too many: every check and every fit step would simulate the case that "
                f"often; use at most {bound}",
                field=fld,
            )
        return InputError(f"{v} is too large; use at most {bound:.0f} s", field=fld)
    text = " ".join(str(e.get("msg", "invalid")).split()).rstrip(".")
    return InputError(f"{v} is not valid ({text[:1].lower() + text[1:]}); fix the value", field=fld)


@dataclass
class Figure:
    name: str
    value: float
    rel_tol: float
    abs_tol: float
    info: bool = False

    def allowed(self) -> float:
        return max(self.rel_tol * abs(self.value), self.abs_tol)


@dataclass
class Case:
    name: str
    path: Path
    role: str
    raw: dict[str, Any]
    replications: int
    seed: int
    figures: list[Figure] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def model(self) -> Model:
        return model_of(self.raw)


def _figure(name: str, spec: FigureSpec, rel: float, abs_: float, where: str, src: str) -> Figure:
    fig = Figure(
        name,
        spec.value,
        rel if spec.tolerance is None else spec.tolerance,
        abs_ if spec.abs_tolerance is None else spec.abs_tolerance,
        spec.info,
    )
    if not fig.info and not fig.allowed() > 0:
        raise InputError(
            f"tolerance {fig.rel_tol:g} and abs_tolerance {fig.abs_tol:g} leave no room around "
            f"{fig.value:g} s; give a tolerance > 0 (or an abs_tolerance > 0, or info: true)",
            field=f"{where}.tolerance",
            source=src,
        )
    return fig


def case_from_data(data: Any, path: Path | str) -> Case:
    """A case from the parsed contents of a case file at ``path`` (which need not exist yet:
    ``ndbsim calibrate --restart-info`` checks its new case before writing it). Every problem
    is an ``InputError`` naming the file, the field path and the fix."""
    path = Path(path)
    src = str(path)
    if not isinstance(data, dict):
        raise InputError(
            "a calibration case must be a mapping of keys (source, role, scenario, published, ...); "
            "see calibration/README.md",
            source=src,
        )
    data = {**data}
    if data.get("published") is None:
        data.pop("published", None)
    try:
        spec = CaseSpec.model_validate(data)
    except ValidationError as err:
        errors = err.errors(include_url=False)
        # a misspelt key is also a missing one: report the spelling, with its "did you mean"
        first = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])
        raise _describe(first).located(src) from None
    if isinstance(spec.scenario, str) and spec.scenario.strip():
        try:
            raw, _ = sc.raw_from(path.parent / spec.scenario)
        except InputError as e:
            raise (e if e.source else InputError(e.message, field="scenario", source=src)) from None
    elif isinstance(spec.scenario, dict):
        raw = spec.scenario
    else:
        raise InputError(
            f"{sc.shown_value(spec.scenario)} is not a scenario; give a scenario file path or an inline "
            "scenario mapping",
            field="scenario",
            source=src,
        )
    loaded = read(raw, source=src, overrides=spec.overrides or [], overrides_field="overrides")
    known, fix = loaded.model.phases, loaded.model.phase_fix
    pub = spec.published
    if not pub.total_restart_secs.value > 0:
        raise InputError(
            f"{pub.total_restart_secs.value:g} is not a restart time; give the published total in seconds, more than 0",
            field="published.total_restart_secs.value",
            source=src,
        )
    figures = [
        _figure(
            "total_restart_secs", pub.total_restart_secs, TOTAL_TOL[spec.role], 0.0, "published.total_restart_secs", src
        )
    ]
    for name, fspec in (pub.phases or {}).items():
        where = f"published.phases.{name}"
        if name not in known:
            raise InputError(
                f"{name!r} is not a phase ndbsim predicts{did_you_mean(name, known)}; {fix}", field=where, source=src
            )
        figures.append(_figure(name, fspec, PHASE_REL_TOL, PHASE_ABS_TOL, where, src))
    prepare(loaded)  # the case's scenario, after its overrides, must itself be valid
    return Case(
        name=path.stem,
        path=path,
        role=spec.role,
        raw=loaded.raw,
        replications=1 if spec.replications is None else spec.replications,
        seed=1 if spec.seed is None else spec.seed,
        figures=figures,
        source=spec.source or {},
    )


def load_case(path: Path) -> Case:
    return case_from_data(sc.read_yaml(path), path)


def load_cases(directory: Path | str = DEFAULT_DIR) -> list[Case]:
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"{str(d)!r} is not a directory of calibration cases; check the path")
    files = sorted(d.glob("*.yaml"))
    if not files:
        raise InputError(
            f"no calibration cases (*.yaml) in {str(d)!r}; add case files (see calibration/README.md) "
            "or point --cases at a directory that has them"
        )
    return [load_case(p) for p in files]


def predict(case: Case, constants: Constants | None = None, replications: int | None = None) -> dict[str, float]:
    """Median total and phases of a case, with ``constants`` in place of the calibrated ones."""
    n = replications or case.replications
    model = case.model
    prepared = model.prepare(case.raw, str(case.path))
    if constants is not None:
        prepared = model.with_constants(prepared, constants)
    result = model.run(prepared, seed=case.seed, replications=n, explained=False)
    return {"total_restart_secs": result.total_restart_secs, **result.phases()}


@dataclass
class Row:
    case: str
    role: str
    figure: str
    published: float
    predicted: float
    allowed: float
    info: bool

    @property
    def error(self) -> float:
        return self.predicted - self.published

    @property
    def rel_error(self) -> float:
        return self.error / self.published if self.published else float("nan")

    @property
    def ok(self) -> bool:
        return self.info or abs(self.error) <= self.allowed + 1e-9


def compare(case: Case, predicted: dict[str, float]) -> list[Row]:
    return [
        Row(case.name, case.role, f.name, f.value, predicted.get(f.name, float("nan")), f.allowed(), f.info)
        for f in case.figures
    ]
