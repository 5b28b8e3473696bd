"""Your restarts calibrate your cluster: fit a scenario's host figures (core speed, disks,
latency, network, memory touch rate) to that cluster's own restart_info rows, node by node,
leaving the packaged model constants alone, and write them into the scenario's ``host:``.

A user's restart_info says how fast *their* hosts are, not how NDB works: the model constants
are fitted on the published cases (``calibrate.fit``); this fit moves only the figures of the
scenario's host section that the rows are sensitive to.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ndbsim.errors import InputError
from ndbsim.input import scenario as sc
from ndbsim.input.safe_load import load_yaml
from ndbsim.output.io import atomic_write_text
from ndbsim.studies.calibration.calibrate import check_finishes
from ndbsim.studies.calibration.cases import Case, compare, predict
from ndbsim.studies.calibration.fit_progress import Steps

HOST_FIGURES = ("core_speed", "disk_read", "disk_write", "disk_latency", "network", "memory_touch_rate")
"""The host figures a restart's phases can tell (``scenario.Host``); cores and hardware threads
are counts the user knows, not fitted."""

CORE_SPEED_MAX = 100.0
"""``host.core_speed``'s own upper bound (``scenario.Host``)."""

SPAN = 100.0
"""Each figure may move within ×/÷100 of the scenario's value: wide enough for any real host
(a 10 ms HDD against a 0.1 ms SSD), narrow enough to keep a figure the rows hardly tell finite."""

PROBE = 1.25
"""The factor a figure is moved by to see whether the rows are sensitive to it."""

SENSITIVE = 0.1
"""A figure is fitted when moving it by ``PROBE`` moves some compared figure by at least this
share of its tolerance; the others keep the scenario's values (the rows cannot tell them)."""

PRIOR = 0.05
"""Weight, per unit of log change, of a residual that holds each fitted figure near the
scenario's value: negligible against one tolerance, it settles the figures the rows tell only
together (disk read against core speed in a restore) at the least change."""

MAX_STEPS = 25
"""Least-squares evaluations at most (``max_nfev``); each evaluation's Jacobian simulates the case
once more per fitted figure. The rolling reproduction of the tests converges in 39 simulations."""

DIFF_STEP = 0.05
"""The step of the finite differences, as a log change (5%): larger than the simulation's
granularity (whole fragments, LCP rounds), small against a figure's tolerance."""


def host_values(raw: dict[str, Any]) -> dict[str, float]:
    """The scenario's host figures as numbers (bytes/s, seconds, a speed factor)."""
    host = sc.scenario_from_dict(sc.copy_raw(raw)).host
    return {name: float(getattr(host, name)) for name in HOST_FIGURES}


def _rate_text(x: float) -> str:
    for unit, size in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if x >= size:
            return f"{x / size:.4g}{unit}/s"
    return f"{x:.4g}"


def host_text(name: str, x: float) -> Any:
    """A fitted figure as a scenario writes it, to 4 significant figures."""
    if name == "network":
        return f"{x * 8 / 1e9:.4g}Gbit/s"
    if name in ("disk_read", "disk_write", "memory_touch_rate"):
        return _rate_text(x)
    if name == "disk_latency":  # as the host section's docstring gives it: 0.1 ms, 10ms
        return f"{x * 1000:.4g}ms"
    return float(f"{x:.4g}")


def with_host(raw: dict[str, Any], values: dict[str, float]) -> dict[str, Any]:
    """A copy of ``raw`` with the host figures ``values`` written as a scenario writes them."""
    out = sc.copy_raw(raw)
    host = dict(out.get("host") or {})
    host.update({n: host_text(n, x) for n, x in values.items()})
    out["host"] = host
    return out


@dataclass
class HostFit:
    """A finished host fit: the scenario before and after, the figures moved and those left."""

    before: dict[str, float]
    after: dict[str, float]
    fitted: tuple[str, ...]
    kept: tuple[str, ...]
    raw: dict[str, Any]
    """The case's scenario with the fitted host figures."""
    steps: int


def _residuals(case: Case, raw: dict[str, Any], steps: Steps) -> np.ndarray:
    steps.step()
    figures = predict(case, raw=raw)
    check_finishes(case, figures)
    return np.array([r.error / r.allowed for r in compare(case, figures) if not r.info])


def _sensitive(case: Case, raw: dict[str, Any], start: dict[str, float], steps: Steps) -> tuple[str, ...]:
    base = _residuals(case, raw, steps)
    out = []
    for name in HOST_FIGURES:
        moved = min(start[name] * PROBE, CORE_SPEED_MAX) if name == "core_speed" else start[name] * PROBE
        probe = _residuals(case, with_host(raw, {name: moved}), steps)
        if np.max(np.abs(probe - base)) >= SENSITIVE:
            out.append(name)
    return tuple(out)


class LogProblem:
    """A host fit as least squares in log space: ``x`` is each figure's log change from ``start``
    (0 at the start, equal steps for all), within a factor ``SPAN`` (core_speed at most
    ``CORE_SPEED_MAX``); each residual vector computed once (``cache``), the Jacobian by forward
    differences of ``DIFF_STEP`` (inward at an upper bound). ``calibrate``'s fit and eta's refit
    solve it."""

    def __init__(self, case: Case, start: dict[str, float], names: tuple[str, ...], steps: Steps) -> None:
        self.case, self.names, self.steps = case, names, steps
        self.base = np.array([start[n] for n in names])
        self.lo = np.full(len(names), -math.log(SPAN))
        hi = [math.log(min(SPAN, CORE_SPEED_MAX / start[n])) if n == "core_speed" else math.log(SPAN) for n in names]
        self.hi = np.maximum(np.array(hi), 1e-6)
        self.cache: dict[bytes, np.ndarray] = {}

    def values_at(self, x: np.ndarray) -> dict[str, float]:
        return {n: float(v) for n, v in zip(self.names, self.base * np.exp(x))}

    def residuals(self, x: np.ndarray) -> np.ndarray:
        key = np.asarray(x, dtype=float).tobytes()
        if key not in self.cache:
            raw = with_host(self.case.raw, self.values_at(x))
            self.cache[key] = np.concatenate([_residuals(self.case, raw, self.steps), PRIOR * x])
        return self.cache[key]

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        r0 = self.residuals(x)
        cols = []
        for i in range(len(self.names)):
            h = DIFF_STEP if x[i] + DIFF_STEP <= self.hi[i] else -DIFF_STEP
            moved = x.copy()
            moved[i] += h
            cols.append((self.residuals(moved) - r0) / h)
        return np.array(cols).T


def fit_host(case: Case, steps: Steps) -> HostFit:
    """Least squares in log space over the host figures ``case``'s rows are sensitive to."""
    from ndbsim.extras import require

    require("scipy")
    from scipy.optimize import least_squares

    raw = case.raw
    start = host_values(raw)
    names = _sensitive(case, raw, start, steps)
    if not names:
        return HostFit(start, start, (), HOST_FIGURES, raw, steps.count)
    problem = LogProblem(case, start, names, steps)
    sol = least_squares(
        problem.residuals,
        np.zeros(len(names)),
        jac=problem.jacobian,
        bounds=(problem.lo, problem.hi),
        method="trf",
        max_nfev=MAX_STEPS,
        xtol=1e-3,
        ftol=1e-4,
    )
    fitted_raw = with_host(raw, problem.values_at(sol.x))
    after = host_values(fitted_raw)
    kept = tuple(n for n in HOST_FIGURES if n not in names)
    return HostFit(start, after, names, kept, fitted_raw, steps.count)


def format_host(result: HostFit) -> str:
    """The host figures before → after, the fitted ones first."""
    lines = [f"{'host figure':18s} {'before':>14s} {'after':>14s}"]
    for name in (*result.fitted, *result.kept):
        b, a = host_text(name, result.before[name]), host_text(name, result.after[name])
        note = (
            f"  ({100 * (result.after[name] / result.before[name] - 1):+.0f}%)"
            if name in result.fitted
            else ("  (kept: the rows do not tell it)")
        )
        lines.append(f"{name:18s} {b!s:>14s} {a!s:>14s}{note}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# Writing the fitted figures into the user's scenario file, keeping its comments

_TOP = re.compile(r"^[A-Za-z_]")
"""A top-level key's line: where the ``host:`` block ends."""


def _host_block(lines: list[str]) -> tuple[int, int] | None:
    """The [start, end) lines of the top-level ``host:`` block, or None."""
    start = next((i for i, ln in enumerate(lines) if re.match(r"^host\s*:", ln)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _TOP.match(lines[i])), len(lines))
    return start, end


def _edited(text: str, values: dict[str, Any]) -> str:
    """``text`` with each of ``values`` set in its ``host:`` block, every other line kept."""
    lines = text.splitlines()
    block = _host_block(lines)
    if block is None:
        return text.rstrip("\n") + "\nhost:\n" + "".join(f"  {k}: {v}\n" for k, v in values.items())
    start, end = block
    if re.match(r"^host\s*:\s*\S", lines[start]) and not lines[start].split(":", 1)[1].strip().startswith("#"):
        host = dict(load_yaml(lines[start].split(":", 1)[1]) or {})
        host.update(values)
        inner = ", ".join(f"{k}: {v}" for k, v in host.items())
        lines[start] = f"host: {{{inner}}}"
        return "\n".join(lines) + "\n"
    for key, value in values.items():
        pattern = re.compile(rf"^(\s+){key}\s*:\s*[^#]*?(\s*#.*)?$")
        hit = next((i for i in range(start + 1, end) if pattern.match(lines[i])), None)
        if hit is None:
            lines.insert(start + 1, f"  {key}: {value}   # fitted by ndbsim calibrate")
            end += 1
        else:
            m = pattern.match(lines[hit])
            assert m is not None
            lines[hit] = f"{m.group(1)}{key}: {value}{m.group(2) or ''}"
    return "\n".join(lines) + "\n"


def write_host(scenario: Path, values: dict[str, float], output: Path, record: dict[str, Any] | None = None) -> None:
    """Write the scenario at ``scenario`` with the host figures ``values`` to ``output``: the
    fitted lines edited in place (comments kept); when the file's form does not allow that, the
    whole scenario rewritten. ``record`` (``fit_record.fit_record``) becomes its ``calibrated:``
    section: the fit's error on the rows, which later runs show as their accuracy band."""
    from ndbsim.studies.calibration.fit_record import SECTION, with_section

    text = Path(scenario).read_text(encoding="utf-8")
    wanted = with_host(sc.read_yaml(scenario), values)
    texts = {k: host_text(k, x) for k, x in values.items()}
    edited = _edited(text, texts)
    if record is not None:
        wanted[SECTION] = record
        edited = with_section(edited, record)
    try:
        same = load_yaml(edited) == wanted
    except InputError:
        same = False
    if not same:
        import yaml

        edited = yaml.safe_dump(wanted, sort_keys=False, allow_unicode=True)
    atomic_write_text(output, edited, "--output")
