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
    if full:
        return CopyPages(live_reads, pages * (1.0 - held_share(d, live)), 0.0, rows * row_bytes(d), 0.0)
    own_reads = pages * DISK_PAGE_BYTES
    evicted = own_reads * (1.0 - held_share(d, own))
    return CopyPages(live_reads, pages * (1.0 - held_share(d, live)), own_reads, evicted, pages)


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
