"""Cliffs: settings where one step of a parameter changes a phase by a large factor, named in
the run's warnings so that a what-if landing on one says so (the restart runs as modelled)."""

from __future__ import annotations

from typing import Any


def cliff_warnings(
    cfg: dict[str, Any], kind: str, ldm: int, hw_threads: int, has_indexes: bool, two_pass_available: bool
) -> list[str]:
    """Warnings for the cliffs this ``kind`` of restart (node, initial, system, rolling) with
    ``ldm`` LDM threads on ``hw_threads`` hardware threads sits on; ``two_pass_available``: the
    release has TwoPassInitialNodeRestartCopy (7.6.4+)."""
    out = []
    build = int(cfg.get("BuildIndexThreads") or 0)
    if has_indexes and 0 < build < min(ldm, hw_threads):
        out.append(
            f"BuildIndexThreads={build} rebuilds the ordered indexes in {build} thread"
            f"{'s' if build != 1 else ''}, fewer than the {ldm} LDM threads that rebuild them with "
            f"BuildIndexThreads=0: secs_index_rebuild is about {ldm / build:.0f}× longer; use 0, or "
            f"{hw_threads} or more to use every hardware thread (the 7.6 default is 128)"
        )
    copies = int(cfg.get("MaxParallelCopyInstances") or 0)
    if kind != "system" and 0 < copies < ldm:
        out.append(
            f"MaxParallelCopyInstances={copies} copies with {copies} instance{'s' if copies != 1 else ''} "
            f"instead of one per LDM thread ({ldm}): secs_to_synchronize_starting_node is up to "
            f"{ldm / copies:.0f}× longer; use 0 (one per LDM thread)"
        )
    if kind == "initial" and has_indexes and two_pass_available and not cfg.get("TwoPassInitialNodeRestartCopy"):
        out.append(
            "TwoPassInitialNodeRestartCopy=false: the initial copy maintains every ordered index row "
            "by row instead of rebuilding them afterwards on all cores; set it to true"
        )
    return out
