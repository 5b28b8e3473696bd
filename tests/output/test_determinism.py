"""Same scenario and seed, same bytes; --seed 0 prints a reusable seed; outputs are written atomically."""

from __future__ import annotations

import re

import pytest
from _helpers import ndbsim, sim

from ndbsim.output import io


def test_json_is_byte_identical_across_processes():
    args = ("run", "--format", "json", "--seed", "42", "-n", "3")
    a, b = ndbsim(*args), ndbsim(*args)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout and a.stdout.strip()


def test_seed_zero_prints_a_seed_that_reproduces_the_run():
    first = ndbsim("run", "--format", "json", "--seed", "0")
    assert first.returncode == 0, first.stderr
    m = re.search(r"seed (\d+)", first.stderr)
    assert m, first.stderr
    seed = m.group(1)
    assert int(seed) > 0
    again = ndbsim("run", "--format", "json", "--seed", seed)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout


def test_output_and_gantt_are_complete_files(tmp_path):
    out, chart = tmp_path / "r.json", tmp_path / "g.svg"
    p = ndbsim("run", "--format", "json", "--output", str(out), "--gantt", str(chart))
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert out.read_text().rstrip().endswith("}")
    assert chart.read_text().rstrip().endswith("</svg>")
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize("suffix", [".svg", ".pdf", ".png"])
def test_the_same_run_writes_the_same_chart_bytes(tmp_path, suffix):
    charts = [tmp_path / f"g{i}{suffix}" for i in (1, 2)]
    for chart in charts:
        p = ndbsim("run", "--gantt", str(chart))
        assert p.returncode == 0, p.stderr
    assert charts[0].read_bytes() == charts[1].read_bytes()


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.json"

    def broken(tmp):
        with open(tmp, "w") as f:
            f.write("{ half a fi")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        io.atomic_write(target, broken)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")

    def broken(tmp):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        io.atomic_write(target, broken)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_atomic_write_text_writes_whole_file(tmp_path):
    target = tmp_path / "t.txt"
    io.atomic_write_text(target, "x" * 100_000)
    assert target.read_text() == "x" * 100_000
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]


def test_deterministic_for_a_seed():
    a = sim(None, replications=3, seed=7).to_json()
    b = sim(None, replications=3, seed=7).to_json()
    assert a == b
