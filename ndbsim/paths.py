"""Where the repository's data lives, for modules that must not import each other to find it."""

from __future__ import annotations

from pathlib import Path

CASES_DIR = Path(__file__).resolve().parents[1] / "calibration"
"""The repository's ``calibration/`` directory: one YAML case per published restart timing
(calibration/README.md); ``ndbsim check`` and ``ndbsim calibrate`` read it by default, and the
InnoDB fit reads its ``innodb-*.yaml`` cases from it."""
