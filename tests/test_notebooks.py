"""Every notebook in notebooks/ runs top to bottom without an error (small grids).

The notebooks read ``NDBSIM_NOTEBOOK_SMALL=1`` and shrink their grids and replications; the
kernel inherits the environment, so it is set (with a non-interactive matplotlib backend)
before the kernel starts. Notebooks added later are picked up by the glob.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, small_env):
    assert os.environ["NDBSIM_NOTEBOOK_SMALL"] == "1"
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
    nb = nbformat.read(NOTEBOOKS_DIR / "05_rolling_restart_window.ipynb", as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS_DIR)}}
    ).execute()
    text = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "text" in o
    )
    assert "at 20 GB per node" in text and "for 40 GB in total" in text, text[-600:]
