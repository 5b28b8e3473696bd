"""README's commands that run a notebook write a file the user opens (issue 47 item 6): each
backticked ``jupyter`` command of README.md (but ``--inplace``, which refreshes the stored
notebooks), run as written from a directory where ``notebooks/`` is the repository's, leaves a new
HTML page or executed notebook there with the run's figures in it. Small grids
(``NDBSIM_NOTEBOOK_SMALL=1``) keep it short; the notebooks themselves are tests/test_notebooks.py's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("nbclient")


def readme_commands() -> list[str]:
    """The notebook-running commands README quotes, without their ``pip install … &&`` part."""
    text = (ROOT / "README.md").read_text()
    out = []
    for quoted in re.findall(r"`([^`\n]*jupyter [^`\n]*)`", text):
        if "--inplace" in quoted:
            continue
        out.append(quoted.split("&& ", 1)[1] if quoted.startswith("pip install") else quoted)
    return out


def test_readme_quotes_a_notebook_command():
    assert readme_commands()


@pytest.mark.parametrize("command", readme_commands())
def test_the_readme_command_writes_a_page_to_open(command, tmp_path):
    if shutil.which("jupyter") is None:
        pytest.skip("the notebooks extra's jupyter command is not installed")
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks")
    shutil.copy(ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml", tmp_path / "my.yaml")
    env = {**os.environ, "NDBSIM_NOTEBOOK_SMALL": "1", "MPLBACKEND": "Agg", "PWD": str(tmp_path)}
    before = set((ROOT / "notebooks").iterdir())
    p = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    made = [f for f in tmp_path.iterdir() if f.suffix in (".html", ".ipynb")]
    stray = set((ROOT / "notebooks").iterdir()) - before
    for f in stray:
        f.unlink()
    assert not stray, f"{command!r} wrote {sorted(map(str, stray))} into the repository's notebooks/"
    assert len(made) == 1, f"{command!r} wrote no page in the directory it was run from: {p.stderr[-1000:]}"
    page = made[0].read_text()
    assert "image/png" in page, "the page has no figure"
