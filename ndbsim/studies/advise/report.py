"""advise's table and tornado chart."""

from __future__ import annotations

import math
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.input.units import format_bytes, format_secs
from ndbsim.studies.advise.study import CONFIG_LIST, Advice, _savings, prices

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _signed(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "never ends" if x < 0 else "makes it end"
    if abs(x) < 0.5:  # below the table's resolution of a second
        return "0s"
    return ("-" if x < 0 else "+") + format_secs(abs(x))


def _rate(x: float) -> str:
    return "-" if math.isnan(x) else f"{format_bytes(x)}/s"


def _size(x: float) -> str:
    return "-" if math.isnan(x) else format_bytes(x)


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.0f}%"


def _redo_free(x: float) -> str:
    """REDO left free at the steady peak; below zero the peak outgrows the log, which NDB reports
    as error 410 (REDO log overloaded), so no percentage is meaningful."""
    return "overloaded (error 410)" if x < 0 else _pct(x)


def _cores(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


HEADER = ("#", "lever", "now", "try", "saves", "p5..p95", "total", "flag")
"""The table's columns: rank, lever, its current and best value, the median saving and the
p5..p95 of the paired savings, the total with the lever and its flag (in short, with the number
of the note beneath the table that words it in full)."""
PRICE_HEADER = ("#", "lever", "LCP rate", "LCP", "LCP disk", "REDO free", "LCP CPU")
"""The prices table's columns, per lever at its best value: the steady LCP write rate, bytes
per LCP, LCP files on disk, REDO left free at the steady peak and the cores the LCP writes take
at that rate. A table of its own, so that each fits a terminal of 120 columns."""


def _short_flag(flag: str) -> str:
    """A flag as the table's column shows it: each kind without what it names (``cliff``, not
    ``cliff: MaxParallelCopyInstances``); the note beneath the table gives it whole."""
    return ", ".join(dict.fromkeys(f.partition(":")[0] for f in flag.split(", ") if f))


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]


def _free(x: float) -> str:
    """The base's REDO price as the "now" line words it."""
    return _redo_free(x) if x < 0 else f"{_pct(x)} free"


def _note(r: Any) -> str:
    """A flag's note: the row's value first, flagged or not, then the other values tried that
    ended flagged (the flag column marks the row when either is so)."""
    own = r.flag or "no flag"
    other = f"; not chosen, flagged: {r.flagged}" if r.flagged else ""
    return f"{r.lever}={r.value} (the row's value): {own}{other}"


def _tables(a: Advice) -> tuple[dict[str, list[tuple[str, ...]]], list[tuple[str, ...]], list[str]]:
    """The levers' rows per list (each with its header), the prices' rows (with its header) and
    the flags' numbered notes."""
    rows: dict[str, list[tuple[str, ...]]] = {}
    price_rows: list[tuple[str, ...]] = [PRICE_HEADER]
    notes: list[str] = []
    for r in a.frame.itertuples():
        flag = _short_flag(r.flag)
        if r.flag or r.flagged:
            notes.append(f"  [{len(notes) + 1}] {_note(r)}")
            flag = f"{flag} [{len(notes)}]".lstrip()
        rows.setdefault(r.list, [HEADER]).append(
            (
                str(r.rank),
                r.lever,
                r.current,
                r.value,
                _signed(r.saving_secs),
                f"{_signed(r.saving_p5)}..{_signed(r.saving_p95)}",
                format_secs(r.total_secs),
                flag,
            )
        )
        price_rows.append(
            (
                str(r.rank),
                r.lever,
                _rate(r.lcp_write_rate),
                _size(r.lcp_bytes),
                _size(r.lcp_disk_bytes),
                _redo_free(r.redo_headroom),
                _cores(r.lcp_cpu_cores),
            )
        )
    return rows, price_rows, notes


LIST_TITLES = {
    CONFIG_LIST: "config.ini levers (a DBA changes them with a rolling restart):",
}
"""The title over each list of levers; the other list's says it is not combined by default."""


def _list_title(name: str, combine_all: bool) -> str:
    if name in LIST_TITLES:
        return LIST_TITLES[name]
    how = "in the combination (--combine-all)" if combine_all else "not in the combination (add --combine-all)"
    return f"not config.ini: {name}; {how}:"


def advice_table(a: Advice) -> str:
    """The ranked levers as text, with the base, the best combination and how to reproduce."""
    b = a.base
    t = sorted(b.totals)
    from ndbsim.output.interval import range_text
    from ndbsim.output.interval.modes import modes_line
    from ndbsim.output.result import quantile

    # one line each: fitted to the terminal where they are printed (output.stdout.fit)
    shown = f"predictive p5–p95 {range_text(b.interval)}; crash-moment " if b.interval else ""
    lines = [
        f"{a.name} — {a.title}: {format_secs(b.median)} "
        f"({shown}p5 {format_secs(quantile(t, 0.05))}, p95 {format_secs(quantile(t, 0.95))}; "
        f"{a.replications} replications, seed {a.seed}){'' if b.status == 'ok' else ' ' + b.status}"
    ]
    two = modes_line(list(b.totals))
    if two:
        lines.append(two)
    bp = prices(b)
    priced = a.priced
    if priced:
        lines.append(
            f"now: LCP {_rate(bp['lcp_write_rate'])}, {_size(bp['lcp_bytes'])} per LCP, "
            f"{_size(bp['lcp_disk_bytes'])} of LCP files, REDO {_free(bp['redo_headroom'])}, "
            f"LCP CPU {_cores(bp['lcp_cpu_cores'])} cores"
        )
    lists, price_rows, notes = _tables(a)
    for name, rows in lists.items():
        lines += [_list_title(name, a.combine_all), *_columns(rows)]
    if notes:
        lines += ["flags:", *notes]
    if priced and len(price_rows) > 1:
        lines += ["prices per node with each lever's value (steady state):", *_columns(price_rows)]
    if a.combination is not None:
        s, p5, p95 = _savings(b, a.combination)
        scen = shlex.quote(a.source) + " " if a.source else ""
        sets = " ".join(f"--set {shlex.quote(x)}" for x in (*a.overrides, *a.combination.sets))
        pool = "levers of both lists" if a.combine_all else "config.ini levers"
        lines += [
            f"best combination (greedy over the top {pool}, run): {format_secs(a.combination.median)}, "
            f"saves {_signed(s)} (p5..p95 {_signed(p5)}..{_signed(p95)})",
            f"  check: ndbsim run {scen}-n {a.replications} --seed {a.seed} {sets}",
        ]
    else:
        pool = "lever" if a.combine_all else "config.ini lever"
        lines.append(f"best combination: no {pool} shortens this restart without a flag")
    top = a.frame.iloc[0] if len(a.frame) else None
    if top is not None and top["saving_secs"] >= 0.5:  # a saving the table shows, not "0s" or a loss
        scen = shlex.quote(a.source) + " " if a.source else ""
        lines.append(
            f"reproduce the top lever: ndbsim run {scen}-n {a.replications} --seed {a.seed} "
            + " ".join(f"--set {shlex.quote(x)}" for x in (*a.overrides, *top["set"].split()))
        )
    return "\n".join(lines) + "\n"


FLAGGED_COLOUR, SAVES_COLOUR, COSTS_COLOUR = "#d62728", "#2ca02c", "#ff7f0e"
"""The tornado's bar colours: a lever's best candidate flagged (error 410, non-converging,
stuck), a candidate that saves time, one that costs time (matplotlib's default palette)."""


def _legend_label(colour: str, alpha: float, endless: bool) -> str:
    """The legend's words for a bar drawn in ``colour`` (``alpha`` < 1: a worst candidate drawn
    inside its lever's best; ``endless``: a restart that never ends)."""
    what = {FLAGGED_COLOUR: "best try flagged (error 410, non-converging, stuck)", SAVES_COLOUR: "saves time"}.get(
        colour, "costs time"
    )
    if alpha < 1:
        what += ", worst try"
    return what + (", never ends" if endless else "")


def tornado(a: Advice, path: str | Path | None = None, limit: int | None = None) -> Figure:
    """Per lever, a bar from its worst to its best candidate's median saving (minutes); a
    candidate whose restart never ends is drawn to the edge, hatched. Every lever of the table
    is drawn unless ``limit`` says fewer (then the title says "top N of M"); the legend names
    the colours drawn."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ndbsim.output.plot import _save

    df = a.frame if limit is None else a.frame.head(limit)
    used: dict[str, tuple[str, float, str | None]] = {}  # legend label -> (colour, alpha, hatch)
    finite = [abs(x) for x in (*df["saving_secs"], *df["worst_saving_secs"]) if math.isfinite(x)]
    edge = 1.1 * max(finite, default=60.0) / 60.0 or 1.0
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.42 * max(1, len(df))))
    for i, r in enumerate(df.itertuples()):
        _lever_bars(ax, i, r, edge, used)
    ax.set_yticks(range(len(df)), [f"{r.lever} (now {r.current})" for r in df.itertuples()], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-edge * 1.35, edge * 1.35)
    ax.set_xlabel("minutes saved (median over replications; right is faster)")
    shown = f"top {len(df)} of {len(a.frame)} levers" if len(df) < len(a.frame) else f"all {len(df)} levers"
    ax.set_title(
        f"{a.name} — {a.product} {a.version}: {format_secs(a.base.median)} now; what each lever saves ({shown})",
        fontsize=9,
    )
    if used:
        from matplotlib.patches import Patch

        handles = [Patch(facecolor=c, alpha=al, hatch=h, edgecolor="white", label=k) for k, (c, al, h) in used.items()]
        ax.legend(handles=handles, loc="best", fontsize=7, framealpha=0.8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def _lever_bars(ax: Any, i: int, r: Any, edge: float, used: dict[str, tuple[str, float, str | None]]) -> None:
    """Lever ``r``'s bars on row ``i`` (its best and, when it differs, its worst candidate) with
    their labels; each colour drawn is added to ``used`` under its legend label."""
    best, worst = r.saving_secs / 60.0, r.worst_saving_secs / 60.0
    # A worst candidate on the best's side of zero is drawn inside it and named in its label.
    apart = r.worst_value != r.value and (worst < 0 <= best or best < 0 <= worst or best == worst == 0)
    inside = r.worst_value != r.value and not apart
    for m, label, side in ((best, r.value, "best"), (worst, r.worst_value, "worst")):
        if side == "worst" and not (apart or inside):
            continue
        endless = not math.isfinite(m)
        m = math.copysign(edge, m) if endless else m
        colour = FLAGGED_COLOUR if (r.flag and side == "best") else (SAVES_COLOUR if m > 0 else COSTS_COLOUR)
        alpha = 0.45 if (inside and side == "worst") else 1.0
        hatch = "//" if endless else None
        ax.barh(i, m, color=colour, alpha=alpha, hatch=hatch, edgecolor="white")
        used.setdefault(_legend_label(colour, alpha, endless), (colour, alpha, hatch))
        if inside and side == "worst":
            continue
        text = f"{label}{' (never ends)' if endless else ''}"
        if inside and side == "best":
            text += f"  ({r.worst_value}: {_signed(r.worst_saving_secs)})"
        if side == "worst" and best == worst == 0:
            continue
        ax.annotate(
            text,
            (m, i),
            xytext=(4 if m >= 0 else -4, 0),
            textcoords="offset points",
            ha="left" if m >= 0 else "right",
            va="center",
            fontsize=7,
        )
