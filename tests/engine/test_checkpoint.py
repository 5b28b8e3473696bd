"""The partial-LCP restore walk: what a restore reads and applies from the LCPs on disk."""

from __future__ import annotations

import itertools
import math

import pytest

from ndbsim.engine.lcp.checkpoint import Era, LcpRecord, PartialLcp
from ndbsim.engine.workload import Changes

DATA = 60 * 2**30
ROWS = 300e6
ROW = DATA / ROWS


def _steady(policy: PartialLcp, updates: float = 0.0, inserts: float = 0.0) -> LcpRecord:
    rates = Changes(updates, inserts, 0.0, (updates + inserts) * ROW)
    rec, _ = policy.steady_state(DATA, ROWS, rates, 100e6, 2.0, 0.0)
    inserted = rec.changed_rows * inserts / (updates + inserts)
    return LcpRecord(rec.start, rec.end, rec.pct, rec.changed_rows, rec.changed_bytes, rec.bytes, inserted)


def test_inserted_rows_are_applied_once_updated_rows_duplicate_older_copies():
    policy = PartialLcp(50, 40)
    inserts = _steady(policy, inserts=200_000)
    ins = policy.restore_work(DATA, ROWS, [], None, [Era(inserts, math.inf)])
    assert ins.rows_applied == pytest.approx(ROWS, rel=1e-6)
    updates = _steady(policy, updates=200_000)
    upd = policy.restore_work(DATA, ROWS, [], None, [Era(updates, math.inf)])
    assert upd.rows_applied > 1.05 * ROWS


@pytest.mark.parametrize("work", [25, 50, 60, 100])
@pytest.mark.parametrize("updates", [1e3, 3e4, 3e5, 3e6])
def test_a_steady_restore_stays_within_the_design_bound(work, updates):
    """Backup.cpp: LCP files ≤ (1 + p) × data + 12.5%; the restore reads no more."""
    policy = PartialLcp(work, 40)
    rec = _steady(policy, updates=updates)
    got = policy.restore_work(DATA, ROWS, [], rec)
    assert DATA <= got.bytes_read <= policy.design_bound_bytes(DATA)
    assert ROWS <= got.rows_applied <= (1 + policy.p) * ROWS


def test_a_burst_contributes_only_the_lcps_it_wrote():
    policy = PartialLcp(50, 40)
    base = _steady(policy, updates=1_000)
    burst = _steady(policy, inserts=300_000)
    work = [policy.restore_work(DATA, ROWS, [], None, [Era(burst, n), Era(base, math.inf)]) for n in (1, 3, 10, 100)]
    read = [w.bytes_read for w in work]
    # a longer burst reads about as much or more: its rows come as CHANGE rows instead of
    # in the older, bigger ALL-ROWS parts (the table was smaller before it)
    assert all(b >= 0.99 * a for a, b in itertools.pairwise(read))
    assert read[-1] > 1.1 * read[0]
    assert read[-1] <= policy.design_bound_bytes(DATA)  # ...and never beyond the design bound
    forever = policy.restore_work(DATA, ROWS, [], None, [Era(burst, math.inf)])
    assert forever.bytes_read == pytest.approx(read[-1], rel=1e-9)  # once its rows are in, no more


def test_the_walk_ends_at_a_full_lcp_when_the_eras_run_out():
    policy = PartialLcp(50, 40)
    rec = _steady(policy, updates=1e4)
    short = policy.restore_work(DATA, ROWS, [], None, [Era(rec, 2)])
    assert short.lcps == 3  # two partial LCPs, then the fragment's first (full) one
    assert short.rows_applied >= ROWS


def test_history_records_are_walked_before_the_eras():
    policy = PartialLcp(50, 40)
    full = LcpRecord(-10.0, 0.0, 1.0, 0.0, 0.0, DATA)
    got = policy.restore_work(DATA, ROWS, [full], _steady(policy, updates=1e5))
    assert (got.lcps, got.bytes_read, got.rows_applied) == (1, DATA, ROWS)


def test_rule_3_caps_a_small_fragments_chain_at_its_pages():
    """Backup.cpp calculate_min_parts: at least 2048 / max_page_count parts, so a fragment of 512
    pages keeps a restore chain of about 512 LCPs however few rows change."""
    small = PartialLcp(60, 40, 1, fragment_pages=512)
    large = PartialLcp(60, 40, 1, fragment_pages=1e6)
    quiet = Changes(updates=10.0)
    assert small.parts(ROWS, quiet) == pytest.approx(2048 / 512 - 0.5)
    assert large.parts(ROWS, quiet) == 1.0
    rec_small, _ = small.steady_state(DATA, ROWS, Changes(updates=10.0), 100e6, 2.0, 0.0)
    rec_large, _ = large.steady_state(DATA, ROWS, Changes(updates=10.0), 100e6, 2.0, 0.0)
    assert small.restore_work(DATA, ROWS, [], rec_small).lcps < large.restore_work(DATA, ROWS, [], rec_large).lcps


def test_a_shorter_cycle_never_makes_a_restore_apply_more_change_rows():
    """Rule 1 keeps the CHANGE rows of a steady chain at or below p/2 × the rows: a shorter cycle is
    a longer chain of smaller LCPs, not more rows (Backup.cpp, "Partial LCP" comment)."""
    policy = PartialLcp(60, 40)
    change = []
    for speed in (20e6, 40e6, 80e6, 160e6):
        rec, _ = policy.steady_state(DATA, ROWS, Changes(updates=20_000.0), speed, 2.0, 0.0)
        change.append(policy.restore_work(DATA, ROWS, [], rec).change_rows / ROWS)
    assert all(0.0 < c <= 0.6 / 2 for c in change), change
    # the rounding up to whole parts (at least one) weighs more in a short cycle: never more rows
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(change)), change
