"""The predictive interval of an InnoDB recovery predicted by constants fitted without it (``check
--cross``): the same sources as an NDB answer's (``output.interval``), those InnoDB has. No crash
moment (the model is deterministic) and no defaulted input with a declared range (each case states
or assumes every input); the **constants** part is the covariance of ``FREE_CONSTANTS`` from the
fit on the other cases, with each constant's prior range (``input.profiles.priors``); the
**model** part is the error of the other cases, each predicted without itself."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ndbsim.innodb.constants import FREE_CONSTANTS, as_dict, load_constants
from ndbsim.innodb.model import simulate_innodb

Z90 = 1.645
"""The standard normal's 95th percentile: p5–p95 is ±Z90 sd."""

STEP_LOG = 0.05
"""The Jacobian's central-difference step in log space, as the NDB covariance takes it."""


def _total(scenario: dict, constants: dict[str, float], x: np.ndarray) -> float:
    cs = {**constants, **{k: constants[k] * math.exp(v) for k, v in zip(FREE_CONSTANTS, x, strict=True)}}
    return float(simulate_innodb(scenario, constants=cs).total_restart_secs)


def _log_slopes(scenario: dict, constants: dict[str, float]) -> np.ndarray:
    """d ln(total) / d ln(constant) for each free constant, by central differences."""
    out = np.empty(len(FREE_CONSTANTS))
    for j in range(len(FREE_CONSTANTS)):
        step = np.zeros(len(FREE_CONSTANTS))
        step[j] = STEP_LOG
        hi, lo = _total(scenario, constants, step), _total(scenario, constants, -step)
        out[j] = (math.log(hi) - math.log(lo)) / (2 * STEP_LOG)
    return out


def covariance(fit: list[tuple[dict, float, float]], constants: dict[str, float]) -> np.ndarray:
    """The log-space covariance of ``FREE_CONSTANTS`` fitted on ``fit`` (scenario, published,
    tolerance): ``s² (JᵀJ + s² P)⁻¹`` of the residuals weighted by their tolerances, as the NDB
    covariance; with no degree of freedom left (two cases, two constants) ``s`` is 1, each
    published figure taken as known to its tolerance at one sd."""
    from ndbsim.input.profiles.priors import prior_sd

    at = np.zeros(len(FREE_CONSTANTS))
    jac = np.array([_log_slopes(sc, constants) * _total(sc, constants, at) / pub / tol for sc, pub, tol in fit])
    r = np.array([(_total(sc, constants, at) - pub) / pub / tol for sc, pub, tol in fit])
    dof = len(r) - len(FREE_CONSTANTS)
    s2 = float(r @ r) / dof if dof > 0 else 1.0
    prior = np.diag([1.0 / prior_sd(k) ** 2 for k in FREE_CONSTANTS])
    return np.asarray(s2 * np.linalg.inv(jac.T @ jac + s2 * prior))


def _band(p50: float, sd: float) -> dict[str, float]:
    return {"p5": p50 * math.exp(-Z90 * sd), "p50": p50, "p95": p50 * math.exp(Z90 * sd), "sd_log": sd}


def held_out_interval(
    scenario: dict, fitted: dict[str, float], fit: list[tuple[dict, float, float]], model: tuple[float, str]
) -> dict[str, Any]:
    """The interval of ``scenario``'s total with ``fitted`` (the free constants fitted on ``fit``)."""
    constants = {**as_dict(load_constants(use_calibrated=False)), **fitted}
    p50 = _total(scenario, constants, np.zeros(len(FREE_CONSTANTS)))
    g = _log_slopes(scenario, constants)
    c_sd = math.sqrt(max(float(g @ covariance(fit, constants) @ g), 0.0))
    m_sd, m_from = model
    sources = {
        "crash_moment": (0.0, "none: the InnoDB model is deterministic"),
        "constants": (
            c_sd,
            f"the fit's covariance of {', '.join(FREE_CONSTANTS)} on {len(fit)} case(s), with their prior ranges",
        ),
        "defaults": (0.0, "none with a declared range"),
        "model": (m_sd, m_from),
    }
    var = sum(sd * sd for sd, _ in sources.values())
    out: dict[str, Any] = dict(_band(p50, math.sqrt(var)))
    out["sources"] = {
        k: {**_band(p50, sd), "share": sd * sd / var if var else 0.0, "from": text} for k, (sd, text) in sources.items()
    }
    return out
