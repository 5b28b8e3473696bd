import math
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT

import ndbsim
from ndbsim.errors import InputError
from ndbsim.input import scenario as sc
from ndbsim.input.restart_info import PHASES
from ndbsim.studies.sweep import load_sweep, make_points, parse_shard

BASE = str(ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml")
GRID = {"data.size": ["10GB", "30GB", "60GB"], "cluster.config.RecoveryWork": [25, 50]}


def run(factors=GRID, **kw):
    kw.setdefault("workers", 1)
    kw.setdefault("progress", False)
    kw.setdefault("seed", 5)
    kw.setdefault("overrides", ["data.rows=null"])  # rows follow data.size
    return ndbsim.sweep(BASE, factors, **kw)


def test_grid_zip_random_sizes_and_columns():
    df = run(replications=2)
    assert len(df) == 3 * 2 * 2
    assert list(df["point"].unique()) == list(range(6))
    for c in (
        "data.size",
        "cluster.config.RecoveryWork",
        *PHASES,
        "total_restart_secs",
        "lcp_secs",
        "lcp_bytes",
        "redo_bytes_needed",
        "redo_capacity_bytes",
        "status",
        "reason",
    ):
        assert c in df.columns, c
    assert set(df["status"]) == {"ok"}
    assert (df["total_restart_secs"] > 0).all()
    assert list(df["data.size"][::4]) == GRID["data.size"]
    assert list(df["cluster.config.RecoveryWork"][:4]) == [25, 25, 50, 50]

    z = run({"data.size": ["10GB", "20GB"], "workload.updates_per_s": [0, 1000]}, mode="zip")
    assert len(z) == 2 and list(z["workload.updates_per_s"]) == [0, 1000]

    pts = make_points(
        {"data.size": {"low": "1GB", "high": "50GB"}, "workload.updates_per_s": {"low": 0, "high": 10}},
        "random",
        25,
        seed=3,
    )
    assert len(pts) == 25
    assert all(2**30 <= p["data.size"] <= 50 * 2**30 for p in pts)
    assert all(isinstance(p["workload.updates_per_s"], int) and 0 <= p["workload.updates_per_s"] <= 10 for p in pts)
    assert pts == make_points(
        {"data.size": {"low": "1GB", "high": "50GB"}, "workload.updates_per_s": {"low": 0, "high": 10}},
        "random",
        25,
        seed=3,
    )
    r = run({"data.size": {"low": "1GB", "high": "50GB"}}, mode="random", samples=7)
    assert len(r) == 7 and set(r["status"]) == {"ok"}


def test_same_seed_same_rows_regardless_of_workers_and_chunks():
    a = run(replications=2)
    b = run(replications=2)
    pd.testing.assert_frame_equal(a, b)
    c = run(replications=2, workers=2, chunk_size=1)
    pd.testing.assert_frame_equal(a, c)
    d = run(replications=2, seed=6)
    assert not a["total_restart_secs"].equals(d["total_restart_secs"])
    # every point runs with the sweep's seed, and its row reproduces through ndbsim.simulate
    row = a.iloc[3]
    res = ndbsim.simulate(
        BASE,
        seed=int(row["seed"]),
        replications=2,
        data__size=row["data.size"],
        data__rows=None,
        cluster__config__RecoveryWork=int(row["cluster.config.RecoveryWork"]),
    )
    assert res.replications[1].total_restart_secs == a.iloc[3]["total_restart_secs"]
    assert set(a["seed"]) == {5}


def test_failing_and_non_converging_points_are_rows():
    df = run(
        {"data.size": ["10GB", "500GB", "junk"], "workload.during_restart.updates_per_s": [0, 1e9]}, replications=2
    )
    assert len(df) == 12
    bad = df[df["data.size"] == "500GB"]
    assert set(bad["status"]) == {"error"}
    assert "DataMemory" in bad["reason"].iloc[0]
    assert math.isnan(bad["total_restart_secs"].iloc[0])
    junk = df[df["data.size"] == "junk"]
    assert set(junk["status"]) == {"error"} and "junk" in junk["reason"].iloc[0]
    ok = df[(df["data.size"] == "10GB") & (df["workload.during_restart.updates_per_s"] == 0)]
    assert set(ok["status"]) == {"ok"}
    nc = df[(df["data.size"] == "10GB") & (df["workload.during_restart.updates_per_s"] == 1e9)]
    assert set(nc["status"]) == {"non-converging"} and "converge" in nc["reason"].iloc[0]


def test_shards_union_is_the_full_sweep():
    full = run(replications=1)
    parts = [run(replications=1, shard=f"{i}/3") for i in (1, 2, 3)]
    assert sum(len(p) for p in parts) == len(full)
    assert set(parts[1]["point"]) == {1, 4}
    union = pd.concat(parts).sort_values(["point", "replication"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(union, full)
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "1/0"):
        with pytest.raises(InputError, match="--shard"):
            parse_shard(bad)


def test_dask_matches_local():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        dk = run(replications=2, scheduler=lc.scheduler_address, shard="1/2")
        with distributed.Client(lc) as client:
            dk2 = run(replications=1, scheduler=client)
    pd.testing.assert_frame_equal(dk, run(replications=2, shard="1/2"))
    pd.testing.assert_frame_equal(dk2, run(replications=1))


@pytest.mark.parametrize(
    "factors, mode, match",
    [
        ({"data.sise": ["1GB"]}, "grid", "factors.data.sise.*did you mean 'size'"),
        ({"cluster.config.NoSuchParam": [1]}, "grid", "unknown NDB parameter"),
        ({"data": [1]}, "grid", "is a section"),
        ({"data.size.x": [1]}, "grid", "is a value, not a section"),
        ({"data.size": []}, "grid", "empty list"),
        ({}, "grid", "factors"),
        ({"data.size": ["1GB"]}, "gird", "did you mean 'grid'"),
        ({"data.size": ["1GB", "2GB"], "data.tables": [1]}, "zip", "one length"),
        ({"data.size": "1GB"}, "grid", "not a list"),
    ],
)
def test_bad_sweeps_raise_one_line_input_errors(factors, mode, match):
    with pytest.raises(InputError, match=match) as e:
        run(factors, mode=mode)
    assert "\n" not in str(e.value)


def test_random_mode_checks_ranges():
    with pytest.raises(InputError, match="samples"):
        run({"data.size": {"low": "1GB", "high": "2GB"}}, mode="random")
    with pytest.raises(InputError, match="swap"):
        make_points({"data.size": {"low": "2GB", "high": "1GB"}}, "random", 3, seed=1)
    with pytest.raises(InputError, match="not a range"):
        make_points({"data.size": {"lo": 1}}, "random", 3, seed=1)


def _sweep_file(tmp_path, extra=""):
    p = tmp_path / "s.yaml"
    p.write_text(
        f"base: {BASE}\nset: {{data.rows: null}}\nfactors:\n  data.size: [10GB, 20GB]\n"
        "  workload.updates_per_s: [0, 500]\n"
        f"mode: grid\nreplications: 2\nseed: 9\n{extra}"
    )
    return p


def cli(*args):
    return subprocess.run([sys.executable, "-m", "ndbsim", *map(str, args)], capture_output=True, text=True)


def test_cli_writes_csv_and_parquet(tmp_path):
    f = _sweep_file(tmp_path)
    p = cli("sweep", f, "--output", tmp_path / "o.csv", "--workers", "2")
    assert p.returncode == 0, p.stderr
    csv = pd.read_csv(tmp_path / "o.csv")
    assert len(csv) == 8 and set(csv["status"]) == {"ok"}
    p = cli("sweep", f, "-o", tmp_path / "o.parquet", "--workers", "1", "--shard", "2/2")
    assert p.returncode == 0, p.stderr
    pq = pd.read_parquet(tmp_path / "o.parquet")
    assert list(pq["point"].unique()) == [1, 3]
    assert list(tmp_path.glob("*.part")) == []
    ref = ndbsim.sweep(f, workers=1, progress=False)
    pd.testing.assert_frame_equal(
        csv[["point", "seed", "total_restart_secs"]],
        ref[["point", "seed", "total_restart_secs"]],
        check_exact=False,
        rtol=1e-12,
    )
    assert load_sweep(f)["seed"] == 9


def test_cli_bad_input_exits_2_with_one_line(tmp_path):
    f = _sweep_file(tmp_path, "oops: 1\n")
    p = cli("sweep", f)
    assert p.returncode == 2 and "oops" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    f = _sweep_file(tmp_path)
    p = cli("sweep", f, "--shard", "3/2")
    assert p.returncode == 2 and "--shard" in p.stderr
    p = cli("sweep", f, "--output", tmp_path / "o.txt")
    assert p.returncode == 2 and ".parquet" in p.stderr
    g = tmp_path / "g.yaml"
    g.write_text(f"base: {BASE}\nfactors: {{data.size: [1GB]}}\nmode: cartesian\n")
    p = cli("sweep", g)
    assert p.returncode == 2 and "g.yaml" in p.stderr and "mode" in p.stderr


def test_innodb_base_sweeps_with_its_own_phases(tmp_path):
    root = ROOT
    df = ndbsim.sweep(
        root / "scenarios/innodb-tpcc1000-bp144g-flash.yaml",
        {"server.innodb_log_file_size": ["1G", "4G"]},
        progress=False,
        workers=1,
    )
    assert list(df["status"]) == ["ok", "ok"]
    assert "secs_redo_apply" in df.columns and "secs_restore_fragments" not in df.columns
    assert df["total_restart_secs"].iloc[1] > df["total_restart_secs"].iloc[0]  # a bigger log, a longer recovery
    with pytest.raises(ndbsim.InputError):
        ndbsim.sweep(
            root / "scenarios/innodb-tpcc1000-bp144g-flash.yaml", {"server.log_size": ["1G"]}, progress=False, workers=1
        )


@pytest.mark.parametrize(
    "key,value",
    [
        ("data.size", "12GB"),
        ("version", "8.0.30"),
        ("data.size", "junk"),
        ("host.bogus", 1),
        ("cluster.config.RecoveryWork", 80),
    ],
)
def test_points_reuse_untouched_sections_with_the_same_outcome(key, value):
    """A sweep point validates only the sections its factors change; the scenario (or the
    error) must be exactly what validating the whole point gives."""
    from ndbsim.input import scenario as sc
    from ndbsim.studies.sweep import with_values

    base = sc.raw_from(BASE)[0]
    raw = with_values(base, [key], [value])
    sections = sc.sections_of(base)
    assert set(sections) >= {"cluster", "host", "data", "workload"}
    try:
        whole = sc.scenario_from_dict(raw)
    except InputError as e:
        with pytest.raises(InputError) as got:
            sc.scenario_reusing(raw, sections, {key.split(".")[0]})
        assert str(got.value) == str(e)
    else:
        point = sc.scenario_reusing(raw, sections, {key.split(".")[0]})
        assert point == whole
        assert point.host is sections["host"]  # reused, not validated again


def test_set_fixes_base_keys_for_every_point_and_rows_follow_size(tmp_path):
    factors = {"data.size": ["20GB", "40GB"]}
    with pytest.warns(UserWarning, match="data.rows stays 300M"):
        fixed = run(factors, overrides=[])
    derived = run(factors, overrides=["data.rows=null"])
    # with rows fixed the index rebuild (per row only) does not grow with the data; derived, it doubles
    assert fixed["secs_index_rebuild"].iloc[0] == pytest.approx(fixed["secs_index_rebuild"].iloc[1])
    per_row = derived["secs_index_rebuild"]
    assert per_row.iloc[1] == pytest.approx(2 * per_row.iloc[0], rel=0.05)
    f = tmp_path / "s.yaml"
    f.write_text(f"base: {BASE}\nset: {{data.rows: null}}\nfactors: {{data.size: [20GB, 40GB]}}\nseed: 5\n")
    from_file = ndbsim.sweep(str(f), workers=1, progress=False)
    pd.testing.assert_frame_equal(from_file, derived)
    p = cli("sweep", f, "--set", "cluster.config.RecoveryWork=80", "--workers", "1")
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
    p = cli("sweep", f, "--set", "data.rows")
    assert p.returncode == 2 and "--set" in p.stderr


def test_a_base_wrong_only_in_what_the_factors_set_still_sweeps(tmp_path):
    """The base's 60 GB does not fit DataMemory=20G, but every point sets a size that does: the
    sweep runs. Varying something else leaves the base's error the file's, exit 2."""
    f = tmp_path / "s.yaml"
    f.write_text("set: {cluster.config.DataMemory: 20G, data.rows: null}\nfactors: {data.size: [10GB, 15GB]}\n")
    df = ndbsim.sweep(str(f), workers=1, progress=False)
    assert list(df["status"]) == ["ok", "ok"]
    f.write_text("set: {cluster.config.DataMemory: 20G}\nfactors: {workload.updates_per_s: [10, 20]}\n")
    p = cli("sweep", f, "--workers", "1")
    assert p.returncode == 2 and "data.size" in p.stderr and "DataMemory=20.0G" in p.stderr


@pytest.mark.parametrize("order", [["100G", "10G"], ["10G", "100G"]])
def test_a_base_rescued_by_a_factor_does_not_depend_on_the_points_order(order):
    base = {**sc.DEFAULT_SCENARIO, "version": "8.0.30"}
    base["cluster"] = {**base["cluster"], "config": {**base["cluster"]["config"], "DataMemory": "20G"}}
    df = ndbsim.sweep(base, {"cluster.config.DataMemory": order}, workers=1, progress=False)
    assert sorted(df["status"]) == ["error", "ok"]


def test_the_last_chunks_shrink_so_the_workers_finish_together():
    from ndbsim.studies.sweep.chunks import MIN_CHUNK, chunks, default_chunk_size

    planned = list(chunks(range(10_000), default_chunk_size(10_000, 2), 10_000, 2))
    assert [x for c in planned for x in c] == list(range(10_000))  # every point once, in order
    sizes = [len(c) for c in planned]
    assert sizes[0] == 500 and max(sizes) == 500
    assert sizes == sorted(sizes, reverse=True)
    assert min(sizes[:-1]) == MIN_CHUNK  # the tail is cut fine, but never below MIN_CHUNK
    assert [len(c) for c in chunks(range(10), 3)] == [3, 3, 3, 1]  # a given chunk size stays
