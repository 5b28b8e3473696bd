"""Where a restart stands in a snapshot: each node of the scenario's plan done, restarting (in
which phase, for how long) or waiting, and the wave running now.

A rolling restart runs its waves one after another (``restart.plan``), so the wave running is
the first one with a node not done; the waves before it are done, the ones after it wait.
restart_info keeps each node's *last* restart, so a node of a later wave may still show a
completed restart from before this one: its row is not this restart's and is not used.

How long the phase in progress has run is not in restart_info (its column is 0 until it ends,
``ndbsim.input.snapshot.status``). It is estimated from ``nodes.uptime``, which counts from the
data node process's start: the node id is allocated when the process starts, so the time since
then less the columns finished after ``secs_to_allocate_node_id`` is the current phase's time so
far (each column is rounded down to whole seconds, so this is up to one second per column
long). Before the process runs (node failure handling, the planned downtime) there is no uptime:
``--watch`` then counts from the first snapshot that showed the state; a single snapshot takes
the phase as just begun.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ndbsim.errors import InputError
from ndbsim.input.restart_info import COLUMNS, TO_ALLOCATE_NODE_ID
from ndbsim.input.snapshot.read import NodeRow, Snapshot

DONE, RESTARTING, WAITING = "done", "restarting", "waiting"


@dataclass
class NodeProgress:
    node_id: int
    wave: int
    status: str
    """``done``, ``restarting`` or ``waiting``."""
    row: NodeRow
    phase: str | None = None
    """The restart_info column in progress (restarting nodes)."""
    finished: dict[str, float] = field(default_factory=dict)
    """This restart's final columns (done and restarting nodes; empty when not usable)."""
    total: float = 0.0
    """A done node's measured ``total_restart_secs``."""
    in_phase: float = 0.0
    """Seconds the phase in progress has run, as far as the snapshot tells (``in_phase_from``)."""
    in_phase_from: str = ""
    """``nodes.uptime``, ``watched`` (first seen in --watch) or ``unknown`` (taken as 0)."""

    @property
    def elapsed(self) -> float:
        """Seconds since this node's restart began: its finished columns and the current phase."""
        if self.status == DONE:
            return self.total
        return sum(self.finished.values()) + self.in_phase


@dataclass
class Progress:
    sampled_at: float
    waves: list[list[int]]
    nodes: dict[int, NodeProgress]
    current: int | None
    """The index (0-based) of the wave running; None: every wave is done."""
    unused: list[str] = field(default_factory=list)
    """The snapshot's restart_info rows not used, each with why (``unused_rows``)."""

    @property
    def complete(self) -> bool:
        return self.current is None

    def wave_nodes(self, i: int) -> list[NodeProgress]:
        return [self.nodes[n] for n in self.waves[i]]

    @property
    def spent(self) -> float:
        """Seconds since the plan began, as the rows tell: the earlier waves' slowest node totals,
        then the running wave's longest elapsed (the gaps between waves are not in restart_info)."""
        end = len(self.waves) if self.current is None else self.current
        done = sum(max(n.total for n in self.wave_nodes(i)) for i in range(end))
        running = 0.0 if self.current is None else max(n.elapsed for n in self.wave_nodes(self.current))
        return done + running


def check_nodes(snap: Snapshot, data_nodes: list[int], scenario: str) -> None:
    """Every node of the snapshot must be a data node of the scenario's cluster."""
    seen = sorted(snap.nodes)
    strangers = [n for n in seen if n not in data_nodes]
    if not strangers:
        return
    have = ", ".join(map(str, data_nodes))
    if len(strangers) == len(seen):
        raise InputError(
            f"the snapshot's data nodes {', '.join(map(str, seen))} are none of the scenario {scenario!r}'s NodeIds "
            f"({have}): it is another cluster's; give that cluster's scenario (ndbsim init --ndbinfo) or take the "
            "snapshot from an SQL node of this cluster",
            field="node_id",
            source=snap.source,
        )
    raise InputError(
        f"node {', '.join(map(str, strangers))} is in the snapshot but not a data node of the scenario {scenario!r} "
        f"(NodeIds {have}); give the scenario that cluster's NodeIds (cluster.node_ids, or ndbsim init --config-ini)",
        field="node_id",
        source=snap.source,
    )


def check_plan(snap: Snapshot, waves: list[list[int]], scenario: str) -> None:
    """Every node restarting in the snapshot must be one the scenario restarts: else the scenario
    simulates another restart than the one under way (a node restart of one node while a rolling
    restart runs), and its waves would call the plan waiting or done."""
    planned = [n for w in waves for n in w]
    running = sorted(n for n, r in snap.nodes.items() if r.state is not None and not r.state.complete)
    strangers = [n for n in running if n not in planned]
    if not strangers:
        return
    many = len(strangers) > 1
    raise InputError(
        f"node{'s' if many else ''} {', '.join(map(str, strangers))} {'are' if many else 'is'} restarting in the "
        f"snapshot {snap.source} but the scenario restarts node{'s' if len(planned) > 1 else ''} "
        f"{', '.join(map(str, planned))}; give it the restart under way (--set restart.type=rolling, or "
        f"--set restart.nodes=[{','.join(map(str, running))}])",
        field="restart.nodes",
        source=scenario,
    )


def _in_phase(row: NodeRow, first_seen: dict[tuple[int, str], float], at: float) -> tuple[float, str]:
    assert row.state is not None
    after_alloc = COLUMNS.index(TO_ALLOCATE_NODE_ID) + 1
    if row.state.finished >= after_alloc and row.uptime is not None and not row.state.coarse:
        since = sum(row.columns.get(c, 0.0) for c in COLUMNS[after_alloc : row.state.finished])
        return max(0.0, row.uptime - since), "nodes.uptime"
    seen = first_seen.get((row.node_id, row.state.name))
    if seen is not None:
        return max(0.0, at - seen), "watched"
    return 0.0, "unknown"


def _node(n: int, wave: int, row: NodeRow, now_running: bool, first_seen: dict, at: float) -> NodeProgress:
    """Node ``n`` of a wave before the running one or of the running one (``now_running``: its
    restart is this one's, seen restarting or in a wave under way)."""
    state = row.state
    if state is None or (state.complete and not now_running):
        return NodeProgress(n, wave, WAITING, row)
    if state.complete:
        cols = {} if state.coarse else dict(row.columns)
        return NodeProgress(n, wave, DONE, row, finished=cols, total=row.total)
    secs, how = _in_phase(row, first_seen, at)
    return NodeProgress(n, wave, RESTARTING, row, state.current, dict(row.columns), in_phase=secs, in_phase_from=how)


def _current(waves: list[list[int]], rows: dict[int, NodeRow], seen: set[int]) -> int | None:
    """The running wave: the first with a node restarting; with none, the wave after the last one
    seen restarting (a watch between two waves), or None when every wave is done."""
    for i, w in enumerate(waves):
        if any(rows[n].state is not None and not rows[n].state.complete for n in w):  # type: ignore[union-attr]
            return i
    last = max((i for i, w in enumerate(waves) if any(n in seen for n in w)), default=None)
    if last is None or last + 1 >= len(waves):
        return None
    return last + 1


def progress(
    snap: Snapshot,
    waves: list[list[int]],
    first_seen: dict[tuple[int, str], float] | None = None,
    seen: set[int] | None = None,
) -> Progress:
    """Where the plan ``waves`` stands in ``snap``. ``first_seen`` maps (node, state) to the time a
    watch first saw it; ``seen`` holds the nodes a watch has seen restarting (a single snapshot:
    those restarting in it)."""
    rows = {n: snap.nodes.get(n) or NodeRow(n) for w in waves for n in w}
    restarting = {n for n, r in rows.items() if r.state is not None and not r.state.complete}
    seen_all = (seen or set()) | restarting
    current = _current(waves, rows, seen_all)
    nodes: dict[int, NodeProgress] = {}
    for i, w in enumerate(waves):
        under_way = any(n in restarting for n in w)
        for n in w:
            if current is not None and i > current:
                nodes[n] = NodeProgress(n, i + 1, WAITING, rows[n])
                continue
            now = current is None or i < current or under_way or n in seen_all
            nodes[n] = _node(n, i + 1, rows[n], now, first_seen or {}, snap.sampled_at)
    return Progress(snap.sampled_at, waves, nodes, current, unused_rows(snap, waves, nodes))


def unused_rows(snap: Snapshot, waves: list[list[int]], nodes: dict[int, NodeProgress]) -> list[str]:
    """The restart_info rows of nodes not restarting now, each named once with why it is not used:
    restart_info keeps a node's last restart, so a node the plan has not reached, or one the
    scenario does not restart, shows an earlier restart's row."""
    planned = {n for w in waves for n in w}
    out = []
    for n in sorted(snap.nodes):
        if snap.nodes[n].state is None:
            continue
        if n not in planned:
            why = "the scenario does not restart it"
        elif nodes[n].status == WAITING:
            why = "it is not restarting now"
        else:
            continue
        out.append(f"node {n}'s restart_info row is of an earlier restart ({why}): not used")
    return out
