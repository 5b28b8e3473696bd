"""The report's summary on top, for whoever the report is handed to: the window and its spread, how
right the model has been (the accuracy band), whether the scenario was calibrated on the cluster's
own restarts, the phases that dominate and what bounds each, the top lever and its saving, the
timeouts and the status. And the phase table's why column: one short line per phase, the nodes
that share it grouped, the figures folded away in a ``<details>``."""

from __future__ import annotations

import html
import math
from typing import Any

from ndbsim.input.units import format_secs
from ndbsim.output.timeouts import names_text

DOMINANT_MAX = 3
"""Phases the summary names at most: the two or three a reader acts on."""
DOMINANT_SHARE = 0.10
"""A third (or later) phase is named only when it takes at least this share of the node's restart."""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def phase_words(phase: str) -> str:
    """``secs_restore_fragments`` → ``restore fragments``: a phase as a reader says it."""
    return phase.removeprefix("secs_").replace("_", " ")


def secs_text(x: float | None) -> str:
    """Seconds as a reader takes them in: ``5.6 s`` under a minute, ``2m09s`` above, ``never``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if not math.isfinite(x):
        return "never"
    return f"{x:.1f} s" if x < 60 else format_secs(x)


def slowest_node(d: dict[str, Any]) -> dict[str, Any]:
    return max(d["nodes"], key=lambda n: n["total_restart_secs"] if math.isfinite(n["total_restart_secs"]) else 1e300)


def dominant_phases(node: dict[str, Any]) -> list[tuple[str, float, float]]:
    """The node's phases that dominate its restart: (phase, seconds, share), longest first; two at
    least, a third when it takes ``DOMINANT_SHARE`` or more."""
    total = node["total_restart_secs"]
    if not (total > 0 and math.isfinite(total)):
        return []
    ranked = sorted(((p, s) for p, s in node["phases"].items() if s > 0), key=lambda x: -x[1])
    out = [(p, s, s / total) for p, s in ranked[:DOMINANT_MAX]]
    return out[:2] + [x for x in out[2:] if x[2] >= DOMINANT_SHARE]


def bottleneck_words(why: Any) -> str:
    """A why in plain words: what bounds the phase and the quantity it works through, no figures."""
    if not isinstance(why, dict):
        return str(why or "")
    if "bottleneck" in why and "quantity" in why:
        return f"{why['bottleneck']} — {why['quantity']}"
    return str(why.get("text", ""))


def why_line(why: Any) -> str:
    """The why column's short line: what bounds the phase (the quantity goes in the details)."""
    if isinstance(why, dict) and "bottleneck" in why:
        return str(why["bottleneck"])
    return bottleneck_words(why)


def why_details(why: Any) -> str:
    """The quantity the phase works through, its figures, the split between what bounds it and the
    mechanism, as one line."""
    from ndbsim.output.why import figure

    if not isinstance(why, dict):
        return ""
    figures = ", ".join(figure(k, v) for k, v in (why.get("figures") or {}).items())
    parts = [f"{why['quantity']}" + (f": {figures}" if figures else "")] if "quantity" in why else []
    if "quantity" not in why and figures:
        parts.append(figures)
    bound = why.get("bound_secs") or {}
    if len(bound) > 1:
        total = sum(bound.values()) or 1.0
        parts.append("bound: " + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in bound.items()))
    if why.get("mechanism"):
        parts.append(str(why["mechanism"]))
    return "; ".join(parts)


def why_cell(nodes: list[dict[str, Any]], phase: str, whole: Any = None) -> str:
    """The why column's cell of ``phase``: one short line per distinct why, naming the nodes that
    share it when the nodes differ, each line's figures in a ``<details>`` (per node)."""
    groups: dict[str, list[tuple[int, Any]]] = {}
    for n in nodes:
        if n["phases"].get(phase, 0) <= 0:
            continue
        src = n.get("why") if isinstance(n.get("why"), dict) else whole
        why = src.get(phase) if isinstance(src, dict) else None
        words = why_line(why)
        if words:
            groups.setdefault(words, []).append((n["node_id"], why))
    lines = []
    for words, members in groups.items():
        who = ""
        if len(groups) > 1 or len(members) != len(nodes):
            ids = ", ".join(str(i) for i, _ in members)
            who = f"<b>node{'s' if len(members) > 1 else ''} {_e(ids)}:</b> "
        figs = [(i, why_details(w)) for i, w in members]
        figs = [(i, f) for i, f in figs if f]
        detail = ""
        if figs:
            rows = "".join(f"<li>{'node ' + str(i) + ': ' if len(figs) > 1 else ''}{_e(f)}</li>" for i, f in figs)
            detail = f'<details><summary>how much</summary><ul class="figs">{rows}</ul></details>'
        lines.append(f'<div class="why">{who}{_e(words)}{detail}</div>')
    return "".join(lines)


def lever_value(lever: str, value: Any) -> str:
    """A lever's value in units (``20000`` updates/s as ``20k``), a number given as text included."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    from ndbsim.output.header import value_text

    return value_text(lever, value)


def summary(d: dict[str, Any], advice: dict[str, Any] | None, timeouts: dict[str, Any] | None) -> list[str]:
    """The summary section: a short list a manager reads before anything else."""
    band = d.get("accuracy") or {}
    items = [
        ("Window", _window(d, _what_restarts(d))),
        ("Accuracy", _e(band.get("text", "not known")) + "." + _fit_phases(band)),
        ("Calibrated", _calibrated(band, d.get("defaulted") or [])),
        ("Where the time goes", _dominant(d)),
        ("Top lever", _lever(advice)),
        ("Timeouts", _timeouts(timeouts)),
    ]
    if d["status"] != "ok":
        items.insert(1, ("Status", f'<span class="bad">{_e(d["status"])}</span> — {_e(d["reason"])}'))
    warnings = d.get("warnings") or []
    if warnings:
        items.append(("Warnings", f"{len(warnings)}, listed at the end of the report."))
    out = ['<section class="summary"><h2>Summary</h2><dl>']
    out.extend(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in items)
    out.append("</dl></section>")
    return out


def _what_restarts(d: dict[str, Any]) -> str:
    """``for the node restart of node 33`` or ``for the rolling restart of nodes 21, ... in 3 waves``."""
    ids = [n["node_id"] for n in d["nodes"]]
    kind = d["restart_type"]
    if len(ids) == 1:
        return f"for the {kind} restart of node {ids[0]}"
    waves = (d.get("schedule") or {}).get("waves") or []
    wave_words = f" in {len(waves)} waves, one after another" if len(waves) > 1 else " at once"
    return f"for the {kind} restart of nodes {', '.join(map(str, ids))}{wave_words}"


def _window(d: dict[str, Any], words: str) -> str:

    rep = d["replications"]
    text = f"<b>{_e(format_secs(d['total_restart_secs']))}</b> {_e(words)}"
    iv = d.get("interval") or {}
    if iv.get("sources"):  # the breakdown of the range is below the summary (``range_detail``)
        p5, p95 = (_e(format_secs(iv[k])) for k in ("p5", "p95"))
        text += f"; 9 restarts in 10 like it should take between {p5} and {p95}"
    if rep["n"] > 1:
        p5, p95 = (_e(format_secs(rep[k])) for k in ("p5", "p95"))
        text += (
            f" (the middle of {rep['n']} simulated runs, {p5}–{p95} apart by when in the LCP cycle the "
            "node stops: precision, not accuracy)"
        )
    return text + "."


def range_detail(d: dict[str, Any]) -> list[str]:
    """For engineers, under the summary: what the window's range is made of, each source's share
    of its variance (``interval.sources``)."""
    from ndbsim.output.interval import range_text

    iv = d.get("interval") or {}
    if not iv.get("sources"):
        return []
    parts = ", ".join(f"{k.replace('_', ' ')} {100 * v['share']:.0f}%" for k, v in iv["sources"].items())
    return [
        "<h2>The range, for engineers</h2>",
        f"<p>Predictive p5–p95 {_e(range_text(iv))}; its variance comes from: {_e(parts)}.</p>",
    ]


FIT_PHASES_SHOWN = 4
"""Phases of a calibration's per-phase error the summary lists (the worst first)."""


def _fit_phases(band: dict[str, Any]) -> str:
    """A calibrated scenario's per-phase error on its rows, the worst phases first."""
    from ndbsim.output.accuracy import pct_range, secs_range

    phases = list((band.get("phases") or {}).items()) if band.get("basis") == "calibrated" else []
    if not phases:
        return ""
    items = ", ".join(
        f"{phase_words(p)} {secs_range(e.get('secs'))}" + (f" ({pct_range(e['share'])})" if e.get("share") else "")
        for p, e in phases[:FIT_PHASES_SHOWN]
    )
    return f" Per phase, the worst first: {_e(items)}."


def _calibrated(band: dict[str, Any], defaulted: list[dict[str, Any]]) -> str:
    if band.get("basis") == "calibrated":
        fitted = ", ".join(band.get("fitted") or []) or "no host figure"
        return (
            f"yes: the host figures ({_e(fitted)}) were fitted to your restart_info "
            f"({_e(band.get('restart_info'))}) by <code>ndbsim calibrate</code>."
        )
    host = [x["key"].removeprefix("host.") for x in defaulted if str(x.get("key", "")).startswith("host.")]
    whose = f"ndbsim's defaults for {', '.join(host)}, the rest the scenario's" if host else "the scenario's"
    return (
        f"no: the host figures are {_e(whose)}. Fit them to your cluster's own restarts with "
        "<code>ndbsim calibrate --restart-info restart_info.csv --scenario FILE</code>."
    )


def _dominant(d: dict[str, Any]) -> str:
    node = slowest_node(d)
    top = dominant_phases(node)
    if not top:
        return "no phase took time."
    whose = f"node {node['node_id']}'s restart" + (" (the slowest)" if len(d["nodes"]) > 1 else "")
    why = node.get("why") if isinstance(node.get("why"), dict) else (d.get("why") or {})
    items = "".join(
        f"<li><b>{_e(phase_words(p))}</b> {_e(secs_text(s))} ({100 * share:.0f}%)"
        + (f": {_e(bottleneck_words(why.get(p)))}" if isinstance(why, dict) and why.get(p) else "")
        + "</li>"
        for p, s, share in top
    )
    return f"shares of {_e(whose)}:<ul>{items}</ul>"


def _lever(advice: dict[str, Any] | None) -> str:
    if advice is None:
        return "advise was not run (--no-advise)."
    good = [r for r in advice["levers"] if (r.get("saving_secs") or 0) >= 0.5 and not r.get("flag")]
    if not good:
        return f"none of the {len(advice['levers'])} levers tried saves time here."
    r = good[0]
    lever = str(r["lever"])
    now, then = lever_value(lever, r["current"]), lever_value(lever, r["value"])
    return (
        f"<code>{_e(lever)}</code> {_e(now)} → {_e(then)} saves <b>{_e(format_secs(r['saving_secs']))}</b> "
        f"(p5–p95 of the saving {_e(format_secs(r['saving_p5']))}–{_e(format_secs(r['saving_p95']))}); "
        "its price is in the advise table."
    )


def _timeouts(t: dict[str, Any] | None) -> str:
    if t is None:
        return "not computed."
    if not math.isfinite(t["covering_bound_secs"]):
        return f"none: the {_e(t['covering_type'])} would not finish; fix the cause first."
    node = next((c for c in t["config_ini"] if c["value_ms"] is not None), None)
    parts = []
    if node is not None:
        covers = _e(names_text(node["covers"]))
        parts.append(
            f"<code>{_e(node['parameter'])}={node['value_ms']}</code> ({_e(format_secs(node['value_ms'] / 1000))}, "
            f"covers the {covers})"
        )
    if t["ndb_waiter_timeout_secs"] is not None:
        parts.append(f"<code>ndb_waiter --timeout={t['ndb_waiter_timeout_secs']:.0f}</code> after this restart")
    probe = t["startup_probe"]
    parts.append(f"startupProbe failureThreshold {probe['failureThreshold']} × {probe['periodSeconds']} s")
    return (
        " · ".join(parts) + f": the slowest node's p99 start of the {_e(t['covering_type'])} × {t['margin']:g}, "
        "rounded up to a minute."
    )
