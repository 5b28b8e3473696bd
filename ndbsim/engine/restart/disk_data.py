"""Disk-data tables at restart: what their disk columns cost. A disk-data table keeps its indexed
columns in DataMemory and its other columns on disk, in the tablespace's data files (TSMAN), read
and written through the page cache of DiskPageBufferMemory (PGMAN) and protected by the UNDO log
of the log file group (LGMAN). Every change of a disk column writes an UNDO record with the old
disk part and dirties its disk page (DbtupDiskAlloc.cpp, ``Dbtup::disk_page_undo_update``,
``disk_page_undo_alloc``, ``disk_page_undo_free``); a restart applies the UNDO back to the restored
LCP's start (``Dbtup::disk_restart_undo``, each page fetched through PGMAN to compare its LSN),
every LCP writes the dirty pages of the page cache (``Pgman`` LCP sync), and an initial restart
creates the data and UNDO files in full (Ndbfs ``AsyncFile::openReq`` with ``OM_INIT``) and copies
every row with its disk part.

Here are the figures of one node that the restart steps (``local_recovery``, ``copy``,
``pipeline``, ``end``) turn into flows; none depends on simulated time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ndbsim.engine.workload import Changes
from ndbsim.input.scenario import Data, Scenario

DISK_PAGE_BYTES = 32768
"""A disk-data page is 32 KB, the unit PGMAN reads, caches and writes (``File_formats::NDB_PAGE_SIZE``,
GLOBAL_PAGE_SIZE; the manual's DiskPageBufferMemory text counts the cache in these pages)."""

UNDO_RECORD_HEADER_BYTES = 24
"""An UNDO record's bytes besides the disk part it saves: DBTUP's ``Disk_undo`` header (file and
page number, page index, GCI, type and length: four words, DbtupDiskAlloc.cpp) and the 64-bit LSN
LGMAN puts before it (``Lgman::add_entry``): 6 words."""


def update_share(s: Scenario) -> float:
    """Share of the changed rows that change a disk column (``workload.disk_update_share``, by
    default the disk columns' share of a row's bytes; 0 without disk data)."""
    d = s.data
    if d.disk_data_size <= 0:
        return 0.0
    share = s.workload.disk_update_share
    return share if share is not None else d.disk_data_size / (d.size + d.disk_data_size)


def row_bytes(d: Data) -> float:
    """A row's disk part: the disk data spread over the rows."""
    rows = d.row_count
    return d.disk_data_size / rows if rows > 0 else 0.0


def disk_changes(s: Scenario, c: Changes) -> float:
    """Changes (on one node) that changed a disk column: each wrote one UNDO record."""
    return update_share(s) * (c.updates + c.inserts + c.deletes)


def undo_bytes(s: Scenario, c: Changes) -> float:
    """UNDO bytes the disk-column changes ``c`` wrote: an update or a delete saves the row's old disk
    part (``Dbtup::disk_page_undo_update``, ``disk_page_undo_free``), an insert only where it went
    (``disk_page_undo_alloc``); each with its header."""
    share = update_share(s)
    rewritten = share * (c.updates + c.deletes)
    return rewritten * (UNDO_RECORD_HEADER_BYTES + row_bytes(s.data)) + share * c.inserts * UNDO_RECORD_HEADER_BYTES


def touched_page_bytes(s: Scenario, c: Changes) -> float:
    """Bytes of the distinct disk pages the disk-column changes ``c`` hit: updates and deletes spread
    evenly over the data's pages, P·(1 − e^(−n/P)) pages of ``DISK_PAGE_BYTES``; inserts fill new
    pages one after the other, their disk parts' bytes."""
    share = update_share(s)
    pages = s.data.disk_data_size / DISK_PAGE_BYTES
    rewritten = share * (c.updates + c.deletes)
    hit = pages * (1.0 - math.exp(-rewritten / pages)) if pages > 0 and rewritten > 0 else 0.0
    return hit * DISK_PAGE_BYTES + share * c.inserts * row_bytes(s.data)


def dirty_page_bytes(s: Scenario, c: Changes, buffer_bytes: float) -> float:
    """Dirty disk pages an LCP writes after the disk-column changes ``c``: the distinct pages they
    hit, at most what DiskPageBufferMemory (``buffer_bytes``) holds; pages pushed out of a smaller
    cache were written then, before the LCP."""
    return min(touched_page_bytes(s, c), buffer_bytes)


def created_file_bytes(d: Data) -> float:
    """Bytes an initial restart writes to create the node's disk-data files: every data file of the
    tablespace and every UNDO file, written in full (Ndbfs ``OM_INIT``, TSMAN's and LGMAN's
    ``open_file`` for CreateFileImplReq::Create)."""
    return d.data_files_size + d.undo_log_size


def held_share(d: Data, buffer_bytes: float) -> float:
    """Share of the node's disk-data pages DiskPageBufferMemory (``buffer_bytes``, what the LDM
    threads' PGMAN workers hold: ``ldm_buffer_bytes``) holds at once: the chance that a page a copy
    asks for is in the cache. The workload touches the pages evenly (as ``touched_page_bytes``
    counts them), and under evenly spread requests any cache that replaces pages on demand, PGMAN's
    hot/cold LRU queues (pgman.cpp, ``Pgman::process_bind``, ``m_max_hot_pages``) among them, holds
    a random buffer/data share of them whichever it evicts: the hit ratio is that share (the
    independent-reference model's result for equal page popularity), not a fitted figure."""
    if d.disk_data_size <= 0:
        return 1.0
    return min(1.0, buffer_bytes / d.disk_data_size)


def distinct_pages(d: Data, rows: float, share: float = 1.0) -> float:
    """Distinct disk pages ``rows`` rows spread evenly over ``share`` of the data's pages fall on:
    P·(1 − e^(−n/P)) pages of ``DISK_PAGE_BYTES``."""
    pages = share * d.disk_data_size / DISK_PAGE_BYTES
    if pages <= 0 or rows <= 0:
        return 0.0
    return pages * (1.0 - math.exp(-rows / pages))


def copy_page_bytes(d: Data, rows: float, share: float, full: bool, buffers: tuple[float, float]) -> CopyPages:
    """The disk-page traffic of copying ``rows`` rows of ``share`` of the data (``buffers``: the live
    node's and the starting node's DiskPageBufferMemory). The live node reads each row's disk part
    through PGMAN to ship it: the scan goes in row order, so each page it needs is fetched once, a
    miss where its warm cache does not hold it (``held_share``). The starting node writes each row's
    disk part: after an initial restart into new pages (the row bytes, written out); in a node
    restart by a read-modify-write of its own page, read once into its cold cache (the restart
    emptied it) and dirtied; the dirty pages the cache cannot hold are written out before the
    restart's LCP, the rest by that LCP (``dirty_page_bytes``)."""
    pages = d.disk_data_size * share / DISK_PAGE_BYTES if full else distinct_pages(d, rows, share)
    live, own = buffers
    live_reads = pages * (1.0 - held_share(d, live)) * DISK_PAGE_BYTES
    kept = held_share(d, own)
    if full:
        written = rows * row_bytes(d)
        return CopyPages(live_reads, pages * (1.0 - held_share(d, live)), 0.0, written * (1.0 - kept), 0.0, written)
    own_reads = pages * DISK_PAGE_BYTES
    evicted = own_reads * (1.0 - kept)
    return CopyPages(live_reads, pages * (1.0 - held_share(d, live)), own_reads, evicted, pages, own_reads)


class CopyPages(NamedTuple):
    """A copy step's disk-page traffic (``copy_page_bytes``)."""

    live_read: float
    """Bytes the live node reads (its page-cache misses)."""
    live_misses: float
    """Pages the live node's scan waits for, one at a time per copy instance."""
    own_read: float
    """Bytes the starting node reads (the read of its read-modify-writes)."""
    own_write: float
    """Bytes the starting node writes during the copy: new pages' rows, or dirty pages evicted."""
    own_misses: float
    """Pages the starting node's applying operations wait for."""
    dirtied: float
    """Bytes of the pages the starting node dirtied: ``own_write`` and what stays dirty in its cache
    for the restart's LCP (``left_dirty``)."""


def left_dirty(before: tuple[float, float], pages: dict[str, float]) -> tuple[float, float]:
    """(bytes of pages dirtied, bytes left dirty in the cache) after a copy step whose page figures
    are ``pages`` (``copy.PAGE_FIGURES``), added to ``before`` (the
    first pass of a two-pass copy)."""
    dirtied = pages.get("starting_page_dirtied_bytes", 0.0)
    left = dirtied - pages.get("starting_page_write_bytes", 0.0)
    return before[0] + dirtied, before[1] + max(0.0, left)


LCP_PAGES_OUTSTANDING = 32
"""LCP page writes one PGMAN (one per LDM thread) keeps in flight before 8.0.20: pgman.cpp (2019,
8.0.1x), ``#define MAX_LCP_PAGES_OUTSTANDING 32`` ("Never more than 1 MByte of outstanding LCP
pages") in ``Pgman::get_num_lcp_pages_to_write``; each LCP_LOOP issues the next pageout at once
(``m_lcp_loop_delay(0)``), and nothing there reads MaxDiskWriteSpeed (reference §14.1)."""

LCP_MIN_PAGEOUTS_PER_SEC = 200
"""8.0.20+: "We will always allow at least 200 pageouts per second", per PGMAN
(pgman.cpp, ``Pgman::do_track_handle_lcp_speed_loop``)."""

LCP_PAGEOUT_MARGIN = 1.10
"""8.0.20+: the dirty-page rate is raised by 10% ("Given that we will not always use this pageout
rate we increase it by 10%", ``Pgman::do_track_handle_lcp_speed_loop``)."""

LCP_LEAST_CHECKPOINTING_SHARE = 0.67
"""8.0.20+: ``m_percent_spent_in_checkpointing`` is at least 67 (``Pgman::lcp_start_point``, "We
never speed up more than 50% due to a long time waiting for a new LCP"); the rate is divided by
it. A restarting node's previous PGMAN LCP is its short restart sync, so the floor holds."""

LCP_MAX_PAGES_IN_FLIGHT = 192
"""8.0.20+: the in-flight cap PGMAN derives from the measured write latency is at most 192
(``m_max_lcp_pages_outstanding``, ``Pgman::do_track_handle_lcp_speed_loop``)."""

LCP_IO_RATE_SAFETY = 1.5
"""8.0.20+: the single-thread write rate (1 / latency) is raised by 50% before the in-flight cap
is worked out from it ("multiply by 50% to get a bit of safety level")."""


def lcp_flush_rate(paced: bool, made_dirty: float, secs_since_lcp: float, ldm: int, latency: float) -> float:
    """Bytes/s at most that a node's PGMANs (one per LDM thread, ``ldm``) write an LCP's dirty pages
    at, before the disk's own rate: ``paced`` (8.0.20+) by the pages made dirty, ``made_dirty``
    bytes over the ``secs_since_lcp`` since the previous PGMAN LCP started (the larger of the rates
    ``Pgman::do_track_handle_lcp_speed_loop`` takes, +10%, over the checkpointing share's floor, at
    least 200 pageouts/s), within the in-flight cap the write ``latency`` gives; before 8.0.20,
    32 writes in flight each (``Pgman::get_num_lcp_pages_to_write``). Never MaxDiskWriteSpeed."""
    workers = max(1, ldm)
    if latency <= 0:
        return math.inf
    if not paced:
        return workers * LCP_PAGES_OUTSTANDING * DISK_PAGE_BYTES / latency
    per_worker = made_dirty / DISK_PAGE_BYTES / workers / secs_since_lcp if secs_since_lcp > 0 else math.inf
    wanted = max(LCP_MIN_PAGEOUTS_PER_SEC, LCP_PAGEOUT_MARGIN * per_worker / LCP_LEAST_CHECKPOINTING_SHARE)
    in_flight = min(LCP_MAX_PAGES_IN_FLIGHT, math.floor(wanted * latency / LCP_IO_RATE_SAFETY) + 1)
    return workers * min(wanted, in_flight / latency) * DISK_PAGE_BYTES


def undo_page_read_bytes(s: Scenario, c: Changes, buffer_bytes: float) -> float:
    """Page bytes the UNDO apply reads through the restarted node's cold page cache: each distinct
    page the changes ``c`` touched once (``touched_page_bytes``), and again for each later record of
    the same page that finds it pushed out of a DiskPageBufferMemory (``buffer_bytes``) smaller than
    those pages; a bigger buffer never reads more."""
    first = touched_page_bytes(s, c)
    share = update_share(s)
    records = share * (c.updates + c.deletes)
    distinct = distinct_pages(s.data, records)
    if distinct <= 0 or first <= 0:
        return first
    again = max(0.0, records - distinct) * max(0.0, 1.0 - buffer_bytes / (distinct * DISK_PAGE_BYTES))
    return first + again * DISK_PAGE_BYTES


PGMAN_MIN_WORKER_BUFFER_BYTES = 4 * 1024 * 1024
"""The least page buffer a PGMAN worker gets (pgman.cpp, ``Pgman::execREAD_CONFIG_REQ``:
``min_buffer = 4*1024*1024``)."""


def ldm_buffer_bytes(buffer_bytes: float, ldm: int) -> float:
    """The part of DiskPageBufferMemory (``buffer_bytes``) that caches the data's pages on a node
    with ``ldm`` LQH workers: PGMAN divides it between its workers, one per LDM thread and one extra
    for the UNDO log's page reads, each ``buffer / (workers + 1)``, at least 4 MB (pgman.cpp,
    ``Pgman::execREAD_CONFIG_REQ``, "divide between workers"); each LDM thread's pages go through its
    own worker, so the LDM threads' workers hold ``ldm`` of those shares."""
    if ldm < 1:
        return buffer_bytes
    return ldm * max(buffer_bytes / (ldm + 1), PGMAN_MIN_WORKER_BUFFER_BYTES)
