"""The Grafana dashboard (monitoring/grafana-ndbsim-eta.json) as Grafana reads it from a file.

No registry package ships a JSON schema of a dashboard: npm's ``@grafana/schema`` (13.2.3) ships
TypeScript types generated from Grafana's CUE (``dist/types/raw/dashboard/x/types.gen.d.ts``), so
the structure this file relies on is checked here against those types' required fields and
enums (``Dashboard``, ``Panel``, ``VariableModel``, ``GridPos``, ``ValueMap``, ``MappingType``,
``VariableType``). Its queries are evaluated on a real Prometheus in test_eta_prometheus.py."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT

DASHBOARD = json.loads((ROOT / "monitoring" / "grafana-ndbsim-eta.json").read_text())
PANELS = DASHBOARD["panels"]

VARIABLE_TYPES = {"query", "adhoc", "groupby", "constant", "datasource", "interval", "textbox", "custom", "system"}
"""``VariableType`` of @grafana/schema's dashboard types."""
MAPPING_TYPES = {"value", "range", "regex", "special"}
"""``MappingType`` of @grafana/schema's dashboard types."""
PANEL_TYPES = {"stat", "timeseries", "bargauge", "state-timeline"}
"""Grafana's core panel plugins this dashboard uses (no plugin to install)."""


def test_it_provisions_from_a_file_without_the_import_dialog():
    text = json.dumps(DASHBOARD)
    assert "__inputs" not in DASHBOARD and "DS_PROMETHEUS" not in text  # only the import dialog resolves these
    assert isinstance(DASHBOARD["schemaVersion"], int) and DASHBOARD["uid"] and DASHBOARD["title"]
    variables = {v["name"]: v for v in DASHBOARD["templating"]["list"]}
    assert all(v["type"] in VARIABLE_TYPES for v in variables.values())
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    cluster = variables["cluster"]
    assert cluster["type"] == "query" and cluster["datasource"]["uid"] == "${datasource}"
    assert cluster["query"]["query"] == "label_values(ndbsim_eta_watch_up, cluster)" and not cluster["multi"]
    # every variable a panel names is defined
    used = set(re.findall(r"\$\{?(\w+)", text)) - {"__interval", "__rate_interval"}
    assert used <= set(variables), used - set(variables)


@pytest.mark.parametrize("panel", PANELS, ids=[p["title"] for p in PANELS])
def test_each_panel(panel):
    assert panel["type"] in PANEL_TYPES
    assert set(panel["gridPos"]) >= {"h", "w", "x", "y"} and panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
    assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
    defaults = panel["fieldConfig"]["defaults"]
    assert defaults.get("unit"), "every panel has a unit"
    assert isinstance(panel["fieldConfig"]["overrides"], list)
    for m in defaults.get("mappings", []):
        assert m["type"] in MAPPING_TYPES and all("text" in r and "color" in r for r in _results(m))
    for t in panel["targets"]:
        assert t["datasource"] == panel["datasource"] and t["refId"]
        assert 'cluster="$cluster"' in t["expr"], "every query is of the chosen cluster"
        assert "quantile" not in t["expr"] and not re.search(r"p0\.\d", t["legendFormat"])


def _results(mapping: dict) -> list[dict]:
    opts = mapping["options"]
    return [opts["result"]] if mapping["type"] in ("range", "regex", "special") else list(opts.values())


def test_the_status_panels_give_each_status_its_own_colour():
    def colours(title: str) -> dict[str, str]:
        (panel,) = [p for p in PANELS if p["title"] == title]
        return {r["text"]: r["color"] for m in panel["fieldConfig"]["defaults"]["mappings"] for r in _results(m)}

    restart = colours("Restart status")
    assert set(restart) == {"running", "complete", "overrun"} and len(set(restart.values())) == 3
    watch = colours("Watch")
    assert watch["watching"] != watch["stopped: overrun"] and watch["stopped: gave up (--max-failures)"] == "red"


def test_the_wave_ends_and_p99_are_shown():
    exprs = " ".join(t["expr"] for p in PANELS for t in p["targets"])
    assert "ndbsim_eta_wave_end_timestamp_seconds" in exprs and "99" in exprs
    assert "ndbsim_eta_plan_end_timestamp_seconds" in exprs and "- time()" in exprs
