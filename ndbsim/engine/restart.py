"""The restart pipeline of one data node, phase by phase as ``ndbinfo.restart_info`` reports it
(reference §1.1, §1.4). Each phase's duration comes from its mechanism (reference §10):
work amounts in bytes, rows and index entries flow through the node's fluid resources.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from simpy.events import Event

from ndbsim.engine.checkpoint import LcpRecord
from ndbsim.engine.cluster import Cluster, Node
from ndbsim.profiles import HEARTBEAT_INCLUSION_SECS, METADATA_SECS_PER_TABLE, SCAN_ROW_SECS

COPY_STEPS_MAX = 32
"""The copy phase runs table by table, each table shipping what changed until it starts (the
moving target); beyond this many tables, tables are grouped into this many equal steps so that
the events per copy stay bounded. A numerical resolution, not an NDB value: with up to 32
tables every table is its own step."""

MISSED_HEARTBEATS = 4
"""A node is declared dead after 4 missed heartbeats (HeartbeatIntervalDbDb docs, reference
§10): a crash is detected 4 to 5 heartbeat intervals after it happens."""


@dataclass
class NodeRun:
    """What happened to one restarting node."""

    node_id: int
    kind: str
    start: float
    end: float = math.nan
    status: str = "ok"
    reason: str = ""
    spans: list[tuple[str, float, float]] = field(default_factory=list)
    facts: dict[str, float] = field(default_factory=dict)


class Restarter:
    """Runs restart pipelines against a ``Cluster``."""

    def __init__(self, cluster: Cluster):
        self.c = cluster
        self.env = cluster.env

    # -- helpers ------------------------------------------------------------------------
    def _span(self, run: NodeRun, phase: str, t0: float) -> None:
        run.spans.append((phase, t0, self.env.now))

    def _timed(self, run: NodeRun, phase: str, secs: float) -> Generator[Event, Any, None]:
        t0 = self.env.now
        if secs > 0:
            yield self.env.timeout(secs)
        self._span(run, phase, t0)

    def _work(
        self, node: Node, amount: float, cpu_per_unit: float, threads: float, disk_per_unit: float = 0.0, name: str = ""
    ) -> Generator[Event, Any, None]:
        """Work spread over ``threads`` threads of one node; its CPU use is capped at what
        those threads can get from the cores (hyperthreads count ``hyperthread_gain``)."""
        cores = self.c.cores(threads)
        demand = {node.cpu: cpu_per_unit}
        if disk_per_unit:
            demand[node.disk] = disk_per_unit
        cap = cores / cpu_per_unit if cpu_per_unit > 0 else math.inf
        flow = self.c.fluid.transfer(amount, demand, cap=cap, name=name)
        yield flow.done

    # -- the pipeline ---------------------------------------------------------------------
    def restart(self, node: Node, kind: str, run: NodeRun) -> Generator[Event, Any, None]:
        """``kind``: node | initial | system. A system restart's nodes run this together."""
        c, env, cfg, s, k = self.c, self.env, self.c.cfg, self.c.s, self.c.k
        crash = env.now
        c.lcp.settle()  # skipped LCP cycles up to now are the cluster's as it was before this crash
        node.restarting, node.in_lcp, node.down = True, False, True
        node.redo_floor = math.inf  # logs no REDO until it is back in the transactions
        with c.fluid.batch:
            c.lcp.drop(node)
            c.apply_live_load(node, None)
            c.lcp.refresh_speeds()
        redo_from = node.history[0].start if node.history else crash
        run.facts["lcp_count_at_crash"] = c.lcp.count

        # node failure handling by the live nodes: detection (crash only) and takeover, one GCP;
        # in a system restart no node is left to detect or take over anything
        failure = 0.0
        if kind != "system":
            failure = c.gcp
            if s.restart.cause == "crash":
                hb = cfg["HeartbeatIntervalDbDb"] / 1000.0
                failure += hb * (MISSED_HEARTBEATS + float(c.rng.random()))
        yield from self._timed(run, "secs_to_complete_node_failure", failure)
        yield from self._timed(run, "secs_to_allocate_node_id", s.restart.downtime)
        node.down = False
        memory = cfg["DataMemory"] + (cfg.get("IndexMemory") or 0.0)
        yield from self._timed(run, "secs_memory_touch", memory / (k.memory_touch_rate * s.host.core_speed))

        t0 = env.now
        with c.qmgr_gate.request() as req:
            yield req
            yield env.timeout(HEARTBEAT_INCLUSION_SECS)
        self._span(run, "secs_to_include_in_heartbeat_protocol", t0)

        initial = kind == "initial"
        fallback = c.mech.onr_fallback_lcps
        if kind == "node" and fallback and c.lcp.count - run.facts["lcp_count_at_crash"] >= fallback:
            initial = True
            run.facts["full_copy_fallback"] = 1.0
            c.warnings.append(
                f"node {node.id} was down for {fallback} LCPs or more: it restarts like an initial "
                "node restart, copying every row (the 5.1 rule of seed 004); a longer "
                "TimeBetweenLocalCheckpoints or a shorter downtime keeps its own LCP usable"
            )
        # initial starts initialise the REDO log files (NDBCNTR STTOR phase 2)
        redo_init = 0.0
        if initial and cfg["InitFragmentLogFiles"] == "FULL":
            redo_init = c.redo_capacity / s.host.disk_write
        yield from self._timed(run, "secs_until_wait_for_ndbcntr_master", redo_init)

        if kind == "system":
            for phase in (
                "secs_wait_for_ndbcntr_master",
                "secs_to_get_start_permitted",
                "secs_to_wait_for_lcp_for_copy_meta_data",
                "secs_to_copy_meta_data",
            ):
                self._span(run, phase, env.now)
        else:
            t0 = env.now
            gate = c.cntr_gate.request()
            yield gate
            self._span(run, "secs_wait_for_ndbcntr_master", t0)
            self._span(run, "secs_to_get_start_permitted", env.now)
            t0 = env.now
            if not c.mech.lcp_pause_for_metadata:
                yield c.lcp.idle()
            self._span(run, "secs_to_wait_for_lcp_for_copy_meta_data", t0)
            yield from self._timed(run, "secs_to_copy_meta_data", s.data.tables * METADATA_SECS_PER_TABLE)
            c.cntr_gate.release(gate)
        # inclusion in the GCP protocol waits for the next global checkpoint
        yield from self._timed(run, "secs_to_include_node", float(c.rng.random()) * c.gcp)
        self._span(run, "secs_starting_node_to_request_local_recovery", env.now)

        ldm = c.ldm
        rows, data = c.rows, c.data_bytes
        if initial:
            for phase in ("secs_restore_fragments", "secs_undo_disk_data", "secs_exec_redo_log"):
                self._span(run, phase, env.now)
            ok = yield from self._initial_copy(node, run)
            if not ok:
                return
        else:
            # restore the LCP(s) on disk
            work = c.policy.restore_work(data, rows, node.history, c.steady)
            run.facts.update(restore_bytes=work.bytes_read, restore_rows=work.rows_applied, restore_lcps=work.lcps)
            t0 = env.now
            yield from self._work(
                node,
                work.bytes_read,
                work.rows_applied / work.bytes_read * k.restore_row_secs,
                ldm,
                1.0 / s.host.disk_read,
                "restore",
            )
            self._span(run, "secs_restore_fragments", t0)
            # REDO written since the restored LCP started; disk-data pages also need UNDO
            redo = c.redo_since(redo_from, crash)
            if redo > c.redo_capacity:  # the log cannot hold more: writes had aborted with error 410
                run.facts["redo_bytes_wanted"] = redo
                redo = c.redo_capacity
            disk_share = s.data.disk_data_size / (s.data.disk_data_size + data)
            undo = redo * disk_share
            run.facts.update(redo_bytes=redo, undo_bytes=undo)
            t0 = env.now
            if undo > 0:
                yield from self._work(
                    node, undo, k.redo_byte_secs, ldm if c.mech.parallel_undo else 1, 1.0 / s.host.disk_read, "undo"
                )
            self._span(run, "secs_undo_disk_data", t0)
            t0 = env.now
            yield from self._work(node, redo, k.redo_byte_secs, ldm, 1.0 / s.host.disk_read, "redo")
            self._span(run, "secs_exec_redo_log", t0)
            t0 = env.now
            yield from self._index_rebuild(node)
            self._span(run, "secs_index_rebuild", t0)
            if kind == "system":
                self._span(run, "secs_to_synchronize_starting_node", env.now)
            else:
                ok = yield from self._copy(
                    node, run, crash, full=False, index_online=True, phase="secs_to_synchronize_starting_node"
                )
                if not ok:
                    return

        # wait for an LCP that makes the node recoverable
        t0 = env.now
        if kind != "system" and not self._local_lcp():
            node.redo_floor = t0  # logging is enabled once the copy is done (END_TOREQ, reference §1.4)
        if kind != "system":
            if self._local_lcp():
                changes = c.node_changes_since(node, redo_from, env.now)
                size, pct = c.policy.lcp_size(data, rows, changes, first=initial)
                run.facts["local_lcp_bytes"] = size
                flow = c.lcp_flow(node, size, c.write_speed(node))
                yield flow.done
                run.facts["local_lcp_secs"] = env.now - t0
                # the local LCP is now this node's newest checkpoint (an initial restart's only one)
                rec = LcpRecord(t0, env.now, pct, changes.updates + changes.inserts, changes.bytes, size)
                node.history = [rec] if initial else [rec, *node.history]
                node.redo_floor = env.now  # 7.6 activates REDO logging after the local LCP
            node.in_lcp = True
            yield c.lcp.request()
        else:
            node.redo_floor = env.now  # a system restart logs again once the cluster is started
        self._span(run, "secs_wait_lcp_for_restart", t0)
        node.restarting = False
        c.lcp.refresh_speeds()
        # SUMA hands the node its share of the event subscriptions from the live nodes; after a
        # system restart there is no live node to hand any over
        handover = k.suma_handover_gcps * c.gcp if kind != "system" else 0.0
        yield from self._timed(run, "secs_wait_subscription_handover", handover)
        node.in_lcp = True
        run.end = env.now

    def _local_lcp(self) -> bool:
        """Whether a node restart ends with a local LCP (partial LCP on 7.6+, reference §3)."""
        return self.c.policy.local_lcp_at_restart_end and self.c.mech.local_lcp_at_restart_end

    def _index_rebuild(self, node: Node) -> Generator[Event, Any, None]:
        c, s, k, cfg = self.c, self.c.s, self.c.k, self.c.cfg
        entries = c.rows * s.data.ordered_indexes / s.data.tables
        if entries <= 0:
            return
        fragments = s.data.tables * c.ldm * c.replicas
        hw = s.host.cpu_cores * s.host.threads_per_core
        build = cfg["BuildIndexThreads"]
        threads = min(build, fragments, hw) if build > 0 and fragments > 1 else c.ldm
        yield from self._work(node, entries, k.index_entry_secs, threads, name="index")

    def _copy_instances(self) -> int:
        cap = self.c.cfg["MaxParallelCopyInstances"]
        return min(self.c.ldm, cap) if cap else self.c.ldm

    def _copy(
        self, node: Node, run: NodeRun, since: float, full: bool, index_online: bool, phase: str
    ) -> Generator[Event, Any, bool]:
        """Synchronise with the live node, table by table (``COPY_STEPS_MAX``). The live node scans every row and
        ships those changed since ``since`` (all rows for a full copy); the starting node has
        joined all transactions, so it also applies the live stream as it arrives. A table
        copied later has collected more changes: the target moves while the copy runs."""
        c, env, s, k = self.c, self.env, self.c.s, self.c.k
        t0 = env.now
        peers = c.peers(node)
        if not peers:
            run.status, run.reason = "error", "no live node in the node group to copy from"
            run.end = env.now
            self._span(run, phase, t0)
            return False
        live = peers[0]
        c.apply_live_load(node, c.restart_rates)
        row_size = c.data_bytes / c.rows if c.rows else 0.0
        index_per_row = s.data.ordered_indexes / s.data.tables * k.index_entry_secs if index_online else 0.0
        per_row_apply = k.restore_row_secs + index_per_row  # a live change applied on the starting node
        # The starting node's LDM threads apply the live stream and run the copy: the copy gets
        # what the stream leaves. It never converges if the stream alone saturates the LDM
        # threads, the node's cores or the link from the live node.
        stream_rows = c.restart_rates.rows / c.groups
        h = s.host
        ldm_cores = c.ldm_cores
        copy_cores = c.cores(self._copy_instances())
        need = stream_rows * per_row_apply
        stream_bytes = c.restart_rates.bytes / c.groups
        limit = None
        if need >= ldm_cores:
            limit = (
                f"applying {stream_rows:,.0f} changed rows/s needs {need:.1f} cores of the starting node's "
                f"{c.ldm} LDM threads, which give {ldm_cores:.1f}; lower the update rate during the restart "
                "or add LDM threads"
            )
        elif c.fluid.spare(node.cpu) <= 0:
            limit = "the starting node's cores are saturated by the live stream; lower the update rate"
        elif c.fluid.spare(node.net) <= 0:
            limit = (
                f"the live stream alone sends {stream_bytes / 1e6:,.0f} MB/s to the starting node over a "
                f"{h.network * 8 / 1e9:g} Gbit/s link; lower the update rate or use a faster network"
            )
        apply_cores = copy_cores * (1.0 - need / ldm_cores) if not limit else 0.0
        if not limit and not full:
            # Updates hit the same rows again (the target saturates at every row), but each
            # insert and delete is one more row to ship: if they arrive faster than the copy
            # can ship rows at best, every table copied later has more to ship, without end.
            grow = (c.restart_rates.inserts + c.restart_rates.deletes) / c.groups
            best = apply_cores / (k.copy_row_secs + index_per_row)
            if row_size > 0:
                best = min(best, c.fluid.spare(node.net) / row_size)
            if grow >= best:
                limit = (
                    f"inserts and deletes add {grow:,.0f} rows/s to ship, more than the copy's best "
                    f"{best:,.0f} rows/s; lower the insert and delete rates during the restart or raise "
                    "MaxParallelCopyInstances"
                )
        if limit:
            run.status = "non-converging"
            run.reason = "the copy phase never converges: " + limit
            run.end = math.inf
            run.spans.append((phase, t0, math.inf))  # the copy would never end
            return False
        shipped_total = 0.0
        steps = min(s.data.tables, COPY_STEPS_MAX)
        for _ in range(steps):
            if full:
                ship = c.rows / steps
            else:
                ship = c.traffic.distinct_rows(since, env.now, c.rows, c.max_rows) / steps
            scan = c.rows / steps
            shipped_total += ship
            demand = {
                node.cpu: ship * (0.5 * k.copy_row_secs + index_per_row),
                live.cpu: scan * SCAN_ROW_SECS + ship * 0.5 * k.copy_row_secs,
                node.net: ship * row_size,
            }
            # A copy instance is a pair of threads, one on each side, exchanging rows
            # request by request (COPY_FRAGREQ scan -> LQHKEYREQ per row): each pays both
            # sides' per-row cost in series.
            per_chunk = demand[node.cpu] + demand[live.cpu]
            cap = apply_cores / per_chunk if per_chunk > 0 else math.inf
            flow = c.fluid.transfer(1.0, demand, cap=cap, name=f"copy{node.id}")
            yield flow.done
        run.facts["copied_rows"] = run.facts.get("copied_rows", 0.0) + shipped_total  # both passes
        self._span(run, phase, t0)
        return True

    def _initial_copy(self, node: Node, run: NodeRun) -> Generator[Event, Any, bool]:
        """Initial node restart: everything comes from the live node. Two-pass (7.6+): copy
        without ordered indexes, rebuild them offline, then resynchronise what changed."""
        c, env = self.c, self.env
        # TwoPassInitialNodeRestartCopy came with 7.6.4, the release of the partial LCP
        two_pass = c.mech.partial_lcp_available and bool(c.cfg["TwoPassInitialNodeRestartCopy"])
        pass1_start = env.now
        if two_pass:
            ok = yield from self._copy(
                node, run, pass1_start, full=True, index_online=False, phase="secs_to_synchronize_starting_node"
            )
            if not ok:
                return False
            t0 = env.now
            yield from self._index_rebuild(node)
            self._span(run, "secs_index_rebuild", t0)
            ok = yield from self._copy(
                node, run, pass1_start, full=False, index_online=True, phase="secs_to_synchronize_starting_node"
            )
            return ok
        self._span(run, "secs_index_rebuild", env.now)
        ok = yield from self._copy(
            node, run, pass1_start, full=True, index_online=True, phase="secs_to_synchronize_starting_node"
        )
        return ok
