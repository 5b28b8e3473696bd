"""``ndbsim eta --prometheus-textfile`` end to end on the real components (issue 46): Debian's
``prometheus-node-exporter`` (textfile collector only) and ``prometheus`` scraping it every second,
both on 127.0.0.1 at free ports; two dry runs (``--replay``) of a shipped scenario into one
textfile folder, and a watch that gives up. Every panel's query of the Grafana dashboard is
evaluated through Prometheus's HTTP API: each returns data, the forecasts hold the true end,
the two clusters do not collide, and the given-up watch's file says it stopped.

The binaries absent on a developer's machine: skipped with the reason; CI (``.ci/run``) installs
them, and under CI a missing one is a failure, not a skip. The processes started here are
stopped by their PID whatever happens."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

SCENARIO = ROOT / "scenarios" / "rolling-4-nodes-8.0.yaml"
NAME = "Rolling restart, 4 data nodes, NDB 8.0"
"""The scenario's ``name:``: the cluster label by default."""
OTHER, GAVE_UP = "second cluster", "gave up"
SPEED = 40
"""The dry runs' clock speed: the scenario's ≈8-minute restart plays in about 12 s."""
BINARIES = {"prometheus": "prometheus", "prometheus-node-exporter": "prometheus-node-exporter"}
"""Each binary and the Debian package that ships it."""
DEADLINE_SECS = 120
"""The most the whole test may wait on anything (a guard against a hang, not a timing target)."""


def _binaries() -> dict[str, str]:
    found = {b: shutil.which(b) for b in BINARIES}
    missing = [BINARIES[b] for b, p in found.items() if p is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} missing in CI: .ci/run installs them (apt-get install -y ...)")
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install {' '.join(missing)}); CI installs them")
    return {b: str(p) for b, p in found.items()}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _stop(proc: subprocess.Popen) -> None:
    """Stop one process we started, by its PID."""
    if proc.poll() is None:
        os.kill(proc.pid, 15)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, 9)
            proc.wait(timeout=10)


class Stack:
    def __init__(self, tmp: Path, bins: dict[str, str]):
        self.dir = tmp / "textfile"
        self.dir.mkdir()
        self.exporter_port, self.prom_port = _free_port(), _free_port()
        self.exporter_log = tmp / "node-exporter.log"
        (tmp / "prometheus.yml").write_text(
            "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
            "scrape_configs:\n"
            f"  - job_name: node\n    static_configs: [{{targets: ['127.0.0.1:{self.exporter_port}']}}]\n"
        )
        self.procs: list[subprocess.Popen] = []
        with open(self.exporter_log, "wb") as log:
            self.procs.append(
                subprocess.Popen(
                    [
                        bins["prometheus-node-exporter"],
                        f"--web.listen-address=127.0.0.1:{self.exporter_port}",
                        "--collector.disable-defaults",
                        "--collector.textfile",
                        f"--collector.textfile.directory={self.dir}",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        self.procs.append(
            subprocess.Popen(
                [
                    bins["prometheus"],
                    f"--config.file={tmp / 'prometheus.yml'}",
                    f"--storage.tsdb.path={tmp / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{self.prom_port}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        self.api = f"http://127.0.0.1:{self.prom_port}/api/v1/"
        deadline = time.time() + DEADLINE_SECS
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.prom_port}/-/ready", timeout=2).read()
                return
            except OSError:
                assert all(p.poll() is None for p in self.procs), "prometheus or node_exporter exited at start"
                time.sleep(0.2)
        raise AssertionError("prometheus not ready")

    def query(self, expr: str, at: float | None = None) -> list[dict]:
        args = {"query": expr, **({"time": f"{at:.3f}"} if at is not None else {})}
        out = _get(self.api + "query?" + urllib.parse.urlencode(args))
        assert out["status"] == "success", out
        return out["data"]["result"]

    def query_range(self, expr: str, start: float, end: float) -> list[dict]:
        args = {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": "1"}
        out = _get(self.api + "query_range?" + urllib.parse.urlencode(args))
        assert out["status"] == "success", out
        return out["data"]["result"]

    def stop(self) -> None:
        for p in self.procs:
            _stop(p)


@pytest.fixture
def stack(tmp_path):
    s = Stack(tmp_path, _binaries())
    try:
        yield s
    finally:
        s.stop()


def panel_exprs() -> list[tuple[str, str]]:
    """Every (panel title, expr) of the dashboard."""
    d = json.loads((ROOT / "monitoring" / "grafana-ndbsim-eta.json").read_text())
    return [(p["title"], t["expr"]) for p in d["panels"] for t in p["targets"]]


def _eta(*args: str, cwd: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "ndbsim", "eta", str(SCENARIO), *args]
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_dry_run_on_prometheus_and_node_exporter_fills_every_panel(stack, tmp_path):
    common = ("--replay", "--speed", str(SPEED), "--watch", "45s", "-n", "2")
    runs = [
        _eta(*common, "--prometheus-textfile", str(stack.dir / "a.prom"), cwd=tmp_path),
        _eta(*common, "--prometheus-textfile", str(stack.dir / "b.prom"), "--cluster", OTHER, cwd=tmp_path),
    ]
    try:
        seen: set[str] = set()
        exprs = panel_exprs()
        deadline = time.time() + DEADLINE_SECS
        while len(seen) < len(exprs) and runs[0].poll() is None and time.time() < deadline:
            for title, e in exprs:
                if (title, e) not in seen and stack.query(e.replace("$cluster", NAME)):
                    seen.add((title, e))  # type: ignore[arg-type]
            time.sleep(0.5)
        missing = [t for t in exprs if t not in seen]
        assert not missing, f"panels without data while the dry run ran: {missing}"
        outs = [r.communicate(timeout=DEADLINE_SECS) for r in runs]
    finally:
        for r in runs:
            _stop(r)
    for r, (_, err) in zip(runs, outs):
        assert r.returncode == 0, err
    time.sleep(2.5)  # two more scrapes of the final files
    # the true end: the dry run's restart (its length, on the file's clock) from the watch's start
    length = float(re.search(r"wave\(s\), (\d+) s\)", outs[0][1]).group(1))  # type: ignore[union-attr]
    start = stack.query(f'ndbsim_eta_watch_start_timestamp_seconds{{cluster="{NAME}"}}')[0]["value"][1]
    truth = float(start) + length / SPEED
    ends = {
        s["metric"]["percentile"]: s["values"]
        for s in stack.query_range(
            f'ndbsim_eta_plan_end_timestamp_seconds{{cluster="{NAME}",percentile=~"5|95"}}', float(start), time.time()
        )
    }
    assert len(ends["5"]) >= 3, ends
    # one rounded second of the restart per restart_info column the snapshot shows, on the file's clock
    slack = 20 / SPEED
    for (t, lo), (_, hi) in zip(ends["5"], ends["95"]):
        assert float(lo) - slack <= truth <= float(hi) + slack, (t, lo, truth, hi)
    # two clusters in one folder: both scraped whole, nothing dropped as a duplicate
    clusters = {s["metric"]["cluster"] for s in stack.query("ndbsim_eta_watch_up")}
    assert clusters == {NAME, OTHER}
    assert stack.query("node_textfile_scrape_error")[0]["value"][1] == "0"
    assert "collected before" not in stack.exporter_log.read_text()
    for c in (NAME, OTHER):
        assert stack.query(f'ndbsim_eta_watch_up{{cluster="{c}"}}')[0]["value"][1] == "0"
        assert stack.query(f'ndbsim_eta_watch_stop_reason{{cluster="{c}",reason="complete"}}')[0]["value"][1] == "1"
        assert not stack.query(f'ndbsim_eta_plan_end_timestamp_seconds{{cluster="{c}"}}')  # no forecast left
    # a watch that gives up: its file says it stopped, and why
    client = tmp_path / "mysql"
    client.write_text('#!/bin/sh\necho "ERROR 2003 (HY000): Can\'t connect to MySQL server" >&2\nexit 1\n')
    client.chmod(0o755)
    args = ["--watch", "0.2s", "--max-failures", "2", "--mysql", str(client), "--cluster", GAVE_UP]
    gave_up = _eta(*args, "--prometheus-textfile", str(stack.dir / "c.prom"), "--", "--defaults-file=x", cwd=tmp_path)
    try:
        _, err = gave_up.communicate(timeout=DEADLINE_SECS)
    finally:
        _stop(gave_up)
    assert gave_up.returncode == 2 and "--max-failures 2" in err, err
    time.sleep(2.5)
    assert stack.query(f'ndbsim_eta_watch_up{{cluster="{GAVE_UP}"}}')[0]["value"][1] == "0"
    reason = stack.query(f'ndbsim_eta_watch_stop_reason{{cluster="{GAVE_UP}"}} == 1')
    assert [r["metric"]["reason"] for r in reason] == ["max_failures"]
    assert stack.query(f'ndbsim_eta_snapshot_failures_total{{cluster="{GAVE_UP}"}}')[0]["value"][1] == "2"
    promtool = shutil.which("promtool")
    if promtool:
        for f in sorted(stack.dir.glob("*.prom")):
            check = subprocess.run([promtool, "check", "metrics"], input=f.read_text(), capture_output=True, text=True)
            assert check.returncode == 0, (f.name, check.stdout, check.stderr)
