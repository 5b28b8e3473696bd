"""Gantt chart of the restart phases, one row per node."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from ndbsim.errors import InputError
from ndbsim.io import atomic_write
from ndbsim.restart_info import PHASES
from ndbsim.result import Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SHORT = {p: p.removeprefix("secs_").replace("_", " ") for p in PHASES}
"""Legend label per restart phase: the phase name (``restart_info.PHASES``, restart_info's
column names plus secs_memory_touch) without ``secs_`` and with spaces."""


def gantt(result: Result, path: str | Path | None = None, replication: int = 0) -> Figure:
    """Draw replication ``replication`` as a Gantt chart; save to ``path`` (.png/.svg/.pdf)."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    rep = result.replications[replication]
    if not hasattr(rep, "nodes"):  # InnoDB: one server, no restart_info phases
        return _gantt_single(result, rep, path)
    t_zero = min((n.start for n in rep.nodes), default=0.0)
    cmap = plt.get_cmap("tab20")
    colour = {p: cmap(i % 20) for i, p in enumerate(PHASES)}
    fig, ax = plt.subplots(figsize=(12, 2.4 + 0.5 * max(1, len(rep.nodes))))
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
    ax.set_xlabel("minutes since the restart began")
    total = f"{rep.total_restart_secs / 60:.1f} min" if math.isfinite(rep.total_restart_secs) else "never ends"
    ax.set_title(
        f"{result.title} — NDB {result.version}, {result.restart_type} restart: {total} ({rep.status})",
        fontsize=10,
        wrap=True,
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1, fontsize=7, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def _save(fig, path):
    import matplotlib.pyplot as plt

    if path is not None:
        suffix = Path(path).suffix.lower()
        if suffix not in (".png", ".svg", ".pdf"):
            plt.close(fig)
            raise InputError(
                f"{str(path)!r} has no .png, .svg or .pdf suffix; name the chart e.g. restart.png", field="--gantt"
            )
        atomic_write(path, lambda tmp: fig.savefig(tmp, format=suffix[1:], dpi=120, bbox_inches="tight"))
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
