"""The terminal phase table of an InnoDB crash recovery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.innodb.explain import header_lines
from ndbsim.input.units import format_secs
from ndbsim.output.interval import interval_lines

if TYPE_CHECKING:
    from ndbsim.innodb import InnodbResult


def innodb_table(result: InnodbResult, overrides: list[str] | None = None, *, warnings: bool = True) -> str:
    """The phase table of an InnoDB crash recovery (seed 002). Under the title, the
    ``overrides`` (the ``--set`` assignments), then what was simulated and which values were
    defaulted (``innodb.explain.header_lines``); at the end the warnings, unless ``warnings`` is
    False (the command line prints them on stderr)."""
    ph = result.phases()
    rep = result.spread()
    out = [
        result.name,
        f"InnoDB {result.version} · crash recovery · seed {result.seed}"
        + (f" · {rep['n']} replications (medians)" if rep["n"] > 1 else ""),
    ]
    if overrides:
        out.append("with --set " + ", ".join(a.strip() for a in overrides))
    if result.explained:
        out.extend(header_lines(result.explained))
    out.append("")
    for p, v in ph.items():
        note = "   (background, after the server is up)" if p == "secs_rollback" else ""
        out.append(f"{p:40s}{v:10.1f} s{note}")
    out.append(f"{'downtime (total_restart_secs)':40s}{format_secs(result.total_restart_secs):>12s}")
    out.extend(interval_lines(result.interval()))
    out.append(f"status: {result.status}" + (f" — {result.reason}" if result.reason else ""))
    if warnings:
        out.extend(f"warning: {w}" for w in result.warnings)
    return "\n".join(out) + "\n"
