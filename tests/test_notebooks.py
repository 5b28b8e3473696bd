"""Every notebook in notebooks/ runs top to bottom without an error (small grids).

The notebooks read ``NDBSIM_NOTEBOOK_SMALL=1`` and shrink their grids and replications; the
kernel inherits the environment, so it is set (with a non-interactive matplotlib backend)
before the kernel starts. Notebooks added later are picked up by the glob.

Each notebook runs twice: on its shipped scenario, and (``NDBSIM_NOTEBOOK_SCENARIO``) on a
user's cluster unlike it, ``tests/data/three-replicas-8.4.3.yaml`` (NoOfReplicas=3, six data
nodes with NodeIds 21-23 and 31-33, a ThreadConfig, disk data, a rolling restart): a notebook
may not assume 2 replicas, NodeIds 1..N or its default scenario's restart, and a question the
scenario cannot answer is a sentence, not a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
THREE_REPLICAS = NOTEBOOKS_DIR.parent / "tests" / "data" / "three-replicas-8.4.3.yaml"

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


@pytest.fixture
def small_env(monkeypatch):
    monkeypatch.setenv("NDBSIM_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    yield


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOKS_DIR}"


def _execute(path: Path):
    """Run ``path`` top to bottom; fail on any error output. Returns the executed notebook."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS_DIR)}}
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as err:  # pragma: no cover - failure path
        pytest.fail(f"{path.name} failed:\n{err}")
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    return nb


def _text(nb) -> str:
    return "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "text" in o
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, small_env):
    assert os.environ["NDBSIM_NOTEBOOK_SMALL"] == "1"
    _execute(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_on_a_three_replica_cluster(path: Path, small_env, monkeypatch):
    monkeypatch.setenv("NDBSIM_NOTEBOOK_SCENARIO", str(THREE_REPLICAS))
    text = _text(_execute(path))
    assert "Traceback" not in text
    if path.name.startswith("05"):  # whole node groups of 3, NodeIds in the cluster's pattern
        assert "(3 nodes)" in text and "(12 nodes)" in text, text[-600:]
    if path.name.startswith("07"):  # every inverse question answered or said unanswerable
        for question in ("redo-log", "update-rate", "lcp-speed", "data-size"):
            assert f"{question}: the" in text or f"{question}: no answer for this scenario" in text, question


def test_a_notebook_answers_for_the_scenario_it_is_pointed_at(small_env, monkeypatch, tmp_path):
    """``SCENARIO`` (here through NDBSIM_NOTEBOOK_SCENARIO) is what the runs start from: the
    rolling-restart notebook on a copy of its scenario with 20 GB per node reads that size from
    the run and prints its answer for it."""
    import yaml

    src = NOTEBOOKS_DIR.parent / "scenarios" / "rolling-4-nodes-8.0.yaml"
    raw = yaml.safe_load(src.read_text())
    raw["data"]["size"] = "20GB"
    mine = tmp_path / "my.yaml"
    mine.write_text(yaml.safe_dump(raw))
    monkeypatch.setenv("NDBSIM_NOTEBOOK_SCENARIO", str(mine))
    text = _text(_execute(NOTEBOOKS_DIR / "05_rolling_restart_window.ipynb"))
    assert "at 20 GB per node" in text and "for 40 GB in total" in text, text[-600:]


def test_the_rolling_notebook_on_your_scenario_agrees_with_ndbsim_run(small_env, monkeypatch, tmp_path):
    """Issue 41: on a user's scenario (NodeIds 141-144, 100 GB per node in 300M rows under a
    DataMemory of 128G, its own seed 3) notebook 05 prints every change it makes, runs the cluster's
    own size as the scenario has it (no DataMemory of 1.6 × the data, no data.rows=null, not seed 5),
    and its figures for it are the ones ``ndbsim run`` prints with the --set it names."""
    import json
    import re
    import subprocess
    import sys

    import yaml

    raw = yaml.safe_load((NOTEBOOKS_DIR.parent / "scenarios" / "rolling-4-nodes-8.0.yaml").read_text())
    raw["cluster"]["node_ids"] = [141, 142, 143, 144]
    raw["cluster"]["config"]["DataMemory"] = "128G"
    raw["data"] = {**raw["data"], "size": "100G", "rows": "300M"}
    raw["data"].pop("row_size", None)
    raw["simulation"] = {"replications": 5, "seed": 3}
    mine = tmp_path / "my.yaml"
    mine.write_text(yaml.safe_dump(raw))
    monkeypatch.setenv("NDBSIM_NOTEBOOK_SCENARIO", str(mine))
    text = _text(_execute(NOTEBOOKS_DIR / "05_rolling_restart_window.ipynb"))
    assert "seed 3, 3 replications" in text and "4 data nodes, scale-out (100 GB per node): your cluster" in text
    assert "data.rows=null" not in text and "DataMemory=160G" not in text
    assert "same data (200 GB total): --set cluster.data_nodes=2" in text  # 200G on one node group
    assert "--set data.size=200G --set data.rows=600000000 --set cluster.config.DataMemory=256G" in text
    line = next(x for x in text.splitlines() if x.startswith("your cluster as it is:"))
    window, one, node = re.search(r"window ([\d.]+) s.* restart ([\d.]+) s.*restart\.nodes=\[(\d+)\]", line).groups()

    def run(*sets):
        args = [a for s in sets for a in ("--set", s)]
        p = subprocess.run(
            [sys.executable, "-m", "ndbsim", "run", str(mine), "-n", "3", *args, "-f", "json"],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 0, p.stderr
        return f"{json.loads(p.stdout)['total_restart_secs']:.1f}"

    assert window == run("restart.type=rolling", "restart.nodes=null", "restart.plan=per-node-group")
    assert one == run("restart.type=node", f"restart.nodes=[{node}]")
