"""The why of every phase in words (``ndbsim run --why``, ``ndbsim compare``): the bottleneck, the
driving quantity and its figures, as the engine recorded them (``engine.why``)."""

from __future__ import annotations

from typing import Any

from ndbsim.input.units import format_bytes, format_secs

BYTES_SUFFIXES = ("bytes", "_bytes_read", "_write_speed", "touch_rate", "MaxDiskWriteSpeed")
"""Figures shown as bytes (a name ending so), per second for the speeds and rates."""


def figure(name: str, value: Any) -> str:
    """One figure as a DBA reads it: bytes and speeds in units, seconds as a duration."""
    if not isinstance(value, (int, float)):
        return f"{name}={value}"
    if name.endswith("_secs"):
        return f"{name}={format_secs(value)}" if value >= 60 else f"{name}={value:.3g}s"
    if name.endswith(BYTES_SUFFIXES):
        per = "/s" if name.endswith(("speed", "rate", "MaxDiskWriteSpeed")) else ""
        return f"{name}={format_bytes(value)}{per}"
    if float(value).is_integer():
        return f"{name}={int(value):,}"
    return f"{name}={value:,.3g}" if abs(value) < 1000 else f"{name}={value:,.0f}"


def why_text(entry: dict[str, Any]) -> str:
    """A phase's why on one line: bottleneck — quantity (figures); mechanism."""
    figs = ", ".join(figure(k, v) for k, v in entry.get("figures", {}).items())
    bound = entry.get("bound_secs") or {}
    share = ""
    if len(bound) > 1:
        total = sum(bound.values()) or 1.0
        share = " [" + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in bound.items()) + "]"
    text = f"{entry['bottleneck']}{share} — {entry['quantity']}" + (f" ({figs})" if figs else "")
    if entry.get("mechanism"):
        text += f"; {entry['mechanism']}"
    return text


def why_lines(nodes: list[dict[str, Any]], phases: dict[int, dict[str, float]]) -> list[str]:
    """The why of every phase that took time, per node (``nodes``: the JSON's ``nodes``;
    ``phases``: each node's median seconds per phase): the bottleneck and driving quantity on the
    phase's line, its figures on the next."""
    out = ["why each phase took its time (bottleneck — driving quantity (figures), replication 1):"]
    for n in nodes:
        nid = n["node_id"]
        out.append(f"node {nid}")
        for phase, entry in n.get("why", {}).items():
            secs = phases[nid].get(phase, 0.0)
            if secs <= 0:
                continue
            out.append(f"  {phase} {secs:.1f} s: {why_text({**entry, 'figures': {}})}")
            figs = ", ".join(figure(k, v) for k, v in entry.get("figures", {}).items())
            if figs:  # on a line of their own, which ``output.stdout.fit`` continues under it
                out.append(f"      ({figs})")
    out.append("")
    return out
