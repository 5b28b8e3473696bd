"""An interrupted sweep keeps its finished chunks beside its output and ``--resume`` runs only
the points it had not finished: the output is byte-identical to a sweep never interrupted, on
one worker, on two, and on a Dask cluster that loses a worker or its scheduler."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from ndbsim.cli.app import main
from ndbsim.studies.sweep import resume

SWEEP = (
    "mode: random\nsamples: 100\nreplications: 1\nseed: 7\nset: {data.rows: null}\n"
    "factors:\n  data.size: {low: 1GB, high: 60GB}\n  cluster.config.RecoveryWork: {low: 25, high: 100}\n"
)


def _cli(args: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    _, err = capsys.readouterr()
    return int(exc.value.code or 0), err


def _chunks(tmp: Path) -> list[Path]:
    return sorted(tmp.glob(".out.csv.*.chunks/chunk-*.jsonl"))


@pytest.fixture
def sweep_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sw.yaml").write_text(SWEEP)
    return tmp_path


def _interrupt_after(monkeypatch, chunks: int, sig: int = signal.SIGINT) -> None:
    """Send ``sig`` to this process once ``chunks`` chunks are kept (as Ctrl-C would, mid-sweep)."""
    save = resume.ChunkStore.save
    seen: list[int] = []

    def saving(self, rows):
        save(self, rows)
        seen.append(len(rows))
        if len(seen) == chunks:
            os.kill(os.getpid(), sig)

    monkeypatch.setattr(resume.ChunkStore, "save", saving)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_interrupted_sweep_resumes_to_the_same_bytes(workers, sweep_dir, monkeypatch, capsys):
    code, err = _cli(["sweep", "sw.yaml", "-w", workers, "-o", "whole.csv"], capsys)
    assert code == 0, err
    assert [p.name for p in sweep_dir.iterdir() if p.name.startswith(".")] == []  # removed once written
    with monkeypatch.context() as m:
        _interrupt_after(m, 1)
        code, err = _cli(["sweep", "sw.yaml", "-w", workers, "-o", "out.csv"], capsys)
    assert (code, err.splitlines()[-1]) == (130, "ndbsim: interrupted")
    assert not (sweep_dir / "out.csv").exists()
    kept = _chunks(sweep_dir)
    assert len(kept) >= 1
    done = sum(len(p.read_text().splitlines()) for p in kept)
    code, err = _cli(["sweep", "sw.yaml", "-w", workers, "-o", "out.csv", "--resume"], capsys)
    assert code == 0, err
    assert f"ndbsim: resuming: {done} of 100 points already done" in err
    assert (sweep_dir / "out.csv").read_bytes() == (sweep_dir / "whole.csv").read_bytes()
    assert _chunks(sweep_dir) == [] and not list(sweep_dir.glob(".out.csv.*"))


def test_a_changed_sweep_never_resumes_from_stale_chunks(sweep_dir, monkeypatch, capsys):
    with monkeypatch.context() as m:
        _interrupt_after(m, 1, signal.SIGTERM)
        code, _ = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv"], capsys)
    assert code == 143 and len(_chunks(sweep_dir)) == 1
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv", "--seed", "8", "--resume"], capsys)
    assert code == 0, err
    assert "resuming: 0 of 100 points already done" in err
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "fresh.csv", "--seed", "8"], capsys)
    assert (sweep_dir / "out.csv").read_bytes() == (sweep_dir / "fresh.csv").read_bytes()
    assert len(list(sweep_dir.glob(".out.csv.*.chunks"))) == 1  # the seed-7 sweep's, still resumable


def test_resume_needs_an_output_file(sweep_dir, capsys):
    code, err = _cli(["sweep", "sw.yaml", "--resume"], capsys)
    assert code == 2 and "--resume" in err and "--output" in err


def _on_save(monkeypatch, action) -> None:
    """Call ``action()`` once, after the first chunk is kept."""
    save = resume.ChunkStore.save
    done: list[bool] = []

    def saving(self, rows):
        save(self, rows)
        if not done:
            done.append(True)
            action()

    monkeypatch.setattr(resume.ChunkStore, "save", saving)


def test_a_dask_worker_killed_mid_sweep_costs_only_its_chunk(sweep_dir, monkeypatch, capsys):
    distributed = pytest.importorskip("dask.distributed")
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "whole.csv"], capsys)
    assert code == 0, err
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        with distributed.Client(lc) as client:
            victim = next(iter(client.run(os.getpid).values()))
        _on_save(monkeypatch, lambda: os.kill(victim, signal.SIGKILL))
        code, err = _cli(["sweep", "sw.yaml", "--scheduler", lc.scheduler_address, "-o", "out.csv"], capsys)
    assert code == 0, err
    assert (sweep_dir / "out.csv").read_bytes() == (sweep_dir / "whole.csv").read_bytes()


def test_a_lost_dask_scheduler_keeps_the_chunks_for_resume(sweep_dir, monkeypatch, capsys):
    distributed = pytest.importorskip("dask.distributed")
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "whole.csv"], capsys)
    assert code == 0, err
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with monkeypatch.context() as m:
            _on_save(m, lc.close)
            code, err = _cli(["sweep", "sw.yaml", "--scheduler", lc.scheduler_address, "-o", "out.csv"], capsys)
    finally:
        lc.close()
    assert code == 2, err
    assert err.count("\n") == 1 and "Dask scheduler" in err and "--resume" in err, err
    assert _chunks(sweep_dir) and not (sweep_dir / "out.csv").exists()
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv", "--resume"], capsys)
    assert code == 0, err
    assert (sweep_dir / "out.csv").read_bytes() == (sweep_dir / "whole.csv").read_bytes()
