"""The transaction stream's rates, from the scenario's ``workload``: the base load, a burst
before the restart (``workload.before_restart``), and the load while the restart runs
(``workload.during_restart``; none for a system restart). The first step after the sizing of
``engine.prepare``: the write speeds, the steady cycles and the plan are worked out for these
rates, each ``Rates`` object the one the simulation's stream runs at."""

from __future__ import annotations

from dataclasses import dataclass

from ndbsim.engine.workload import Rates
from ndbsim.input.scenario import PartialRates, Resolved, Workload


@dataclass(frozen=True)
class Stream:
    """The stream's cluster-wide rates over the simulation."""

    base: Rates
    burst: Rates | None
    """``workload.before_restart`` merged into the base rates; None without a burst."""
    burst_secs: float
    during: Rates
    """The rates while the restart runs (none for a system restart)."""
    warnings: tuple[str, ...]
    """What the rates leave out (a burst's growth, a system restart's ignored load)."""

    @property
    def bursting(self) -> bool:
        """Whether a burst runs before the restart."""
        return self.burst is not None and self.burst_secs > 0

    def rates(self) -> list[Rates]:
        """Every distinct ``Rates`` the stream runs at, each once."""
        out: list[Rates] = []
        for r in (self.base, self.burst, self.during):
            if r is not None and all(r is not x for x in out):
                out.append(r)
        return out


def _merged(base: Rates, over: PartialRates | None) -> Rates:
    """``over``'s rates where it gives them, else ``base``'s."""
    if over is None:
        return base

    def given(value: float | None, default: float) -> float:
        return default if value is None else value

    return Rates(
        given(over.updates_per_s, base.updates),
        given(over.inserts_per_s, base.inserts),
        given(over.deletes_per_s, base.deletes),
        given(over.bytes_per_change, base.bytes_per_change),
    )


def stream_of(resolved: Resolved, rows: float) -> Stream:
    """The stream of ``resolved``'s ``workload``; ``rows``: the rows the data holds."""
    s = resolved.scenario
    w: Workload = s.workload
    warnings: list[str] = []
    base = Rates(w.updates_per_s, w.inserts_per_s, w.deletes_per_s, w.bytes_per_change)
    burst = _merged(base, w.before_restart) if w.before_restart else None
    burst_secs = w.before_restart.duration if w.before_restart else 0.0
    if burst is not None:
        grown = (burst.inserts - burst.deletes) * burst_secs
        if rows and grown > 0.5 * rows:
            warnings.append(
                f"workload.before_restart inserts {grown:,.0f} rows net, {grown / rows:.0%} of data.rows "
                f"({rows:,.0f}): ndbsim models the data at its size at the crash throughout, so the "
                "LCPs of the burst are sized as if the table had been that big all along; raise data.rows "
                "or shorten the burst"
            )
    during = _merged(base, w.during_restart)
    if s.restart.type == "system":
        # the whole cluster is down: no transaction runs until the system restart completes
        if w.during_restart is not None and during.rows > 0:
            warnings.append(
                "workload.during_restart is ignored for a system restart: the cluster "
                "runs no transactions until it has restarted"
            )
        during = Rates(bytes_per_change=base.bytes_per_change)
    return Stream(base, burst, burst_secs, during, tuple(warnings))
