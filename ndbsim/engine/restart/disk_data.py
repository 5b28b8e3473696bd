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
