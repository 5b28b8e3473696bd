"""``ndbsim report``: one self-contained HTML file to hand over. Everything is inline (the
style sheet, the Gantt chart as an SVG ``data:`` URI), so opening it makes no request; it
prints on A4 (``@media print``: page margins, no section split across pages where avoidable).

The page shows what was simulated and what was defaulted, the phase table (with a why column
when the result carries one per phase), the Gantt chart, the per-node schedule, the top levers
of ``advise`` with their prices, the timeouts to set and the warnings. It is built from plain
figures (``Result.to_dict()``, ``Advice.to_dict()``, ``timeouts.timeouts``), so the same run
writes the same bytes."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from ndbsim.input.restart_info import OWN_PHASES, PHASES
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.output.header import header_lines, value_text
from ndbsim.output.report_summary import lever_value, phase_words, range_detail, secs_text, summary, why_cell
from ndbsim.output.result import Result
from ndbsim.output.table import single_replica_text
from ndbsim.output.timeouts import timeout_lines

STYLE = """
@page { size: A4; margin: 14mm 12mm; }
body { font: 10.5pt/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1a1a1a; max-width: 190mm; margin: 1.5em auto; padding: 0 1em; }
h1 { font-size: 17pt; margin: 0 0 .2em; }
h2 { font-size: 12.5pt; border-bottom: 1px solid #bbb; margin: 1.3em 0 .5em; padding-bottom: .15em; }
p.sub { color: #555; margin: 0 0 1em; }
.total { font-size: 13pt; }
.total b { font-size: 16pt; }
table { border-collapse: collapse; width: 100%; font-size: 9pt; margin: .3em 0 .6em; }
th, td { border-bottom: 1px solid #ddd; padding: .18em .45em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.zero td { color: #999; }
tr.sum td { font-weight: bold; border-top: 1.5px solid #888; }
ul { margin: .2em 0; padding-left: 1.3em; }
li { margin: .1em 0; }
.warn li { color: #8a4b00; }
.bad { color: #b00020; font-weight: bold; }
figure { margin: .4em 0; }
figure img { width: 100%; height: auto; }
figcaption, .note { color: #555; font-size: 8.5pt; }
code { font-size: 8.5pt; background: #f4f4f4; padding: 0 .2em; overflow-wrap: anywhere; }
table.levers { font-size: 8pt; }
table.levers td.n { white-space: normal; }
table.levers code { overflow-wrap: normal; word-break: keep-all; }
p, li { overflow-wrap: anywhere; }
section { break-inside: auto; }
section.summary { border: 1px solid #bbb; border-radius: 4px; padding: .2em .9em .5em; background: #fafafa; }
section.summary h2 { border: none; margin-top: .4em; }
dl { display: grid; grid-template-columns: 9.5em 1fr; gap: .25em .8em; margin: .2em 0; }
dt { font-weight: bold; color: #333; }
dd { margin: 0; }
dd ul { margin: .1em 0; }
td.ph { min-width: 9em; }
td.ph span { display: block; color: #666; font-size: 7.5pt; }
div.why + div.why { margin-top: .25em; }
details { color: #555; font-size: 8pt; }
details summary { cursor: pointer; color: #777; }
ul.figs { margin: .1em 0 .2em; padding-left: 1.1em; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 9.5pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table, figure, tr, section.chart, section.advice { break-inside: avoid; page-break-inside: avoid; }
  table.phases { break-inside: auto; page-break-inside: auto; }
  section.summary { break-inside: avoid; page-break-inside: avoid; }
  td details { display: none; }
  a { color: inherit; text-decoration: none; }
}
"""
"""The page's style sheet: screen and A4 print (the summary, the chart with its heading, tables and
rows are not split across pages, except the long phase table, which breaks between rows; the why
column's folded figures are left off paper)."""

CHART_INCHES = 7.4
"""The Gantt chart's width in the report: the A4 page's printable width (210 mm less 2 × 12 mm
margins, 7.3 in) and the screen page's (190 mm), so its text prints at its own point size."""

TOP_LEVERS = 5
"""Levers the report lists from advise's ranking (its best-ranked ones)."""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def chart_uri(result: Result) -> str:
    """The Gantt chart (``plot.gantt``) as an SVG ``data:`` URI, its bytes fixed: no date, a
    fixed hash salt for element ids, text drawn as paths (no font to fetch)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ndbsim.output.plot import gantt

    with plt.rc_context({"svg.hashsalt": "ndbsim", "svg.fonttype": "path"}):
        fig = gantt(result, page_width=CHART_INCHES)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def render(
    result: Result,
    advice: dict[str, Any] | None,
    timeouts: dict[str, Any] | None,
    chart: str,
    command: str,
    version: str,
) -> str:
    """The whole HTML page. ``advice`` is ``Advice.to_dict()`` (None: not run), ``timeouts``
    ``timeouts.timeouts(result)``, ``chart`` a ``data:`` URI, ``command`` how to reproduce it."""
    d = result.to_dict()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing may leave the file: only inline styles and data: images.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{_e(d['title'])} — ndbsim report</title>",
        f"<style>{STYLE}</style></head><body>",
        *_summary(d, command, version),
        *summary(d, advice, timeouts),
        *range_detail(d),
        *_simulated(d),
        *_phase_table(d),
        '<section class="chart"><h2>Gantt chart</h2>',
        f'<figure><img id="gantt" src="{chart}" alt="Gantt chart of the restart phases, one row per node">',
        "<figcaption>The schedule's replication (the median window), one row per restarted node, "
        "phases in restart_info order.</figcaption></figure></section>",
        *_schedule(d),
        *_advice(advice),
        *_timeouts(timeouts),
        *_warnings(d),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _summary(d: dict[str, Any], command: str, version: str) -> list[str]:
    """The title and how the page was made (the summary proper is ``report_summary.summary``)."""
    rep = d["replications"]
    status = _e(d["status"]) + (f" — {_e(d['reason'])}" if d["reason"] else "")
    cls = "" if d["status"] == "ok" else ' class="bad"'
    return [
        f"<h1>{_e(d['title'])}</h1>",
        f'<p class="sub">NDB {_e(d["version"])} · {_e(d["restart_type"])} restart · seed {d["seed"]} · '
        f"{rep['n']} replication{'s' if rep['n'] > 1 else ''} · status <span{cls}>{status}</span> · "
        f"ndbsim {_e(version)} · reproduce: <code>{_e(command)}</code></p>",
    ]


def _simulated(d: dict[str, Any]) -> list[str]:
    if not d.get("simulated"):
        return []
    lines = header_lines({"simulated": d["simulated"], "defaulted": []})
    out = ["<section><h2>What was simulated</h2><ul>"]
    out.extend(f"<li>{_e(line.removeprefix('simulated: '))}</li>" for line in lines)
    out.append("</ul>")
    defaulted = d.get("defaulted") or []
    if defaulted:
        out.append("<h2>What was defaulted</h2>")
        out.append("<table><tr><th>key</th><th>value</th><th>from</th></tr>")
        out.extend(
            f"<tr><td><code>{_e(x['key'])}</code></td><td>{_e(value_text(x['key'], x['value']))}</td>"
            f"<td>{_e(x['from'])}</td></tr>"
            for x in defaulted
        )
        out.append("</table>")
    else:
        out.append('<p class="note">Nothing was defaulted: the scenario gave every value.</p>')
    out.append("</section>")
    return out


def why_text(why: Any) -> str:
    """A phase's why as one line, whatever its shape: text, or a mapping of named figures
    (``bottleneck``, ``quantity``, ...) written ``name: value``, or a list of those."""
    if why is None:
        return ""
    if isinstance(why, str):
        return why
    if isinstance(why, dict):
        if "text" in why:
            return str(why["text"])
        if "bottleneck" in why and "quantity" in why:
            from ndbsim.output.why import why_text as engine_why

            return engine_why(why)
        return "; ".join(f"{k}: {why_text(v)}" for k, v in why.items() if v not in (None, ""))
    if isinstance(why, (list, tuple)):
        return "; ".join(why_text(x) for x in why)
    if isinstance(why, float):
        return f"{why:.4g}"
    return str(why)


def _phase_why(node: dict[str, Any], phase: str, whole: Any = None) -> str:
    """The why the result gives for ``phase`` of ``node``: the node's ``why`` mapping (phase to
    why), else the result's own (``whole``, for every node); empty when it has none."""
    why = node.get("why")
    if not isinstance(why, dict):
        why = whole
    return why_text(why.get(phase)) if isinstance(why, dict) else ""


def _phase_table(d: dict[str, Any]) -> list[str]:
    nodes = d["nodes"]
    whole = d.get("why")
    has_why = any(_phase_why(n, p, whole) for n in nodes for p in PHASES)
    head = "".join(f'<th class="n">node {n["node_id"]}</th>' for n in nodes)
    out = [
        "<section><h2>Phases (ndbinfo.restart_info, median seconds)</h2>",
        f'<table class="phases"><thead><tr><th>phase</th>{head}{"<th>why</th>" if has_why else ""}</tr></thead>',
    ]
    idle = []
    for p in PHASES:
        vals = [n["phases"][p] for n in nodes]
        if all(v is not None and v == 0 for v in vals):
            idle.append(p)
            continue
        cells = "".join(f'<td class="n">{_e(secs_text(v))}</td>' for v in vals)
        why = f"<td>{why_cell(nodes, p, whole)}</td>" if has_why else ""
        column = "_<wbr>".join(_e(p).split("_")) + (" *" if p in OWN_PHASES else "")
        out.append(f'<tr><td class="ph">{_e(phase_words(p))}<span>{column}</span></td>{cells}{why}</tr>')
    totals = "".join(f'<td class="n">{_e(secs_text(n["total_restart_secs"]))}</td>' for n in nodes)
    out.append(
        f'<tr class="sum"><td class="ph">total<span>total_<wbr>restart_<wbr>secs</span></td>{totals}'
        f"{'<td></td>' if has_why else ''}</tr>"
    )
    out.append("</table>")
    out.append(
        f'<p class="note">* ndbsim\'s own row: restart_info counts {_e(", ".join(OWN_PHASES))} in '
        "secs_to_include_in_heartbeat_protocol. "
        + (f"Phases that took no time: {_e(', '.join(idle))}. " if idle else "")
        + (
            "Each why: what bounds the phase; open “how much” for the quantity it works through and its figures."
            if has_why
            else "This run carries no per-phase why."
        )
        + "</p>"
    )
    cp = d.get("checkpoint") or {}
    if cp:
        from ndbsim.output.table import checkpoint_lines

        out.append("<ul>" + "".join(f"<li>{_e(x)}</li>" for x in checkpoint_lines(cp)) + "</ul>")
    out.append("</section>")
    return out


def _schedule(d: dict[str, Any]) -> list[str]:
    sch = d.get("schedule")
    if not sch:
        return []
    out = [
        "<section><h2>Per-node schedule</h2>",
        f'<p class="note">Replication {sch["replication"] + 1} (the median window); seconds from the first '
        "node's stop.</p>",
        '<table><tr><th class="n">wave</th><th class="n">node</th><th>release</th><th class="n">start</th>'
        '<th class="n">end</th><th class="n">node total</th></tr>',
    ]
    out.extend(
        f'<tr><td class="n">{x["wave"]}</td><td class="n">{x["node_id"]}</td><td>{_e(x["release"])}</td>'
        f'<td class="n">{secs_text(x["start_secs"])}</td><td class="n">{secs_text(x["end_secs"])}</td>'
        f'<td class="n">{secs_text(x["node_total_secs"])}</td></tr>'
        for x in sch["nodes"]
    )
    out.append("</table><ul>")
    out.extend(
        f"<li>wave {w['wave']} (nodes {_e(', '.join(map(str, w['nodes'])))}): {_e(format_secs(w['secs']))}"
        f"{_e(single_replica_text(w.get('single_replica', [])))}</li>"
        for w in sch["waves"]
    )
    out.append(f"<li>window: {_e(format_secs(sch['window_secs']))}</li></ul></section>")
    return out


def _money(x: float | None, kind: str) -> str:
    if x is None:
        return "-"
    if kind == "rate":
        return f"{format_bytes(x)}/s"
    if kind == "bytes":
        return format_bytes(x)
    if kind == "pct":
        return "overloaded (error 410)" if x < 0 else f"{100 * x:.0f}%"
    return f"{x:.2f}"


def _saving(x: float | None) -> str:
    if x is None:
        return "-"
    return ("-" if x < 0 else "+") + format_secs(abs(x)) if abs(x) >= 0.5 else "0s"


def _advice(a: dict[str, Any] | None) -> list[str]:
    if a is None:
        return [
            "<section><h2>What would make it faster</h2>",
            '<p class="note">advise was not run (--no-advise).</p>',
            "</section>",
        ]
    levers = a["levers"][:TOP_LEVERS]
    out = [
        '<section class="advice"><h2>What would make it faster (advise)</h2>',
        f'<p class="note">The top {len(levers)} of {len(a["levers"])} levers (config.ini\'s first, ranked on '
        "their own; hardware, workload and release after them), each candidate run "
        f"{a['replications']} times with seed {a['seed']} (paired with the base); saving = base median − the "
        "lever's median. Prices per node, from the lever's steady LCP cycle.</p>",
        '<table class="levers"><tr><th class="n">#</th><th>lever</th><th>now</th><th>try</th><th class="n">saves</th>'
        '<th class="n">p5..p95</th><th class="n">total</th><th>flag</th><th class="n">LCP rate</th>'
        '<th class="n">LCP disk</th><th class="n">REDO free</th><th class="n">LCP CPU</th></tr>',
    ]
    out.extend(
        (
            f'<tr><td class="n">{r["rank"]}</td><td><code>{_e(r["lever"]).replace(".", ".<wbr>")}</code></td>'
            f"<td>{_e(lever_value(r['lever'], r['current']))}</td>"
            f'<td>{_e(lever_value(r["lever"], r["value"]))}</td><td class="n">{_e(_saving(r["saving_secs"]))}</td>'
            f'<td class="n">{_e(_saving(r["saving_p5"]))}..{_e(_saving(r["saving_p95"]))}</td>'
            f'<td class="n">{_e(format_secs(r["total_secs"]) if r["total_secs"] is not None else "never")}</td>'
            f'<td>{_e(r["flag"] or "")}</td><td class="n">{_e(_money(r["lcp_write_rate"], "rate"))}</td>'
            f'<td class="n">{_e(_money(r["lcp_disk_bytes"], "bytes"))}</td>'
            f'<td class="n">{_e(_money(r["redo_headroom"], "pct"))}</td>'
            f'<td class="n">{_e(_money(r["lcp_cpu_cores"], "cores"))}</td></tr>'
        )
        for r in levers
    )
    out.append("</table>")
    combo = a.get("combination")
    if combo:
        sets = " ".join(f"--set {s}" for s in combo["set"])
        out.append(
            f"<p>Best combination (greedy over the top config.ini levers, each step run): <code>{_e(sets)}</code> → "
            f"{_e(format_secs(combo['total_restart_secs']))}, saves {_e(_saving(combo['saving_secs']))}.</p>"
        )
    out.append("</section>")
    return out


def _timeouts(t: dict[str, Any] | None) -> list[str]:
    if t is None:
        return []
    lines = timeout_lines(t)
    return [
        "<section><h2>Timeouts to set</h2>",
        f"<p>{_e(lines[0])}</p><ul>",
        *(f"<li>{_e(x.strip())}</li>" for x in lines[1:]),
        "</ul></section>",
    ]


def _warnings(d: dict[str, Any]) -> list[str]:
    w = d.get("warnings") or []
    if not w:
        return ["<section><h2>Warnings</h2><p>None.</p></section>"]
    return ['<section class="warn"><h2>Warnings</h2><ul>', *(f"<li>{_e(x)}</li>" for x in w), "</ul></section>"]
