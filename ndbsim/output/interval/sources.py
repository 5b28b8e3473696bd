"""The predictive interval of an answer: the range its true value is expected in, from four
sources taken as independent and combined in log space (a duration's error is a factor):

- **crash moment**: the replications' spread over where in the LCP cycle the crash lands;
- **constants**: the free constants' covariance from the fit itself, each constant's prior the
  physical range of its cost (``input/data/constants_uncertainty.yaml``,
  ``studies.uncertainty.covariance`` and ``priors``), carried to the
  total by each constant's phase: a constant scales its phase's term (``CONSTANT_PHASES``), so
  ``d ln(total) / d ln(k)`` is the share of the total that phase holds;
- **defaults**: the inputs the user left at ndbsim's defaults, each over a range fixed beforehand in
  ``input/data/default_ranges.yaml`` (with the phases it moves and why), carried the same way;
- **model**: the model's error on published restarts it was not fitted on: the validation cases
  (``input/data/accuracy.yaml``) and each fit case predicted by constants refitted without its
  family (``input/data/held_out_errors.yaml``); for a family with no published restart, the error
  of every published total predicted without its own family's restarts (leave-one-family-out).

No source adds a simulation: the per-phase decomposition of the run already made is the
sensitivity (a few microseconds beside the run). The price is linearity: a constant that moves a
phase past a threshold (a REDO log that stops fitting) moves the total more than its share says.
Each source's log sd is ``ln(p95 / p5) / (2 × 1.645)`` of a range read as its p5–p95; the total's
is the root of the sum of squares around the crash moment's median.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from ndbsim.input.profiles.lookup import profile_for
from ndbsim.input.safe_load import load_yaml
from ndbsim.output.accuracy import TOTAL, published_errors
from ndbsim.paths import CONSTANTS_UNCERTAINTY_FILE, DEFAULT_RANGES_FILE, HELD_OUT_ERRORS_FILE

Z90 = 1.645
"""The standard normal's 95th percentile: p5–p95 is ±Z90 sd."""

RESTORE, REDO, UNDO = "secs_restore_fragments", "secs_exec_redo_log", "secs_undo_disk_data"
INDEX, COPY, SUMA = "secs_index_rebuild", "secs_to_synchronize_starting_node", "secs_wait_subscription_handover"
CPU_PHASES = (RESTORE, REDO, INDEX)

CONSTANT_PHASES: dict[str, dict[str, float]] = {
    "restore_row_secs": {RESTORE: 1.0},
    "change_row_secs": {RESTORE: 0.5},
    "redo_byte_secs": {REDO: 1.0, UNDO: 1.0},
    "index_entry_secs": {INDEX: 1.0},
    "copy_row_secs": {COPY: 1.0},
    "suma_handover_gcps": {SUMA: 1.0},
}
"""Each constant's phases and its elasticity there: the per-row, per-byte and per-entry costs are
the work terms of ``engine/restart/local_recovery.py`` (restore, REDO, UNDO, index rebuild),
``engine/restart/copy.py`` (the copy) and ``engine/restart/end.py`` (the handover in GCPs).
``change_row_secs`` prices the CHANGE rows of a partial LCP, about half the rows applied at
restore (seed 003, 7.6); a full LCP has none. ``hyperthread_gain`` divides the CPU phases by the
cores' equivalent (``input.threads.core_equivalents``): elasticity ``-g/(1+g)`` with two threads
a core, computed in ``_constant_elasticities``."""

SHOWN_SHARE = 0.1
"""The table names where a source comes from when it holds at least this share of the variance."""


@cache
def constants_uncertainty() -> dict[str, Any]:
    if not CONSTANTS_UNCERTAINTY_FILE.exists():
        return {}
    return dict(load_yaml(CONSTANTS_UNCERTAINTY_FILE.read_text(encoding="utf-8")) or {})


@cache
def default_ranges() -> dict[str, dict[str, Any]]:
    data = load_yaml(DEFAULT_RANGES_FILE.read_text(encoding="utf-8")) or {}
    return {str(k): dict(v) for k, v in (data.get("inputs") or {}).items()}


def sd_of(lo: float, hi: float) -> float:
    """The log sd of a range read as p5–p95 (factors or values)."""
    return math.log(hi / lo) / (2 * Z90) if lo > 0 and hi > 0 else 0.0


def _elasticity(shares: dict[str, float], phases: dict[str, float]) -> float:
    return sum(shares.get(p, 0.0) * e for p, e in phases.items())


def _constant_elasticities(
    shares: dict[str, float], scenario: dict[str, Any], partial: bool, data: dict[str, Any]
) -> list[float]:
    names = list((data.get("constants") or {}).keys())
    host = scenario.get("host") or {}
    out = []
    for n in names:
        if n == "hyperthread_gain":
            g = float(data["constants"][n]["value"])
            extra = max(int(host.get("threads_per_core", 2)) - 1, 0)
            e = -g * extra / (1 + g * extra)
            out.append(_elasticity(shares, dict.fromkeys(CPU_PHASES, e)))
        elif n == "change_row_secs" and not partial:
            out.append(0.0)
        else:
            out.append(_elasticity(shares, CONSTANT_PHASES.get(n, {})))
    return out


def constants_sd(
    shares: dict[str, float], scenario: dict[str, Any], partial: bool = True, data: dict[str, Any] | None = None
) -> float:
    """The total's log sd from the constants' covariance (``data``: the packaged one unless given),
    through their phases' shares."""
    data = constants_uncertainty() if data is None else data
    consts = data.get("constants") or {}
    if not consts:
        return 0.0
    sd = [float(c["sd_log"]) for c in consts.values()]
    corr = data.get("correlation") or [[float(i == j) for j in range(len(sd))] for i in range(len(sd))]
    e = _constant_elasticities(shares, scenario, partial, data)
    var = sum(e[i] * e[j] * sd[i] * sd[j] * corr[i][j] for i in range(len(sd)) for j in range(len(sd)))
    return math.sqrt(max(var, 0.0))


def defaults_sd(shares: dict[str, float], defaulted: list[dict[str, Any]]) -> tuple[float, float, list[str]]:
    """The total's log shift and log sd from the defaulted inputs with a declared range (a range
    not centred on the value moves the median: DataMemory bounds the data from above), and those
    inputs."""
    ranges = default_ranges()
    var, shift, keys = 0.0, 0.0, []
    for d in defaulted:
        r = ranges.get(str(d.get("key")))
        if r is None or not _applies(r, d):
            continue
        lo, hi = (float(x) for x in r["range"])
        e = _elasticity(shares, {str(p): float(x) for p, x in (r.get("phases") or {}).items()})
        if e:
            var += (e * sd_of(lo, hi)) ** 2
            shift += e * 0.5 * math.log(lo * hi)
            keys.append(str(d["key"]))
    return shift, math.sqrt(var), keys


def _applies(r: dict[str, Any] | None, d: dict[str, Any]) -> bool:
    return r is not None and bool(d.get("value")) and not (r.get("from") and d.get("from") not in r["from"])


def measured_inputs(defaulted: list[dict[str, Any]]) -> list[tuple[str, float, float]]:
    """The defaulted inputs with a declared range, as ``measured.range_ends`` takes them."""
    ranges = default_ranges()
    out = []
    for d in defaulted:
        r = ranges.get(str(d.get("key")))
        if r is not None and _applies(r, d):
            lo, hi = (float(x) for x in r["range"])
            out.append((str(d["key"]), lo, hi))
    return out


STOP_MASS = 0.05
"""The probability beyond one end of a declared range: a range is read as the input's p5–p95, so
an end where the restart does not complete puts at least this mass on "does not complete"."""


def _response_moments(x_lo: float, x_hi: float, a: float | None, b: float | None) -> tuple[float, float]:
    """The mean and sd of the log total's shift when the input's log factor ``x`` is normal with
    p5 ``x_lo`` and p95 ``x_hi``, and the response is the parabola through the measured ends
    ``(x_lo, a)``, ``(x_hi, b)`` and the run's own value ``(0, 0)`` (a line through two of them when
    an end stops the restart or is the run's value): ``f = p x + q x²`` has mean ``p c + q (c² + s²)``
    and variance ``(p + 2 q c)² s² + 2 q² s⁴`` for ``x ~ N(c, s²)``. A linear response gives the
    declared-elasticity line's figures; one that is not monotone (both ends longer) shifts the
    median and widens the range by its curvature."""
    c, s = 0.5 * (x_lo + x_hi), (x_hi - x_lo) / (2 * Z90)
    ends = [(x, y) for x, y in ((x_lo, a), (x_hi, b)) if y is not None and abs(x) > 1e-12]
    if len(ends) == 2:
        det = x_lo * x_hi * (x_hi - x_lo)
        p = (a * x_hi**2 - b * x_lo**2) / det  # type: ignore[operator]
        q = (b * x_lo - a * x_hi) / det  # type: ignore[operator]
    elif ends:
        p, q = ends[0][1] / ends[0][0], 0.0
    else:
        return 0.0, 0.0
    mean = p * c + q * (c * c + s * s)
    return mean, math.sqrt((p + 2 * q * c) ** 2 * s * s + 2 * q * q * s**4)


def measured_defaults(
    ends: dict[str, list[float | None]], factors: dict[str, tuple[float, float]] | None = None
) -> tuple[float, float, list[str], float, list[str]]:
    """The defaults source from the measured range ends (``measured.range_ends``; ``factors``: each
    input's range, ``default_ranges`` unless given): the log shift and log sd of the total
    (``_response_moments``), the inputs that move it, the share that does not complete
    (``STOP_MASS`` per end that stops) and those ends."""
    ranges = default_ranges()
    var, shift, keys, go, stops = 0.0, 0.0, [], 1.0, []
    for key, (lo, hi) in ends.items():
        f_lo, f_hi = (factors or {}).get(key) or tuple(float(x) for x in ranges[key]["range"])
        for end, x in (("low", lo), ("high", hi)):
            if x is None:
                go *= 1 - STOP_MASS
                stops.append(f"{key} at its {end} end")
        mid, sd = _response_moments(math.log(f_lo), math.log(f_hi), lo, hi)
        if sd or mid:
            var += sd * sd
            shift += mid
            keys.append(key)
    return shift, math.sqrt(var), keys, 1 - go, stops


def _log_errors(cases: list[dict[str, Any]]) -> list[float]:
    """Each case's total's log error; a held-out one net of its constants' part (``constants_sd_log``:
    the spread the refit left in the constants already explains that much of it, and the
    constants' source carries it), ``sign(e) sqrt(max(e² − c², 0))``."""
    out = []
    for c in cases:
        for f in c["figures"]:
            if f["figure"] == TOTAL and f["published"] > 0 and f["predicted"] > 0:
                e = math.log(f["predicted"] / f["published"])
                net = math.sqrt(max(e * e - float(c.get("constants_sd_log") or 0.0) ** 2, 0.0))
                out.append(math.copysign(net, e))
    return out


def with_model(iv: dict[str, Any], model: tuple[float, str]) -> dict[str, Any]:
    """``iv`` (``combine``'s) with its model part replaced by ``model`` (log sd, source), the
    total and the shares recombined around the same p50."""
    sources = {k: dict(v) for k, v in (iv.get("sources") or {}).items()}
    p50 = float(iv["p50"])
    sources["model"] = {**sources.get("model", {}), **_band(p50, model[0]), "from": model[1]}
    var = sum(float(v["sd_log"]) ** 2 for v in sources.values())
    for v in sources.values():
        v["share"] = float(v["sd_log"]) ** 2 / var if var else 0.0
    return {**iv, **_band(p50, math.sqrt(var)), "sources": sources}


def _rms(xs: list[float]) -> float:
    return math.sqrt(sum(x * x for x in xs) / len(xs)) if xs else 0.0


@cache
def held_out_errors() -> dict[str, list[dict[str, Any]]]:
    """The packaged file's families: each fit case's total predicted without its family."""
    if not HELD_OUT_ERRORS_FILE.exists():
        return {}
    data = load_yaml(HELD_OUT_ERRORS_FILE.read_text(encoding="utf-8")) or {}
    return {str(k): list(v or []) for k, v in (data.get("families") or {}).items()}


def measured_errors(
    validation: dict[str, list[dict[str, Any]]] | None = None, held: dict[str, list[dict[str, Any]]] | None = None
) -> dict[str, list[float]]:
    """Per release family, the log errors of its published totals predicted by constants not fitted
    on that family: its validation cases, and its fit cases refitted without them."""
    validation = published_errors() if validation is None else validation
    held = held_out_errors() if held is None else held
    out: dict[str, list[float]] = {}
    for source in (validation, held):
        for family, cases in source.items():
            out.setdefault(family, []).extend(_log_errors(cases))
    return {f: xs for f, xs in out.items() if xs}


def model_sd(version: str, errors: dict[str, list[float]] | None = None) -> tuple[float, str]:
    """The model's log sd on a restart of ``version`` it was not fitted on, and what it rests on.
    ``errors``: per family, the log errors of totals predicted without that family
    (``measured_errors``, the default). The leave-one-family-out figure is the root-mean-square
    error of every published total predicted by constants fitted without its own family; a family
    with none of its own takes it, a family with ``n`` pools their squares with it counted as one
    more (one or two restarts say little of a family's spread; many say all)."""
    family = profile_for(version).name
    errors = measured_errors() if errors is None else errors
    every = [x for xs in errors.values() for x in xs]
    if not every:
        return 0.0, "no published restart to measure the model's error on"
    lofo = _rms(every)
    own = errors.get(family, [])
    counted = f"{len(every)} published totals of {', '.join(sorted(errors, key=_family_order))}"
    if own:
        var = (len(own) * _rms(own) ** 2 + lofo**2) / (len(own) + 1)
        text = (
            f"the model's error on {len(own)} published {family} restart(s) predicted without them, "
            f"pooled with the leave-one-family-out error ({counted})"
        )
    else:
        var = lofo**2
        text = (
            f"no published {family} restart: the leave-one-family-out error ({counted}, each predicted "
            "without its family)"
        )
    return math.sqrt(var), text


def _family_order(name: str) -> tuple[int, int]:
    from ndbsim.output.accuracy import family_key

    return family_key(name)


def _band(p50: float, sd: float, shift: float = 0.0, stopped: float = 0.0) -> dict[str, float]:
    from ndbsim.output.interval.predictive import mixture_quantile

    mid = p50 * math.exp(shift)
    out = {f"p{round(100 * q)}": mixture_quantile(mid, sd, stopped, q) for q in (0.05, 0.5, 0.95)}
    return {**out, "sd_log": sd, "centre": mid, "shift_log": shift, "stopped_share": stopped}


def combine(
    p50: float,
    crash: dict[str, float],
    phases: dict[str, float],
    version: str,
    scenario: dict[str, Any],
    defaulted: list[dict[str, Any]],
    partial: bool = True,
    constants_data: dict[str, Any] | None = None,
    model: tuple[float, str] | None = None,
    stopped: float = 0.0,
    ends: dict[str, list[float | None]] | None = None,
) -> dict[str, Any]:
    """The interval around ``p50`` (the median total of the replications that completed): p5,
    p50, p95 of the total and each source's own band and share of the variance, with where it
    comes from. ``constants_data``: a covariance of constants other than the packaged ones
    (``check --cross``'s refits); ``model``: the model's log sd and its source in place of
    ``model_sd(version)`` (the same). ``stopped``: the share of replications that did not complete,
    the predictive distribution's mass on "does not complete" (``predictive``). ``ends``: the
    defaulted inputs' measured range ends (``measured.range_ends``; without them, each input's
    effect is its declared phases' share)."""
    if not (math.isfinite(p50) and p50 > 0):
        return {"p5": p50, "p50": p50, "p95": p50, "sources": {}}
    total = sum(v for v in phases.values() if math.isfinite(v)) or p50
    shares = {k: v / total for k, v in phases.items() if math.isfinite(v)}
    lo, hi = crash.get("p5", p50), crash.get("p95", p50)
    crash_sd = sd_of(lo, hi) if math.isfinite(hi) else 0.0
    stops: list[str] = []
    replications_stopped = stopped
    if ends is None:
        d_shift, d_sd, keys = defaults_sd(shares, defaulted)
    else:
        d_shift, d_sd, keys, d_stop, stops = measured_defaults(ends)
        stopped = 1 - (1 - stopped) * (1 - d_stop)
    m_sd, m_from = model_sd(version) if model is None else model
    cdata = constants_uncertainty() if constants_data is None else constants_data
    weak = [n for n, c in (cdata.get("constants") or {}).items() if c.get("weakly_determined")]
    sources = {
        "crash_moment": (crash_sd, f"{int(crash.get('n', 1))} replications over the crash's moment in the LCP cycle"),
        "constants": (
            constants_sd(shares, scenario, partial, cdata),
            "the fit's covariance of the free constants, each with the physical range of its cost as its prior"
            + (f" (weakly determined, resting mostly on that range: {', '.join(weak)})" if weak else ""),
        ),
        "defaults": (
            d_sd,
            "inputs left at defaults: "
            + (", ".join(keys) if keys else "none with a declared range")
            + ("; measured at its range's ends" if ends is not None and keys else "")
            + (f"; the restart does not complete with {', '.join(stops)}" if stops else ""),
        ),
        "model": (m_sd, m_from),
    }
    var = sum(sd * sd for sd, _ in sources.values())
    out: dict[str, Any] = dict(_band(p50, math.sqrt(var), d_shift, stopped))
    out["stops_at"] = stops
    out["replications_stopped"] = replications_stopped
    if ends is not None:
        out["defaults_ends"] = ends
    out["sources"] = {
        k: {**_band(p50, sd, d_shift if k == "defaults" else 0.0), "share": sd * sd / var if var else 0.0, "from": text}
        for k, (sd, text) in sources.items()
    }
    return out


def defaulted_of(scenario: Any, origins: dict[str, str]) -> list[dict[str, Any]]:
    """The inputs of ``default_ranges`` no input gave, as ``defaulted`` lists them, from a loaded
    scenario's origins (for a run made without its header: advise's and solve's variants)."""
    from ndbsim.input.scenario.provenance import GIVEN
    from ndbsim.output.origins import origin_of, value_at

    out = []
    for key in default_ranges():
        origin = origin_of(key, set(), origins)
        if origin not in GIVEN:
            out.append({"key": key, "value": value_at(scenario, key), "from": origin})
    return out


def result_interval(
    result: Any,
    defaulted: list[dict[str, Any]] | None = None,
    constants_data: dict[str, Any] | None = None,
    model: tuple[float, str] | None = None,
    ends: dict[str, list[float | None]] | None = None,
) -> dict[str, Any]:
    """``combine`` for a ``Result``; ``defaulted``: its ``explained`` list unless given;
    ``constants_data`` and ``model`` as ``combine`` takes them; ``ends``: the defaulted inputs'
    measured range ends, measured here (``measured.range_ends``) unless given."""
    from ndbsim.output.interval.measured import range_ends
    from ndbsim.output.interval.predictive import quantile, stopped_share

    cp = result.first.checkpoint or {}
    defaulted = list(result.explained.get("defaulted") or []) if defaulted is None else defaulted
    totals = result.totals
    if ends is None:
        ends = range_ends(result.scenario, result.seed, totals[0] if totals else math.nan, measured_inputs(defaulted))
    done = [t for t in totals if math.isfinite(t)]
    crash = {"n": len(totals), **{f"p{round(100 * q)}": quantile(done, q) for q in (0.05, 0.5, 0.95)}}
    return combine(
        crash["p50"],
        crash,
        result.phases(),
        result.version,
        result.scenario,
        defaulted,
        cp.get("policy") == "partial",
        constants_data,
        model,
        stopped_share(totals),
        ends,
    )


def interval_line(iv: dict[str, Any]) -> str:
    """The range in one line, with each source's share (the table's first range)."""

    if not iv.get("sources"):
        return ""
    parts = ", ".join(f"{k.replace('_', ' ')} {100 * s['share']:.0f}%" for k, s in iv["sources"].items())
    return f"predictive p5–p95: {range_text(iv)} (of its variance: {parts})"


def interval_lines(iv: dict[str, Any]) -> list[str]:
    """``interval_line``, then what each source with a share worth showing rests on; one line each,
    fitted to the terminal where they are printed (``output.stdout.fit``), so never wrapped twice."""
    line = interval_line(iv)
    if not line:
        return []
    out = [line]
    out += [
        f"  {k}: {src['from']}"
        for k, src in iv["sources"].items()
        if k != "crash_moment" and src["share"] >= SHOWN_SHARE
    ]
    return out


def phase_sds(
    version: str, scenario: dict[str, Any], defaulted: list[dict[str, Any]], partial: bool = True
) -> dict[str, float]:
    """Each phase's own log sd before any of it is measured: the model's error, the constants that
    scale it and the defaulted inputs that move it (what ``ndbsim eta`` narrows as phases finish)."""
    from ndbsim.input.restart_info import PHASES

    m_sd, _ = model_sd(version)
    out = {}
    for p in PHASES:
        one = {p: 1.0}
        var = m_sd**2 + constants_sd(one, scenario, partial) ** 2 + defaults_sd(one, defaulted)[1] ** 2
        out[p] = math.sqrt(var)
    return out


def result_priors(result: Any) -> dict[str, float]:
    """``phase_sds`` for a ``Result`` (run with ``explained``)."""
    cp = result.first.checkpoint or {}
    defaulted = list(result.explained.get("defaulted") or [])
    return phase_sds(result.version, result.scenario, defaulted, cp.get("policy") == "partial")


def range_text(iv: dict[str, Any] | None) -> str:
    """``12m50s–17m10s``: an interval's p5–p95 (``-`` when there is none)."""

    if not iv or not iv.get("sources"):
        return "-"
    return f"{_end_text(iv['p5'])}–{_end_text(iv['p95'])}" + _stopped_text(iv)


def _end_text(secs: float) -> str:
    from ndbsim.input.units import format_secs

    return format_secs(secs) if math.isfinite(secs) else "does not complete"


def _stopped_text(iv: dict[str, Any]) -> str:
    """What an interval with restarts that do not complete says of them ('' when all complete)."""
    rep, stops = float(iv.get("replications_stopped", 0.0)), list(iv.get("stops_at") or [])
    parts = [f"{100 * rep:.0f}% of the replications stopped"] if rep > 0 else []
    if stops:
        many = len(stops) > 1
        parts.append(f"{len(stops)} end{'s' if many else ''} of a defaulted input's range stop{'' if many else 's'} it")
    if not parts:
        return ""
    return f" ({'' if not math.isfinite(iv['p95']) else 'may not complete: '}{'; '.join(parts)})"
