"""Gantt chart of the restart phases, one row per node."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from ndbsim.errors import InputError
from ndbsim.input.restart_info import PHASES
from ndbsim.output.io import atomic_write
from ndbsim.output.result import Result

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ndbsim.engine.records import Replication

SHORT = {p: p.removeprefix("secs_").replace("_", " ") for p in PHASES}
"""Legend label per restart phase: the phase name (``restart_info.PHASES``, restart_info's
column names plus secs_memory_touch) without ``secs_`` and with spaces."""


def gantt(
    result: Result, path: str | Path | None = None, replication: int | None = None, *, page_width: float | None = None
) -> Figure:
    """Draw replication ``replication`` as a Gantt chart; save to ``path`` (.png/.svg/.pdf).
    By default the first replication, or for several restarting nodes the schedule's (the median
    window), its waves labelled. ``page_width`` (inches): drawn at that width with the legend in
    columns under the plot, so that printed at that width (the report on A4) its text keeps its
    point size; None: 12 inches, the legend beside the plot."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if replication is None:
        replication = result.schedule_replication() if getattr(result, "multi_node", False) else 0
    rep = result.replications[replication]
    if not hasattr(rep, "nodes"):  # InnoDB: one server, no restart_info phases
        return _gantt_single(result, rep, path)
    t_zero = min((n.start for n in rep.nodes), default=0.0)
    cmap = plt.get_cmap("tab20")
    colour = {p: cmap(i % 20) for i, p in enumerate(PHASES)}
    rows = max(1, len(rep.nodes))
    fig, ax = plt.subplots(
        figsize=(page_width or 12, (2.2 if page_width else 2.4) + (0.32 if page_width else 0.5) * rows),
        layout="constrained" if page_width else None,
    )
    used = set()
    ends = [b for n in rep.nodes for _, _, b in n.spans if math.isfinite(b)]
    edge = 1.15 * max(ends, default=t_zero + 60.0) - 0.15 * t_zero  # where a phase that never ends is cut
    for row, node in enumerate(rep.nodes):
        for phase, a, b in node.spans:
            if b - a <= 0:
                continue
            endless = not math.isfinite(b)
            ax.barh(
                row,
                ((edge if endless else b) - a) / 60.0,
                left=(a - t_zero) / 60.0,
                color=colour[phase],
                label=SHORT[phase] if phase not in used else None,
                edgecolor="white",
                linewidth=0.3,
                hatch="//" if endless else None,
            )
            if endless:
                ax.annotate("never ends →", ((edge - t_zero) / 60.0, row), ha="right", va="center", fontsize=8)
            used.add(phase)
    ax.set_yticks(range(len(rep.nodes)), [f"node {n.node_id}" for n in rep.nodes])  # NDB NodeIds (cluster.node_ids)
    ax.invert_yaxis()
    if len(rep.nodes) > 1:
        _label_waves(ax, rep, t_zero, edge)
    ax.set_xlabel("minutes since the restart began")
    total = f"{rep.total_restart_secs / 60:.1f} min" if math.isfinite(rep.total_restart_secs) else "never ends"
    ax.set_title(
        f"{result.title} — NDB {_release(result)}, {result.restart_type} restart: {total} ({rep.status})",
        fontsize=9 if page_width else 10,
        wrap=True,
    )
    if page_width:  # in columns under the plot: the page's width is the plot's
        fig.legend(loc="outside lower center", ncol=3, fontsize=8, frameon=False, columnspacing=1.2, handlelength=1.2)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1, fontsize=7, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    if not page_width:
        fig.tight_layout()
    return _save(fig, path)


def _release(result: Result) -> str:
    """The release, and the one an upgrade brings the restarted nodes to."""
    up = result.scenario.get("restart", {}).get("upgrade_to")
    return f"{result.version} → {up}" if up else result.version


def _label_waves(ax: Axes, rep: Replication, t_zero: float, edge: float) -> None:
    """Name each wave beside its nodes' rows, mark where it ends, and give its length on top."""
    waves: dict[int, list[int]] = {}
    for row, node in enumerate(rep.nodes):
        waves.setdefault(node.wave, []).append(row)
    ax.set_yticks(range(len(rep.nodes)), [f"wave {n.wave} · node {n.node_id}" for n in rep.nodes], fontsize=8)
    for number, rows in waves.items():
        nodes = [rep.nodes[r] for r in rows]
        start = min(n.start for n in nodes)
        end = max(n.end for n in nodes)
        shown_end = end if math.isfinite(end) else edge
        ax.axvline((shown_end - t_zero) / 60.0, color="grey", linestyle="--", linewidth=0.8)
        length = f"{(end - start) / 60:.1f} min" if math.isfinite(end) else "never ends"
        ax.annotate(
            f"wave {number}: {length}",
            (((start + shown_end) / 2 - t_zero) / 60.0, min(rows) - 0.45),
            ha="center",
            va="bottom",
            fontsize=8,
            annotation_clip=False,
        )


_FIXED_METADATA: dict[str, dict[str, None]] = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}
"""Chart metadata left out so that the same run writes the same bytes: SVG and PDF otherwise
stamp the time of writing (with ``svg.hashsalt`` fixed, SVG's element ids are also stable)."""


def _save(fig, path):
    import matplotlib.pyplot as plt

    if path is not None:
        suffix = Path(path).suffix.lower()
        if suffix not in (".png", ".svg", ".pdf"):
            plt.close(fig)
            raise InputError(
                f"{str(path)!r} has no .png, .svg or .pdf suffix; name the chart e.g. restart.png", field="--gantt"
            )
        fmt = suffix[1:]
        with plt.rc_context({"svg.hashsalt": "ndbsim"}):
            atomic_write(
                path,
                lambda tmp: fig.savefig(tmp, format=fmt, dpi=120, bbox_inches="tight", metadata=_FIXED_METADATA[fmt]),
            )
        plt.close(fig)
    return fig


def _gantt_single(result, rep, path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 2.2))
    cmap = plt.get_cmap("tab10")
    for i, (phase, a, b) in enumerate(rep.spans):
        if b > a:
            ax.barh(0, (b - a) / 60.0, left=a / 60.0, color=cmap(i % 10), label=phase.removeprefix("secs_"))
    ax.set_yticks([0], ["mysqld"])
    ax.set_xlabel("minutes since mysqld started")
    ax.set_title(f"{result.name}: downtime {result.total_restart_secs / 60:.1f} min", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    fig.tight_layout()
    return _save(fig, path)
