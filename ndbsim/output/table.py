"""The terminal phase table."""

from __future__ import annotations

import math
from typing import Any

from ndbsim.input.restart_info import OWN_PHASES, PHASES, column_of
from ndbsim.input.units import format_bytes, format_secs
from ndbsim.output.result import Result

NODE_COLUMN = 12
"""Characters of one node's column in the phase table."""

BAR_WIDTH = 30
"""Characters of a whole restart's share bar beside a one-node table, when the terminal has room
(fewer on a narrower one: ``output.stdout.fit``)."""


def stopped_text(result: Result) -> str:
    """A restart that did not complete, in place of its total: where it stopped and why."""
    stop = result.stopped()
    if stop is None or math.isnan(stop["stopped_secs"]):
        return "never"
    where = f", in {stop['stopped_in']}" if stop["stopped_in"] else ""
    secs = stop["stopped_secs"]
    when = "at the crash" if secs <= 0 else f"{format_secs(secs)} after the crash"
    n, k = len(result.totals), stop["stopped_replications"]
    text = f"did not complete ({stop['status']}): stopped {when}{where}"
    if n > 1 and k < n:
        text = (
            f"does not complete in {k} of {n} replications ({stop['status']}; the first stopped {when}{where}); "
            f"the {n - k} that completed: median {format_secs(stop['completed_secs'])}"
        )
    return text


def phase_table(
    result: Result,
    notes: list[str] | None = None,
    overrides: list[str] | None = None,
    config_ini: str | None = None,
    *,
    warnings: bool = True,
) -> str:
    """The phase table. Under the title (the scenario's name made to agree with the run), the
    ``--config-ini`` file and ``overrides`` (the ``--set`` assignments), then what was simulated
    and which values were defaulted (``header.header_lines``); at the end the result's warnings
    and ``notes``, unless ``warnings`` is False (the command line prints them on stderr)."""
    from ndbsim.output.header import header_lines, title_as_run

    ids = result.node_ids()
    cp = result.checkpoint
    rep = result.to_dict()["replications"]
    out = [
        title_as_run(result.name, result.version, result.data_nodes),
        f"NDB {result.version} · {result.restart_type} restart · {cp['policy']} LCP · seed {result.seed}"
        + (f" · {rep['n']} replications (medians)" if rep["n"] > 1 else ""),
    ]
    if config_ini:
        out.append(f"with --config-ini {config_ini}")
    if overrides:
        out.append("with --set " + ", ".join(a.strip() for a in overrides))
    if result.explained:
        out.extend(header_lines(result.explained))
    out.append("")
    out.extend(_phase_rows(result, ids))
    out.append("")
    if result.multi_node:
        out.extend(schedule_lines(result))
    t = result.total_restart_secs
    from ndbsim.output.interval import interval_lines

    out.append("restart total: " + (f"{format_secs(t)} ({t:.0f} s)" if math.isfinite(t) else stopped_text(result)))
    if math.isfinite(t) or result.stopped_count < len(result.totals):
        out.extend(interval_lines(result.interval()))
    if rep["n"] > 1:
        out.append(
            f"crash-moment spread: p5 {format_secs(rep['p5'])} · p50 {format_secs(rep['p50'])} · "
            f"p95 {format_secs(rep['p95'])}"
        )
        from ndbsim.output.interval.modes import modes_line

        two = modes_line(result.totals, {p: result.replications.phase_values(p) for p in PHASES})
        if two:
            out.append(two)
    from ndbsim.output.accuracy import accuracy_lines

    out.extend(accuracy_lines(result.accuracy(), rep["n"] > 1))
    out.append(f"status: {result.status}" + (f" — {result.reason}" if result.reason else ""))
    out.extend(checkpoint_lines(cp))
    if warnings:
        out.extend(f"warning: {w}" for w in dict.fromkeys(result.warnings + list(notes or [])))
    return "\n".join(out) + "\n"


def _phase_rows(result: Result, ids: list[int]) -> list[str]:
    """The table proper: a row per restart_info phase, a column per node (with one node, each
    phase's share of the restart as a bar), and the total."""
    from ndbsim.output.stdout import terminal_width

    per_node = {nid: result.phases(nid) for nid in ids}
    totals = {nid: result.node_total(nid) for nid in ids}
    width = max(len(p) for p in PHASES) + 4
    room = terminal_width()
    per_block = max(1, (room - width) // NODE_COLUMN)  # the node columns that fit beside the names
    bar = max(0, min(BAR_WIDTH, room - width - NODE_COLUMN - 2))
    out: list[str] = []
    for b in range(0, len(ids), per_block):
        block = ids[b : b + per_block]
        if out:
            out.append("")
        out.append(
            "phase (ndbinfo.restart_info)".ljust(width)
            + "".join(f"{'node ' + str(n):>12s}" for n in block)
            + ("   share" if len(ids) == 1 and bar >= len("share") else "")
        )
        for p in PHASES:
            row = (p + " *" if p in OWN_PHASES else p).ljust(width) + "".join(_secs(per_node[n][p]) for n in block)
            if len(ids) == 1 and totals[ids[0]] > 0 and bar:
                share = per_node[ids[0]][p] / totals[ids[0]]
                row += f"  {'█' * round(share * bar)}" if share >= 0.005 else ""
            out.append(row)
        out.append("total_restart_secs".ljust(width) + "".join(f"{format_secs(totals[n]):>12s}" for n in block))
    out.append(
        f"* ndbsim's own row: restart_info counts {', '.join(OWN_PHASES)} in "
        f"{', '.join(sorted({column_of(p) or '?' for p in OWN_PHASES}))}"
    )
    return out


def schedule_lines(result: Result) -> list[str]:
    """The per-node schedule of a restart of several nodes: wave, release, start, end and node
    total, then each wave's length; the waves add up to the window."""
    sch = result.schedule()
    n = len(result.replications)
    which = f"replication {sch['replication'] + 1} of {n}, the median window; " if n > 1 else ""
    up = result.scenario.get("restart", {}).get("upgrade_to")
    out = [f"schedule ({which}from the first node's stop), restart.plan {sch['plan']}"]
    if up:
        out.append(
            f"upgrade {result.version} → {up}: each node comes back on {up}; the cluster's LCP stays "
            f"{result.version}'s until every node runs {up}"
        )
    out.append(f"{'wave':>6s}{'node':>6s}  {'release':<10s}{'start':>12s}{'end':>12s}{'node total':>12s}")
    out.extend(
        f"{x['wave']:>6d}{x['node_id']:>6d}  {x['release']:<10s}"
        f"{_secs(x['start_secs'])}{_secs(x['end_secs'])}{_secs(x['node_total_secs'])}"
        for x in sch["nodes"]
    )
    waves = sch["waves"]
    out.extend(
        f"wave {w['wave']} (node{'s' if len(w['nodes']) > 1 else ''} {', '.join(map(str, w['nodes']))}): "
        + _secs(w["secs"]).strip()
        + single_replica_text(w.get("single_replica", []))
        for w in waves
    )
    if len(waves) > 1:
        parts = " + ".join(_secs(w["secs"]).strip() for w in waves)
        out.append(f"window: {_secs(sch['window_secs']).strip()} = {parts}")
    out.append("")
    return out


def single_replica_text(groups: list[dict[str, Any]]) -> str:
    """A wave's node groups left on one live node, and for how long ('' when none is)."""
    if not groups:
        return ""
    parts = ", ".join(
        f"node group {g['node_group']} on node {g['live_node']} for "
        + (format_secs(g["secs"]) if math.isfinite(g["secs"]) else "ever")
        for g in groups
    )
    return f"; single replica: {parts}"


def _secs(x: float) -> str:
    """A phase's seconds in the table, or "never" for a phase that would not end."""
    return f"{x:>10.1f} s" if math.isfinite(x) else f"{'never':>12s}"


def checkpoint_lines(cp: dict[str, float]) -> list[str]:
    """The steady LCP cycle under the base load and the REDO log's use, in words."""
    speed = f"{format_bytes(cp['lcp_write_speed'])}/s"
    if cp["lcp_cycle_secs"] > 0:
        lcp = (
            f"LCPs under the base load: one every {format_secs(cp['lcp_cycle_secs'])}, each writing "
            f"{format_bytes(cp['lcp_bytes'])} in {format_secs(cp['lcp_secs'])} (at {speed}, plus the row "
            "scan and the wait for a GCP)"
        )
    else:
        lcp = (
            f"LCPs under the base load: none, nothing changes (a lone LCP would write "
            f"{format_bytes(cp['lcp_bytes'])} at {speed})"
        )
    cap = cp["redo_capacity_bytes"]
    fill = f" ({100 * cp['redo_peak_bytes'] / cap:.0f}% at the peak)" if cap > 0 else ""
    redo = (
        f"REDO log per node: {format_bytes(cap)}; the steady LCP cycle keeps "
        f"{format_bytes(cp['redo_bytes_needed'])}, this run peaked at {format_bytes(cp['redo_peak_bytes'])}" + fill
    )
    return [lcp, redo]
