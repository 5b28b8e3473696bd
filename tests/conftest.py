import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the interval's measured range ends are kept in a directory of this test session's own, so that no
# test reads what another checkout's run left (ndbsim.output.interval.measured.CACHE_ENV)
os.environ.setdefault("NDBSIM_CACHE_DIR", tempfile.mkdtemp(prefix="ndbsim-cache-"))
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


@pytest.fixture
def root() -> Path:
    return ROOT


WIDE = "10000"
"""COLUMNS while a test runs: ndbsim fits its text to the terminal (``output.stdout.fit``), and a test
that reads what a command printed reads whole lines; tests/cli/test_width.py sets its own widths."""


@pytest.fixture(autouse=True)
def whole_lines(monkeypatch):
    monkeypatch.setenv("COLUMNS", WIDE)
