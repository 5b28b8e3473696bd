"""``ndbsim calibrate``: fit the free constants on the ``fit`` cases, deterministically.

The fit starts from the documented defaults in ``Constants`` (never from the last fit), works
in log space with ``scipy.optimize.least_squares``, weighs each residual by its tolerance and
rounds the result to 4 significant figures, so a second run writes the same file. A constant no
fit case moves keeps its documented default.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ndbsim.errors import InputError
from ndbsim.input.profiles import CALIBRATED_FILE, Constants, reload_calibration
from ndbsim.models.registry import Model
from ndbsim.output.io import atomic_write_text, check_output_path
from ndbsim.studies.calibration.cases import DEFAULT_DIR, Case, compare, load_cases, predict
from ndbsim.studies.calibration.fit_progress import Steps
from ndbsim.studies.calibration.restart_rows import (  # the import path other modules use, kept stable
    DELIMITERS,
    IMPORTED_REPLICATIONS,
    NULLS,
    _read_csv,
    case_from_restart_info,
)

__all__ = ["DELIMITERS", "IMPORTED_REPLICATIONS", "NULLS", "_read_csv", "case_from_restart_info"]

FITTED = (
    "restore_row_secs",
    "change_row_secs",
    "redo_byte_secs",
    "index_entry_secs",
    "hyperthread_gain",
    "copy_row_secs",
    "suma_handover_gcps",
)
"""The seven free constants; what each means physically is in ``Constants``' docstrings."""

BOUNDS = {"hyperthread_gain": (0.01, 1.0)}
"""Physical bounds: a second hardware thread adds between nothing and a whole core. Every other
constant may move within ×100 of its documented default."""


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def fit(cases: list[Case], steps: Steps | None = None) -> tuple[Constants, dict[str, Any]]:
    """Least squares over the ``FITTED`` constants on the NDB ``fit`` cases; ``steps`` counts
    each simulation of them (a progress bar)."""
    from ndbsim.extras import require

    require("scipy")
    from scipy.optimize import least_squares

    fit_cases = [c for c in cases if c.role == "fit" and c.model.constants_file is None]
    if not fit_cases:
        raise InputError("no NDB case has role: fit; mark at least one calibration case as fit")
    start = Constants()
    x0 = np.log([getattr(start, n) for n in FITTED])
    lo = np.array([math.log(BOUNDS.get(n, (getattr(start, n) / 100, 0))[0]) for n in FITTED])
    hi = np.array([math.log(BOUNDS[n][1]) if n in BOUNDS else math.log(getattr(start, n) * 100) for n in FITTED])

    def constants_at(x: np.ndarray) -> Constants:
        vals = {f.name: getattr(start, f.name) for f in fields(Constants)}
        vals.update({n: float(math.exp(v)) for n, v in zip(FITTED, x)})
        return Constants(**vals)

    def residuals(x: np.ndarray) -> np.ndarray:
        k = constants_at(x)
        if steps is not None:
            steps.step()
        out: list[float] = []
        for case in fit_cases:
            figures = predict(case, k)
            check_finishes(case, figures)
            out.extend(row.error / row.allowed for row in compare(case, figures) if not row.info)
        return np.array(out)

    sol = least_squares(
        residuals,
        np.clip(x0, lo + 1e-9, hi - 1e-9),
        bounds=(lo, hi),
        method="trf",
        diff_step=1e-3,
        x_scale="jac",
        max_nfev=200,
    )
    x = np.where(_unmoved(sol.jac), np.clip(x0, lo, hi), sol.x)
    fitted = Constants(
        **{
            **{f.name: getattr(start, f.name) for f in fields(Constants)},
            **{n: _round(math.exp(v)) for n, v in zip(FITTED, x)},
        }
    )
    return fitted, residual_report(fit_cases, fitted)


def _unmoved(jac: np.ndarray) -> np.ndarray:
    """The constants no fit case moves (a zero column of the Jacobian at the optimum): the search
    leaves them wherever its steps took them (up to a bound: ``check --cross`` without seed 001
    put copy_row_secs at ×100), so they keep their documented defaults."""
    return np.asarray(np.all(np.abs(jac) < 1e-12, axis=0))


def residual_report(fit_cases: list[Case], constants: Constants) -> dict[str, dict[str, float]]:
    """Each case's residuals with ``constants``: relative errors, or seconds where the figure is 0 s."""
    return {
        case.name: {
            r.label: round(r.rel_error, 4) if r.published else round(r.error, 2)
            for r in compare(case, predict(case, constants))
        }
        for case in fit_cases
    }


def check_finishes(case: Case, figures: dict[str, float]) -> None:
    """A fit case whose restart never finishes has no residual to fit (least_squares would stop
    on a non-finite one): that is the case's input error, named with its file."""
    total = figures.get("total_restart_secs")
    if total is not None and not math.isfinite(total):
        raise InputError(
            f"case {case.name!r}: its restart never finishes (total {total}), e.g. the copy phase cannot "
            "catch up with the workload during the restart; fix its scenario or remove the case",
            source=str(case.path),
        )


def write_calibration(
    constants: Constants, residuals: dict[str, Any], cases: list[Case], path: Path = CALIBRATED_FILE
) -> None:
    doc = {
        "# written by": "ndbsim calibrate; do not edit by hand",
        "shared": {
            "constants": {n: getattr(constants, n) for n in FITTED},
            "fitted_on": sorted(c.name for c in cases if c.role == "fit" and c.model.constants_file is None),
            "residuals": residuals,
        },
    }
    atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    reload_calibration()


@dataclass
class Calibration:
    """A finished fit, not yet written: the NDB constants and residuals, the cases fitted and the
    fits of the models with constants of their own (InnoDB's, when the directory has its cases)."""

    constants: Constants
    ndb_residuals: dict[str, Any]
    cases: list[Case]
    own: list[tuple[Model, dict[str, Any]]] = field(default_factory=list)

    @property
    def residuals(self) -> dict[str, Any]:
        """Every fitted case's residuals, NDB then the models with their own constants (what
        ``ndbsim calibrate`` prints); those models fit the total only."""
        out = dict(self.ndb_residuals)
        for _, fitted in self.own:
            out.update({name: {"total_restart_secs": round(float(v), 4)} for name, v in fitted["residuals"].items()})
        return out


def run_calibration(directory: Path | str = DEFAULT_DIR, extra: Iterable[Case] = ()) -> Calibration:
    """Load and check every case of ``directory`` (with ``extra`` in-memory cases in place of
    files of the same name) and fit; writes nothing."""
    cases = load_cases(directory)
    extra = list(extra)
    if extra:
        names = {c.path.name for c in extra}
        cases = sorted([c for c in cases if c.path.name not in names] + extra, key=lambda c: c.path.name)
    constants, residuals = fit(cases)
    models = {id(c.model): c.model for c in cases if c.model.constants_file is not None}
    own = [(m, m.fit_constants(Path(directory))) for m in models.values()]
    return Calibration(constants, residuals, cases, own)


def save_calibration(result: Calibration, output: Path = CALIBRATED_FILE, innodb_output: Path | None = None) -> None:
    """Write a finished fit: the NDB constants to ``output``; the InnoDB ones to ``innodb_output``
    or, when ``output`` is the package's own file, to the package's InnoDB file."""
    write_calibration(result.constants, result.ndb_residuals, result.cases, output)
    if innodb_output is not None or Path(output) == CALIBRATED_FILE:
        for model, fitted in result.own:
            model.save_constants(fitted, innodb_output)


def calibrate(
    directory: Path | str = DEFAULT_DIR, output: Path = CALIBRATED_FILE, innodb_output: Path | None = None
) -> tuple[Constants, dict]:
    """Fit the NDB profiles' constants (and, when the directory has InnoDB cases, the InnoDB
    model's own two constants, seed 002) and write them, only once every fit has succeeded."""
    check_output_path(output, "output")
    if innodb_output is not None:
        check_output_path(innodb_output, "innodb_output")
    result = run_calibration(directory)
    save_calibration(result, output, innodb_output)
    return result.constants, result.residuals
