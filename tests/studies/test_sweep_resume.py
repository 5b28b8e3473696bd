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


def _full_after(monkeypatch, chunks: int) -> None:
    """The file system fills up once ``chunks`` chunks are kept: the next chunk's rename fails with
    ENOSPC, as on a full disk."""
    import errno

    replace = os.replace
    done: list[str] = []

    def replacing(src, dst, *a, **kw):
        if Path(dst).name.startswith("chunk-") and len(done) >= chunks:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        replace(src, dst, *a, **kw)
        done.append(str(dst))

    monkeypatch.setattr(resume.os, "replace", replacing)


def test_a_full_disk_mid_sweep_is_one_line_that_says_what_stays_for_resume(sweep_dir, monkeypatch, capsys):
    """ENOSPC while keeping a chunk: exit 2, one line naming the directory, the reason and the points
    kept for --resume (never an internal error); the resumed sweep writes the same bytes."""
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "whole.csv"], capsys)
    assert code == 0, err
    with monkeypatch.context() as m:
        _full_after(m, 1)
        code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv"], capsys)
    kept = _chunks(sweep_dir)
    done = sum(len(p.read_text().splitlines()) for p in kept)
    line = err.strip().splitlines()[-1]
    assert code == 2 and "internal error" not in err, err
    assert line.startswith("ndbsim: error: --output: cannot keep the sweep's finished chunk in ")
    assert "No space left on device" in line and f"the {done} points finished are kept in " in line
    assert "run the same command with --resume" in line and not (sweep_dir / "out.csv").exists()
    assert len(kept) == 1 and 0 < done < 100 and not list(sweep_dir.glob(".out.csv.*.chunks/.chunk-*.part"))
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv", "--resume"], capsys)
    assert code == 0, err
    assert (sweep_dir / "out.csv").read_bytes() == (sweep_dir / "whole.csv").read_bytes()


def test_a_full_disk_at_the_output_keeps_every_point_for_resume(sweep_dir, monkeypatch, capsys):
    """ENOSPC writing the output itself: no partial file, exit 2, one line saying that all the
    points stay in the chunks and --resume only writes the file."""
    import errno

    import pandas as pd

    def full(self, *a, **kw):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(pd.DataFrame, "to_csv", full)
        code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv"], capsys)
    line = err.strip().splitlines()[-1]
    assert code == 2 and "internal error" not in err, err
    assert line.startswith("ndbsim: error: --output: cannot write ") and "out.csv" in line
    assert "No space left on device" in line and "the 100 points finished are kept in " in line
    assert "run the same command with --resume, which only writes the file" in line
    assert not (sweep_dir / "out.csv").exists() and not list(sweep_dir.glob(".out.csv.*.part"))
    code, err = _cli(["sweep", "sw.yaml", "-w", "1", "-o", "out.csv", "--resume"], capsys)
    assert code == 0 and "100 of 100 points already done" in err, err


def test_a_read_only_or_full_file_system_is_named_with_its_fix(tmp_path, monkeypatch):
    """The atomic writer's one-line errors by errno: full or over quota -> free space; read-only
    -> a writable file system; no partial file either way."""
    import errno

    from ndbsim.errors import InputError
    from ndbsim.output.io import atomic_write

    for code, fix in ((errno.ENOSPC, "free space"), (errno.EDQUOT, "free space"), (errno.EROFS, "read-only")):

        def failing(tmp, code=code):
            raise OSError(code, os.strerror(code))

        with pytest.raises(InputError) as e:
            atomic_write(tmp_path / "r.csv", failing)
        assert os.strerror(code) in e.value.message and fix in e.value.message
        assert "nothing was written there" in e.value.message
        assert list(tmp_path.iterdir()) == []
