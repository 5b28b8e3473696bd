"""``ndbsim calibrate``: fit the free constants on the ``fit`` cases, deterministically.

The fit starts from the documented defaults in ``Constants`` (never from the last fit), works
in log space with ``scipy.optimize.least_squares``, weighs each residual by its tolerance and
rounds the result to 4 significant figures, so a second run writes the same file.
"""

from __future__ import annotations

import csv
import math
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ndbsim.calibration import DEFAULT_DIR, Case, compare, load_cases, predict
from ndbsim.errors import InputError
from ndbsim.io import atomic_write_text
from ndbsim.profiles import CALIBRATED_FILE, Constants, reload_calibration
from ndbsim.restart_info import COLUMNS

FITTED = ("memory_touch_rate", "restore_row_secs", "redo_byte_secs", "index_entry_secs", "hyperthread_gain",
          "copy_row_secs", "suma_handover_gcps")
"""The seven free constants; what each means physically is in ``Constants``' docstrings."""

BOUNDS = {"hyperthread_gain": (0.01, 1.0)}
"""Physical bounds: a second hardware thread adds between nothing and a whole core. Every other
constant may move within ×100 of its documented default."""


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def fit(cases: list[Case]) -> tuple[Constants, dict[str, Any]]:
    from scipy.optimize import least_squares

    fit_cases = [c for c in cases if c.role == "fit" and not c.innodb]
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
        out = []
        for case in fit_cases:
            for row in compare(case, predict(case, k)):
                if not row.info:
                    out.append(row.error / row.allowed)
        return np.array(out)

    sol = least_squares(residuals, np.clip(x0, lo + 1e-9, hi - 1e-9), bounds=(lo, hi), method="trf",
                        diff_step=1e-3, x_scale="jac", max_nfev=200)
    fitted = Constants(**{**{f.name: getattr(start, f.name) for f in fields(Constants)},
                          **{n: _round(math.exp(v)) for n, v in zip(FITTED, sol.x)}})
    report = {}
    for case in fit_cases:
        report[case.name] = {r.figure: round(r.rel_error, 4) if r.published else round(r.error, 2)
                             for r in compare(case, predict(case, fitted))}
    return fitted, report


def write_calibration(constants: Constants, residuals: dict[str, Any], cases: list[Case],
                      path: Path = CALIBRATED_FILE) -> None:
    doc = {
        "# written by": "ndbsim calibrate; do not edit by hand",
        "shared": {
            "constants": {n: getattr(constants, n) for n in FITTED},
            "fitted_on": sorted(c.name for c in cases if c.role == "fit" and not c.innodb),
            "residuals": residuals,
        },
    }
    atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    reload_calibration()


def calibrate(directory: Path | str = DEFAULT_DIR, output: Path = CALIBRATED_FILE,
              innodb_output: Path | None = None) -> tuple[Constants, dict]:
    """Fit the NDB profiles' constants (and, when the directory has InnoDB cases, the InnoDB
    model's own two constants, seed 002) and write them."""
    cases = load_cases(directory)
    constants, residuals = fit(cases)
    write_calibration(constants, residuals, cases, output)
    if any(c.innodb for c in cases):
        from ndbsim.innodb import calibrate as fit_innodb
        from ndbsim.innodb import load_cases as innodb_cases
        from ndbsim.innodb import save_calibrated

        result = fit_innodb(innodb_cases(directory))
        if innodb_output is not None or Path(output) == CALIBRATED_FILE:
            save_calibrated(result, innodb_output)
        residuals = {**residuals, **{name: {"total_restart_secs": round(float(v), 4)}
                                     for name, v in result["residuals"].items()}}
    return constants, residuals


# ---------------------------------------------------------------------------------------
# Import a user's own restart from ndbinfo.restart_info

def case_from_restart_info(csv_path: Path, scenario_path: Path, node_id: int | None = None) -> dict[str, Any]:
    """A ``fit`` case from a CSV export of ``SELECT * FROM ndbinfo.restart_info``."""
    if not Path(csv_path).exists():
        raise InputError(f"file not found: {str(csv_path)!r}; check the path", field="--restart-info")
    with open(csv_path, newline="", encoding="utf-8") as f:
        sample = f.read(4096)
        f.seek(0)
        dialect = csv.Sniffer().sniff(sample, delimiters=",\t;") if sample.strip() else csv.excel
        rows = list(csv.DictReader(f, dialect=dialect))
    if not rows:
        raise InputError("no rows; export SELECT * FROM ndbinfo.restart_info with a header line",
                         source=str(csv_path))
    missing = [c for c in ("node_id", "total_restart_secs") if c not in rows[0]]
    if missing:
        raise InputError(f"column {missing[0]!r} is missing; export all restart_info columns with a header",
                         source=str(csv_path))
    if node_id is not None:
        rows = [r for r in rows if str(r["node_id"]).strip() == str(node_id)]
        if not rows:
            raise InputError(f"no row for node {node_id}", field="--node", source=str(csv_path))
    row = max(rows, key=lambda r: float(r["total_restart_secs"] or 0))

    def num(col: str) -> float:
        try:
            return float(row[col])
        except (TypeError, ValueError):
            raise InputError(f"{row.get(col)!r} is not a number of seconds", field=col,
                             source=str(csv_path)) from None

    phases = {c: {"value": num(c)} for c in COLUMNS if c in row and row[c] not in ("", None)}
    return {
        "source": {"restart_info": str(csv_path), "node_id": int(float(row["node_id"]))},
        "role": "fit",
        "scenario": str(Path(scenario_path).resolve()),
        "stated": {"origin": "ndbinfo.restart_info export"},
        "assumed": {},
        "published": {"total_restart_secs": {"value": num("total_restart_secs")}, "phases": phases},
    }
