"""What a host fit leaves in the fitted scenario: the ``calibrated:`` section, the fit's error on
the user's own restart_info rows per column, so that every later run of that scenario shows it as
its accuracy band (``output.accuracy.calibrated_band``) instead of the published validations'."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ndbsim.studies.calibration.cases import Case, Row

SECTION = "calibrated"
"""The scenario's top-level key the record goes under (``input.scenario.model.Scenario``)."""

IDLE_SECS = 0.05
"""A column 0 s in every row and within this of 0 in the fitted run says nothing about the fit
(a phase that did not happen): left out of the record."""

COMMENT = (
    "# written by ndbsim calibrate: the host fit's error on your restart_info rows, per column "
    "(predicted − published over the rows: [lowest, highest] seconds, and as a share of the published); "
    "ndbsim run and report show it as the accuracy band"
)


def _idle(rows: list[Row]) -> bool:
    return all(r.published == 0 and abs(r.predicted) < IDLE_SECS for r in rows)


def fit_record(case: Case, rows: list[Row], fitted: tuple[str, ...]) -> dict[str, Any]:
    """The record of a finished host fit: the rows' file, their nodes, the figures fitted and,
    per restart_info column, the range of the fitted run's errors over the rows."""
    by_column: dict[str, list[Row]] = {}
    for r in rows:
        if not r.info:
            by_column.setdefault(r.figure, []).append(r)
    error: dict[str, Any] = {}
    for column, mine in by_column.items():
        if _idle(mine):
            continue
        secs = [r.error for r in mine]
        shares = [r.rel_error for r in mine if r.published > 0]
        error[column] = {
            "secs": [round(min(secs), 1), round(max(secs), 1)],
            "share": [round(min(shares), 3), round(max(shares), 3)] if shares else None,
        }
    source = case.source.get("restart_info") if isinstance(case.source, dict) else None
    return {
        "restart_info": Path(str(source)).name if source else None,
        "nodes": case.nodes,
        "fitted": list(fitted),
        "error": error,
    }


def section_text(record: dict[str, Any]) -> str:
    """The section as the scenario file gets it: one line per key, each column's error a flow mapping."""
    lines = [f"{SECTION}:   {COMMENT}"]
    for key, value in record.items():
        if key == "error":
            lines.append("  error:")
            lines.extend(f"    {col}: {_flow(v)}" for col, v in value.items())
        else:
            lines.append(f"  {key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def _flow(value: Any) -> str:
    return str(yaml.safe_dump(value, default_flow_style=True, width=10_000)).strip().removesuffix("...").strip()


def with_section(text: str, record: dict[str, Any]) -> str:
    """``text`` (a scenario file) with its ``calibrated:`` section replaced by ``record``'s (or
    added at the end); every other line kept."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if re.match(rf"^{SECTION}\s*:", ln)), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if re.match(r"^[A-Za-z_]", lines[i])), len(lines))
        del lines[start:end]
    body = "\n".join(lines).rstrip("\n")
    return (body + "\n" if body else "") + section_text(record)
