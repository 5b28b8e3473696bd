"""The restart pipeline of one data node, phase by phase as ``ndbinfo.restart_info`` reports it
(reference §1.1, §1.4). Each restart type is a table of steps, one small function per
restart_info column; each phase's duration comes from its mechanism (reference §10): work
amounts in bytes, rows and index entries flow through the node's fluid resources. A rolling
restart is node restarts in waves (``engine.run``). The steps of local recovery (restore, UNDO,
REDO, index rebuild) are ``engine.restart.local_recovery``'s, the copy phase ``engine.restart.copy``'s and the
LCP that ends a restart ``engine.restart.end``'s; here are the protocol's steps (failure handling,
heartbeats, NDBCNTR) and the tables that order them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any

from simpy.events import Event

from ndbsim.engine import fixed_costs, why
from ndbsim.engine.node import Node
from ndbsim.engine.records import NodeRun, Status
from ndbsim.engine.restart import disk_data
from ndbsim.engine.restart.copy import copy_phase
from ndbsim.engine.restart.end import system_restart_lcp, wait_lcp_for_restart, wait_subscription_handover
from ndbsim.engine.restart.local_recovery import exec_redo_log, index_rebuild, restore_fragments, undo_disk_data
from ndbsim.engine.restart.node_restart import NodeRestart
from ndbsim.engine.runtime import Runtime
from ndbsim.input import restart_info as ri
from ndbsim.input.features import Features
from ndbsim.input.profiles import HEARTBEAT_INCLUSION_SECS

MISSED_HEARTBEATS = 4
"""A node is declared dead after 4 missed heartbeats (HeartbeatIntervalDbDb docs, reference
§10): a dead host or a cut network is detected 4 to 5 heartbeat intervals after it happens."""

UNANNOUNCED_FAILURES = ("host-failure", "network-failure")
"""Causes the live nodes learn of only by missed heartbeats: a crashed process's sockets are
closed by its OS, and QmgrMain.cpp's execDISCONNECT_REP fails the node at once."""

Step = Callable[[NodeRestart], Generator[Event, Any, None]]
"""One step of a restart: it records its phase's span(s) on the node's run."""


def skipped(phase: str) -> Step:
    """A phase this restart type does not run: it takes no time."""

    def step(r: NodeRestart) -> Generator[Event, Any, None]:
        r.span(phase, r.rt.env.now)
        yield from ()

    step.__name__ = f"skipped_{phase}"
    return step


# -- from the crash to the heartbeat protocol ----------------------------------------------
def crash(r: NodeRestart) -> Generator[Event, Any, None]:
    """The node goes down: it leaves the LCP and the transactions."""
    rt, node = r.rt, r.node
    rt.take_down(node)
    r.redo_from = node.history[0].start if node.history else r.crash
    r.run.facts.lcp_count_at_crash = rt.lcp.count
    yield from ()


def complete_node_failure(r: NodeRestart) -> Generator[Event, Any, None]:
    """Node failure handling by the live nodes: detection (a dead host or network only) and
    takeover, one GCP."""
    rt = r.rt
    failure = rt.sz.gcp
    detect = 0.0
    if rt.scenario.restart.cause in UNANNOUNCED_FAILURES:
        hb = rt.sz.cfg["HeartbeatIntervalDbDb"] / 1000.0
        detect = hb * (MISSED_HEARTBEATS + float(rt.rng.random()))
        failure += detect
    why.step(r.run, ri.TO_COMPLETE_NODE_FAILURE, gcp_secs=rt.sz.gcp, heartbeat_detection_secs=detect)
    yield from r.timed(ri.TO_COMPLETE_NODE_FAILURE, failure)


def allocate_node_id(r: NodeRestart) -> Generator[Event, Any, None]:
    """The node stays down for the planned downtime, then asks for its node id."""
    downtime = r.rt.scenario.restart.downtime
    why.step(r.run, ri.TO_ALLOCATE_NODE_ID, downtime_secs=downtime)
    yield from r.timed(ri.TO_ALLOCATE_NODE_ID, downtime)
    r.node.down = False


def memory_touch(r: NodeRestart) -> Generator[Event, Any, None]:
    """The node's memory is allocated and touched, as its own release configures it, at the host's
    touch rate (seed 003): ``fixed_costs.touched_memory_bytes``, DataMemory (with IndexMemory) and,
    in the same pass, the page cache of DiskPageBufferMemory and SharedGlobalMemory."""
    rt = r.rt
    cfg = r.own.cfg
    parts = fixed_costs.touched_memory(cfg)
    memory = sum(parts.values())
    why.step(r.run, ri.MEMORY_TOUCH, memory_bytes=memory, touch_rate=rt.sz.host.memory_touch_rate, **parts)
    secs = fixed_costs.memory_touch_secs(memory, rt.sz.host.memory_touch_rate)
    why.paced(r.run, ri.MEMORY_TOUCH, secs)
    yield from r.timed(ri.MEMORY_TOUCH, secs)


def include_in_heartbeat_protocol(r: NodeRestart) -> Generator[Event, Any, None]:
    """QMGR includes one starting node at a time in the heartbeat protocol."""
    rt = r.rt
    t0 = rt.env.now
    with rt.qmgr_gate.request() as req:
        yield req
        waited = rt.env.now - t0
        yield rt.env.timeout(HEARTBEAT_INCLUSION_SECS)
    why.step(
        r.run, ri.TO_INCLUDE_IN_HEARTBEAT_PROTOCOL, queue_wait_secs=waited, inclusion_secs=HEARTBEAT_INCLUSION_SECS
    )
    r.span(ri.TO_INCLUDE_IN_HEARTBEAT_PROTOCOL, t0)


# -- NDBCNTR: start permission and metadata -------------------------------------------------
def init_fragment_log_files(r: NodeRestart) -> Generator[Event, Any, None]:
    """An initial start initialises the REDO log files (NDBCNTR STTOR phase 2), in full with
    InitFragmentLogFiles=FULL; the node's own release creates them."""
    sz = r.own
    redo_init = 0.0
    if sz.cfg["InitFragmentLogFiles"] == "FULL":
        redo_init = sz.redo_capacity / sz.host.disk_write
        why.step(r.run, ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER, redo_log_bytes=sz.redo_capacity)
        why.paced(r.run, ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER, redo_init)
    yield from r.timed(ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER, redo_init)


def wait_for_ndbcntr_master(r: NodeRestart) -> Generator[Event, Any, None]:
    """NDBCNTR's master starts one node at a time: the gate is held to the end of the metadata copy."""
    t0 = r.rt.env.now
    r.gate = r.rt.cntr_gate.request()
    yield r.gate
    if r.rt.env.now > t0:
        why.step(r.run, ri.WAIT_FOR_NDBCNTR_MASTER, waited_secs=r.rt.env.now - t0)
    r.span(ri.WAIT_FOR_NDBCNTR_MASTER, t0)


def get_start_permitted(r: NodeRestart) -> Generator[Event, Any, None]:
    """The master grants the start as soon as the node holds the gate."""
    r.span(ri.TO_GET_START_PERMITTED, r.rt.env.now)
    yield from ()


def wait_for_lcp_for_copy_meta_data(r: NodeRestart) -> Generator[Event, Any, None]:
    """Before 7.4 the metadata copy waits for the running LCP to end; later releases pause it."""
    t0 = r.rt.env.now
    if not r.rt.sz.features.lcp_pause_for_metadata:
        yield r.rt.lcp.idle()
        why.step(r.run, ri.TO_WAIT_FOR_LCP_FOR_COPY_META_DATA, waited_secs=r.rt.env.now - t0)
    r.span(ri.TO_WAIT_FOR_LCP_FOR_COPY_META_DATA, t0)


def copy_meta_data(r: NodeRestart) -> Generator[Event, Any, None]:
    """The dictionary is copied table by table; an initial restart also creates the disk-data files
    the dictionary names, writing each in full (``disk_data.created_file_bytes``); then the NDBCNTR
    gate opens for the next node."""
    rt = r.rt
    data = rt.scenario.data
    t0 = rt.env.now
    files = disk_data.created_file_bytes(data) if r.initial else 0.0
    extra = {"disk_data_file_bytes": files} if files > 0 else {}
    why.step(
        r.run,
        ri.TO_COPY_META_DATA,
        tables=data.table_count,
        ordered_indexes=data.ordered_indexes,
        secs=fixed_costs.metadata_copy_secs(data),
        **extra,
    )
    yield rt.env.timeout(fixed_costs.metadata_copy_secs(data))
    if files > 0:
        flow = rt.fluid.transfer(files, {r.node.disk: 1.0 / rt.sz.host.disk_write}, name=f"files{r.node.id}")
        yield flow.done
    r.span(ri.TO_COPY_META_DATA, t0)
    assert r.gate is not None, "wait_for_ndbcntr_master takes the gate"
    rt.cntr_gate.release(r.gate)


def include_node(r: NodeRestart) -> Generator[Event, Any, None]:
    """Inclusion in the GCP protocol waits for the next global checkpoint."""
    wait = float(r.rt.rng.random()) * r.rt.sz.gcp
    why.step(r.run, ri.TO_INCLUDE_NODE, gcp_secs=r.rt.sz.gcp)
    yield from r.timed(ri.TO_INCLUDE_NODE, wait)


# -- synchronisation ------------------------------------------------------------------------
def synchronize_starting_node(r: NodeRestart) -> Generator[Event, Any, None]:
    """Copy what changed since the crash from a live node, the indexes kept online."""
    yield from copy_phase(r, r.crash, full=False, index_online=True)


def copy_everything(r: NodeRestart) -> Generator[Event, Any, None]:
    """An initial restart's one-pass copy: every row, the indexes kept online."""
    r.copy_since = r.rt.env.now
    yield from copy_phase(r, r.copy_since, full=True, index_online=True)


def copy_without_indexes(r: NodeRestart) -> Generator[Event, Any, None]:
    """First pass of TwoPassInitialNodeRestartCopy: every row, no ordered index maintained. It runs
    from START_FRAGREQ (``SFR_COPY_FRAG``, DbdihMain.cpp ``Dbdih::nr_start_fragment``), outside the
    take-over, so no other starting node of the node group holds it back."""
    r.copy_since = r.rt.env.now
    yield from copy_phase(r, r.copy_since, full=True, index_online=False, takeover=False)


def resynchronize(r: NodeRestart) -> Generator[Event, Any, None]:
    """Second pass: what changed since the first pass began, the indexes now online."""
    yield from copy_phase(r, r.copy_since, full=False, index_online=True)


# -- the tables -------------------------------------------------------------------------------
HEAD: dict[str, tuple[Step, ...]] = {
    "node": (crash, complete_node_failure, allocate_node_id, memory_touch, include_in_heartbeat_protocol),
    # in a system restart no node is left to detect or take over anything
    "system": (
        crash,
        skipped(ri.TO_COMPLETE_NODE_FAILURE),
        allocate_node_id,
        memory_touch,
        include_in_heartbeat_protocol,
    ),
}
"""The steps up to the heartbeat protocol; an initial restart's are a node restart's."""
HEAD["initial"] = HEAD["node"]

_START_PERMISSION = (
    wait_for_ndbcntr_master,
    get_start_permitted,
    wait_for_lcp_for_copy_meta_data,
    copy_meta_data,
    include_node,
    skipped(ri.STARTING_NODE_TO_REQUEST_LOCAL_RECOVERY),
)
_NO_LOCAL_RECOVERY = (skipped(ri.RESTORE_FRAGMENTS), skipped(ri.UNDO_DISK_DATA), skipped(ri.EXEC_REDO_LOG))
_LOCAL_RECOVERY = (restore_fragments, undo_disk_data, exec_redo_log, index_rebuild)
_END = (wait_lcp_for_restart, wait_subscription_handover)

TAIL: dict[str, tuple[Step, ...]] = {
    "node": (
        skipped(ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER),
        *_START_PERMISSION,
        *_LOCAL_RECOVERY,
        synchronize_starting_node,
        *_END,
    ),
    "initial": (
        init_fragment_log_files,
        *_START_PERMISSION,
        *_NO_LOCAL_RECOVERY,
        skipped(ri.INDEX_REBUILD),
        copy_everything,
        *_END,
    ),
    "initial-two-pass": (
        init_fragment_log_files,
        *_START_PERMISSION,
        *_NO_LOCAL_RECOVERY,
        copy_without_indexes,
        index_rebuild,
        resynchronize,
        *_END,
    ),
    # the whole cluster starts together: no master to wait for, no live node to copy from
    "system": (
        skipped(ri.UNTIL_WAIT_FOR_NDBCNTR_MASTER),
        skipped(ri.WAIT_FOR_NDBCNTR_MASTER),
        skipped(ri.TO_GET_START_PERMITTED),
        skipped(ri.TO_WAIT_FOR_LCP_FOR_COPY_META_DATA),
        skipped(ri.TO_COPY_META_DATA),
        include_node,
        skipped(ri.STARTING_NODE_TO_REQUEST_LOCAL_RECOVERY),
        *_LOCAL_RECOVERY,
        skipped(ri.TO_SYNCHRONIZE_STARTING_NODE),
        system_restart_lcp,
        skipped(ri.WAIT_SUBSCRIPTION_HANDOVER),
    ),
}
"""The steps from the heartbeat protocol on, per restart type (``tail_kind``)."""


def tail_kind(kind: str, features: Features) -> str:
    """Which ``TAIL`` an initial or system restart runs (a node restart's may fall back)."""
    if kind == "initial" and features.two_pass_copy:
        return "initial-two-pass"
    return kind


def copy_features(r: NodeRestart) -> Features:
    """The starting node's own features, the two-pass copy as its DIH allows it: its
    TwoPassInitialNodeRestartCopy is turned off when a live node runs another number of LQH
    workers (DbdihMain.cpp, Dbdih::execREAD_NODESCONF; every release modelled with the two-pass
    copy supports its non-transactional COPY_FRAGREQ)."""
    rt, own = r.rt, r.own
    if not (own.features.two_pass_copy and own.ldm > 1) or own is rt.sz:  # no upgrade: one layout
        return own.features
    if any(rt.lqh_workers(n) != own.ldm for n in rt.nodes if n.live):
        return replace(own.features, two_pass_copy=False)
    return own.features


def restart(rt: Runtime, node: Node, kind: str, run: NodeRun) -> Generator[Event, Any, None]:
    """Restart ``node`` (``kind``: node | initial | system; a system restart's nodes run this
    together), recording its phases on ``run``."""
    r = NodeRestart(rt, node, run, crash=rt.env.now, initial=kind == "initial")
    rt.lcp.recovering(node, r.crash, run.spans)
    rt.start_binary(node)
    run.release = rt.scenario.restart.upgrade_to or rt.scenario.version
    own_threads = rt.restarted_as.threads
    run.threads = {
        **{k: v for k, v in own_threads.counts().items() if k != "requested"},
        "restore_threads": own_threads.restore_threads,
        "source": own_threads.source,
    }
    for step in HEAD[kind]:
        yield from step(r)
    if kind == "node" and _falls_back_to_full_copy(r):
        r.initial, kind = True, "initial"
    for step in TAIL[tail_kind(kind, copy_features(r))]:
        yield from step(r)
        if run.status is not Status.OK:
            return
    node.in_lcp = True
    run.end = rt.env.now


def _falls_back_to_full_copy(r: NodeRestart) -> bool:
    """5.1: a node down for ``onr_fallback_lcps`` LCPs or more cannot use its own LCP and
    restarts like an initial node restart (seed 004)."""
    rt = r.rt
    fallback = rt.sz.features.onr_fallback_lcps
    at_crash = r.run.facts.lcp_count_at_crash or 0
    if not fallback or rt.lcp.count - at_crash < fallback:
        return False
    r.run.facts.full_copy_fallback = 1.0
    rt.warnings.append(
        f"node {r.node.id} was down for {fallback} LCPs or more: it restarts like an initial "
        "node restart, copying every row (the 5.1 rule of seed 004); a longer "
        "TimeBetweenLocalCheckpoints or a shorter downtime keeps its own LCP usable"
    )
    return True
