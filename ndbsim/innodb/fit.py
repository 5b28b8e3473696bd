"""Fitting the InnoDB model's free constants (``FREE_CONSTANTS``) to the published recovery
times of seed 002 (``calibration/innodb-*.yaml``), and storing them in ``calibrated.yaml``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ndbsim.innodb.constants import FREE_CONSTANTS, as_dict, load_constants
from ndbsim.innodb.model import simulate_innodb
from ndbsim.innodb.scenario import load_raw
from ndbsim.paths import CASES_DIR


def load_cases(directory: str | Path | None = None) -> list[dict]:
    """The ``calibration/innodb-*.yaml`` cases, each with ``path`` and ``name`` filled in."""
    from ndbsim.input.safe_load import read_yaml_file

    d = Path(directory) if directory else CASES_DIR
    out = []
    for p in sorted(d.glob("innodb-*.yaml")):
        case = read_yaml_file(p, "calibration case")
        case.setdefault("path", str(p))
        case.setdefault("name", p.stem)
        out.append(case)
    return out


def _case_scenario(case: dict) -> dict:
    sc = case["scenario"]
    if isinstance(sc, dict):
        return sc
    base = Path(case.get("path") or case.get("file") or CASES_DIR / "x.yaml").parent
    p = Path(sc)
    return load_raw(p if p.is_absolute() else base / p)


def _case_name(case: dict) -> str:
    if case.get("name"):
        return str(case["name"])
    if case.get("path"):
        return Path(case["path"]).stem
    return Path(str(case["scenario"])).stem


def calibrate(cases: list[dict]) -> dict:
    """Fit ``FREE_CONSTANTS`` (in log space, least squares on relative errors) to the cases whose
    role is ``fit``; report relative errors of every case with the fitted values."""
    from ndbsim.extras import require

    require("scipy")
    from scipy.optimize import least_squares

    defaults = as_dict(load_constants(use_calibrated=False))
    fit = [c for c in cases if c.get("role", "fit") == "fit"] or list(cases)
    scen = {id(c): _case_scenario(c) for c in cases}

    def consts(x: np.ndarray) -> dict[str, float]:
        # every constant given explicitly: the stored calibrated.yaml must not leak into the fit
        return {**defaults, **{k: float(math.exp(v)) for k, v in zip(FREE_CONSTANTS, x, strict=True)}}

    def rel(case: dict, cs: dict[str, float]) -> float:
        pub = float(case["published"]["total_restart_secs"]["value"])
        pred = simulate_innodb(scen[id(case)], constants=cs).total_restart_secs
        return (pred - pub) / pub

    def resid(x: np.ndarray) -> np.ndarray:
        cs = consts(x)
        return np.array([rel(c, cs) for c in fit])

    x0 = np.log([defaults[k] for k in FREE_CONSTANTS])
    sol = least_squares(resid, x0, method="trf", x_scale=1.0, diff_step=1e-6, xtol=1e-12, ftol=1e-12)
    fitted = consts(sol.x)
    return {
        "constants": {k: fitted[k] for k in FREE_CONSTANTS},
        "residuals": {_case_name(c): rel(c, fitted) for c in cases},
        "fitted_on": [_case_name(c) for c in fit],
    }


def save_calibrated(result: dict, path: Path | None = None) -> None:
    import yaml

    from ndbsim.innodb.constants import CALIBRATED

    text = (
        "# Fitted by ndbsim.innodb.calibrate on calibration/innodb-*.yaml (role: fit).\n"
        "# Residuals are (predicted - published) / published with these constants.\n"
    )
    text += yaml.safe_dump(
        {
            "constants": {k: float(f"{v:.6g}") for k, v in result["constants"].items()},
            "fitted_on": result.get("fitted_on", []),
            "residuals": {k: round(float(v), 4) for k, v in result["residuals"].items()},
        },
        sort_keys=False,
    )
    from ndbsim.output.io import atomic_write_text

    atomic_write_text(path or CALIBRATED, text)


def held_out(cases: list[dict]) -> list[dict]:
    """Leave-one-out: for each case, ``FREE_CONSTANTS`` fitted on the other cases only, and the
    case predicted with them; each record gives the case, its published and held-out predicted
    total, the relative error and the constants it was predicted with (``held_interval.with_intervals``
    adds each one's predictive interval)."""
    out = []
    for held in cases:
        rest = [{**c, "role": "fit"} for c in cases if c is not held]
        fitted = calibrate(rest)
        constants = {**as_dict(load_constants(use_calibrated=False)), **fitted["constants"]}
        published = float(held["published"]["total_restart_secs"]["value"])
        predicted = simulate_innodb(_case_scenario(held), constants=constants).total_restart_secs
        out.append(
            {
                "case": _case_name(held),
                "published": published,
                "predicted": predicted,
                "error": (predicted - published) / published,
                "tolerance": float(held["published"]["total_restart_secs"].get("tolerance", 0.15)),
                "fitted_on": fitted["fitted_on"],
                "constants": fitted["constants"],
            }
        )
    return out
