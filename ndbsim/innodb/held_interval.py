"""The predictive interval of an InnoDB recovery: the same sources as an NDB answer's
(``output.interval``), those InnoDB has. No crash moment (a recovery starts from the checkpoint
LSN wherever the crash lands; a run's replications spread only by the redo rate's ``jitter``,
carried in its place) and no defaulted input with a declared range (``default_ranges`` declares
NDB inputs only); the **constants** part is the covariance of ``FREE_CONSTANTS`` from the fit on
the cases, with each constant's prior range (``input.profiles.priors``); the **model** part is
the error of the cases, each predicted without itself, net of its constants' part
(``model_part``). ``held_out_interval`` is ``check --cross``'s (constants fitted without the
case); ``run_interval`` a run's, with the packaged constants and the held-out errors stored in
``held_out.yaml`` (``python -m ndbsim.innodb.held_interval --write|--check``)."""

from __future__ import annotations

import math
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ndbsim.innodb.constants import FREE_CONSTANTS, as_dict, load_constants
from ndbsim.innodb.model import simulate_innodb

if TYPE_CHECKING:
    from ndbsim.innodb.model import InnodbResult

HELD_OUT_FILE = Path(__file__).with_name("held_out.yaml")
"""``held_out.yaml`` beside this file: each ``calibration/innodb-*.yaml`` case predicted by the
constants fitted without it (``fit.held_out``), its log error and its constants' part, written by
``--write``: a run reads the model's error here rather than refitting (which needs scipy)."""

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


def _assemble(p50: float, sources: dict[str, tuple[float, str]]) -> dict[str, Any]:
    """The interval around ``p50`` from each source's log sd, in ``combine``'s shape."""
    from ndbsim.output.interval.sources import _band

    var = sum(sd * sd for sd, _ in sources.values())
    out: dict[str, Any] = dict(_band(p50, math.sqrt(var)))
    out["stops_at"] = []
    out["replications_stopped"] = 0.0
    out["sources"] = {
        k: {**_band(p50, sd), "share": sd * sd / var if var else 0.0, "from": text} for k, (sd, text) in sources.items()
    }
    return out


def _constants_text(n: int) -> str:
    return f"the fit's covariance of {', '.join(FREE_CONSTANTS)} on {n} case(s), with their prior ranges"


NO_DEFAULTS = "inputs left at defaults: none with a declared range"


def held_out_interval(
    scenario: dict, fitted: dict[str, float], fit: list[tuple[dict, float, float]], model: tuple[float, str]
) -> dict[str, Any]:
    """The interval of ``scenario``'s total with ``fitted`` (the free constants fitted on ``fit``)."""
    constants = {**as_dict(load_constants(use_calibrated=False)), **fitted}
    p50 = _total(scenario, constants, np.zeros(len(FREE_CONSTANTS)))
    g = _log_slopes(scenario, constants)
    c_sd = math.sqrt(max(float(g @ covariance(fit, constants) @ g), 0.0))
    sources = {
        "crash_moment": (0.0, "none: the InnoDB model is deterministic"),
        "constants": (c_sd, _constants_text(len(fit))),
        "defaults": (0.0, NO_DEFAULTS),
        "model": model,
    }
    return _assemble(p50, sources)


def with_intervals(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leave-one-out on ``cases`` (``fit.held_out``), each record with its predictive interval: the
    constants' covariance from the fit on the other cases, the model's error from the other cases
    held out in turn, net of their constants' part (``model_part``)."""
    from ndbsim.innodb.fit import _case_scenario, held_out
    from ndbsim.output.interval.sources import with_model

    records = held_out(cases)
    for held, record in zip(cases, records, strict=True):
        fit = [
            (
                _case_scenario(c),
                float(c["published"]["total_restart_secs"]["value"]),
                float(c["published"]["total_restart_secs"].get("tolerance", 0.15)),
            )
            for c in cases
            if c is not held
        ]
        record["interval"] = held_out_interval(_case_scenario(held), record["constants"], fit, (0.0, ""))
    for record in records:
        record["interval"] = with_model(record["interval"], model_part(records, record))
    return records


def model_part(records: list[dict[str, Any]], held: dict[str, Any] | None = None) -> tuple[float, str]:
    """The model's log sd from held-out ``records`` (``fit.held_out``'s, each with its interval's
    constants' part): the root mean square of their log errors net of that part, leaving out
    ``held`` (the case the interval is for, in ``check --cross``)."""
    nets = []
    for r in records:
        if r is not held and r["predicted"] > 0 and r["published"] > 0:
            e = math.log(r["predicted"] / r["published"])
            nets.append(max(e * e - _constants_sd(r) ** 2, 0.0))
    m_sd = math.sqrt(sum(nets) / len(nets)) if nets else 0.0
    text = (
        f"the InnoDB model's error on {len(nets)}{' other' if held is not None else ''} case(s), each predicted "
        "without itself, net of its constants' part"
    )
    return m_sd, text


def _constants_sd(record: dict[str, Any]) -> float:
    if "constants_sd_log" in record:
        return float(record["constants_sd_log"])
    return float(record["interval"]["sources"]["constants"]["sd_log"])


@cache
def held_out_records() -> list[dict[str, Any]]:
    """The packaged held-out cases (``HELD_OUT_FILE``)."""
    from ndbsim.input.safe_load import load_yaml

    if not HELD_OUT_FILE.exists():
        return []
    return list((load_yaml(HELD_OUT_FILE.read_text(encoding="utf-8")) or {}).get("cases") or [])


@cache
def _fit_cases() -> tuple[tuple[dict, float, float], ...]:
    from ndbsim.innodb.fit import _case_scenario, load_cases

    return tuple(
        (
            _case_scenario(c),
            float(c["published"]["total_restart_secs"]["value"]),
            float(c["published"]["total_restart_secs"].get("tolerance", 0.15)),
        )
        for c in load_cases()
        if c.get("role", "fit") == "fit"
    )


def run_interval(result: InnodbResult) -> dict[str, Any]:
    """The predictive interval of a run's downtime: around its replications' median, the spread of
    the redo rate's jitter, the packaged constants' covariance on the calibration cases and the
    model's error on them held out (``held_out.yaml``)."""
    from ndbsim.output.interval.predictive import quantile
    from ndbsim.output.interval.sources import sd_of

    totals = [t for t in result.totals if math.isfinite(t)]
    p50 = quantile(totals, 0.5)
    if not (math.isfinite(p50) and p50 > 0):
        return {"p5": p50, "p50": p50, "p95": p50, "sources": {}}
    jitter = sd_of(quantile(totals, 0.05), quantile(totals, 0.95))
    constants = {**as_dict(load_constants(use_calibrated=False)), **result.constants}
    g = _log_slopes(result.scenario, constants)
    c_sd = math.sqrt(max(float(g @ _covariance(constants_key(constants)) @ g), 0.0))
    sources = {
        "crash_moment": (
            jitter,
            f"none in InnoDB (recovery starts at the checkpoint LSN); {len(result.totals)} replication(s) "
            "over the redo rate's jitter in its place",
        ),
        "constants": (c_sd, _constants_text(len(_fit_cases()))),
        "defaults": (0.0, NO_DEFAULTS + _defaulted_text(result.explained)),
        "model": model_part(held_out_records()),
    }
    return _assemble(p50, sources)


def _defaulted_text(explained: dict[str, Any]) -> str:
    keys = [str(d["key"]) for d in explained.get("defaulted") or []]
    return f" (defaulted without one: {', '.join(keys)})" if keys else ""


def constants_key(constants: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(constants.items()))


@cache
def _covariance(key: tuple[tuple[str, float], ...]) -> np.ndarray:
    return covariance(list(_fit_cases()), dict(key))


def held_out_text() -> str:
    """``HELD_OUT_FILE``'s text from a fresh leave-one-out on the calibration cases."""
    import yaml

    from ndbsim.innodb.fit import load_cases

    cases = [
        {
            "case": r["case"],
            "published": float(f"{r['published']:.6g}"),
            "predicted": float(f"{r['predicted']:.6g}"),
            "constants_sd_log": float(f"{_constants_sd(r):.6g}"),
        }
        for r in with_intervals(load_cases())
    ]
    head = (
        "# Written by python -m ndbsim.innodb.held_interval --write: each calibration/innodb-*.yaml case\n"
        "# predicted by the constants fitted without it, and its constants' part (log sd).\n"
    )
    return head + yaml.safe_dump({"cases": cases}, sort_keys=False)


def main(argv: list[str]) -> int:
    text = held_out_text()
    if "--write" in argv:
        HELD_OUT_FILE.write_text(text, encoding="utf-8")
        return 0
    same = HELD_OUT_FILE.exists() and HELD_OUT_FILE.read_text(encoding="utf-8") == text
    if not same:
        print(f"{HELD_OUT_FILE} is stale: run python -m ndbsim.innodb.held_interval --write", file=sys.stderr)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
