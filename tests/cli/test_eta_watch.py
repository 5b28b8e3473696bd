"""``ndbsim eta --watch`` against a stand-in ``mysql`` client that replays snapshots cut from the
shipped rolling restart: exit 0 when the restart completes, 4 when it overruns, 2 on bad input;
the client's options pass through, a password is refused and never printed, and no client is
left running after Ctrl-C or a killed parent."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _helpers import ndbsim
from conftest import ROOT

from ndbsim.studies.eta.replay import cut_times, read_rows, snapshot_text

DATA = ROOT / "tests" / "data" / "rolling-8.0.35"
START = 1_800_000_000.0
WAVES = [[11, 13], [12, 14]]
INIT_SETS = ("version=8.0.35", "data.size=40GB", "data.row_size=250B", "restart.type=rolling")

FAKE = """#!{python}
# a stand-in mysql client: checks its options, prints the next snapshot of its folder; with a file
# "fail" holding k, its first k calls fail as mysql does when the SQL node refuses (or the calls
# listed in "fail-calls", from 0); with a file
# "textfile" naming the --prometheus-textfile, each call keeps a copy of it as ndbsim left it
import os, shutil, sys, time
here = os.path.dirname(os.path.abspath(__file__))
assert "--batch" in sys.argv and any(a.startswith("--defaults-file=") for a in sys.argv), sys.argv
sys.stdin.read()
with open(os.path.join(here, "pid"), "a") as f:
    f.write(f"{{os.getpid()}}\\n")
if os.path.exists(os.path.join(here, "hang")):
    time.sleep(600)
calls_path = os.path.join(here, "calls")
calls = int(open(calls_path).read()) if os.path.exists(calls_path) else 0
open(calls_path, "w").write(str(calls + 1))
if os.path.exists(os.path.join(here, "textfile")):
    prom = open(os.path.join(here, "textfile")).read()
    if os.path.exists(prom):
        shutil.copy(prom, os.path.join(here, f"seen-{{calls:03d}}.prom"))
fails = os.path.exists(os.path.join(here, "fail")) and calls < int(open(os.path.join(here, "fail")).read())
at = os.path.join(here, "fail-calls")
if fails or (os.path.exists(at) and str(calls) in open(at).read().split(",")):
    sys.stderr.write("ERROR 2003 (HY000): Can't connect to MySQL server on 'sql1:3306' (111)\\n")
    sys.exit(1)
n_path = os.path.join(here, "n")
n = int(open(n_path).read()) if os.path.exists(n_path) else 0
files = sorted(f for f in os.listdir(here) if f.endswith(".tsv"))
open(n_path, "w").write(str(n + 1))
sys.stdout.write(open(os.path.join(here, files[min(n, len(files) - 1)])).read())
"""


@pytest.fixture
def fake(tmp_path):
    sets = [a for s in INIT_SETS for a in ("-s", s)]
    p = ndbsim("init", "--config-ini", str(DATA / "config.ini"), *sets, "-o", "my.yaml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    client = tmp_path / "client"
    client.mkdir()
    (client / "mysql").write_text(FAKE.format(python=sys.executable))
    (client / "mysql").chmod(0o755)
    (tmp_path / "my.cnf").write_text("[client]\npassword=hunter2\n")
    return tmp_path


def _snapshots(d: Path, times: list[float]) -> None:
    rows = read_rows(str(DATA / "restart_info.csv"))
    for k, at in enumerate(times):
        (d / "client" / f"{k:03d}.tsv").write_text(snapshot_text(rows, WAVES, START, at))


def _watch(d: Path, *extra: str) -> subprocess.CompletedProcess:
    return ndbsim(
        "eta",
        "my.yaml",
        "--watch",
        "0.2s",
        "--mysql",
        str(d / "client" / "mysql"),
        "-n",
        "2",
        *extra,
        "--",
        "--defaults-file=my.cnf",
        cwd=d,
    )


def test_watch_follows_the_restart_to_its_end(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    times = cut_times(rows, WAVES, 1, START)
    _snapshots(fake, [START + 100, *times[:-1:3], times[-1]])
    p = _watch(fake)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == len(list((fake / "client").glob("*.tsv")))  # one line per snapshot on a pipe
    assert "complete" in lines[-1] and "wave 2/2" in lines[-2]
    assert "hunter2" not in p.stdout + p.stderr and "my.cnf" not in p.stdout + p.stderr


def test_watch_json_is_one_object_per_snapshot(fake):
    import json

    rows = read_rows(str(DATA / "restart_info.csv"))
    times = cut_times(rows, WAVES, 1, START)
    _snapshots(fake, [times[4], times[-1]])
    p = _watch(fake, "-f", "json")
    assert p.returncode == 0, p.stderr
    objs = [json.loads(line) for line in p.stdout.splitlines()]
    assert [o["complete"] for o in objs] == [False, True]
    assert objs[0]["fit"]["nodes"] == 2 and objs[0]["running_wave"] == 2


def test_watch_exits_4_past_the_p99_by_the_timeouts_margin(fake):
    # wave 2's node 12 stays in its restore for an hour: far past 1.5 x the predicted window
    rows = read_rows(str(DATA / "restart_info.csv"))
    restore = cut_times(rows, WAVES, 1, START)[4] + 5
    _snapshots(fake, [restore, restore + 1])
    text = (fake / "client" / "001.tsv").read_text()
    later = text.replace(f"{restore + 1:.6f}", f"{restore + 3600:.6f}")
    later = (
        "\n".join(
            line
            if not line.startswith(("12\t", "14\t")) or "\t" not in line or "STARTING" not in line
            else "\t".join([line.split("\t")[0], str(int(line.split("\t")[1]) + 3600), *line.split("\t")[2:]])
            for line in later.splitlines()
        )
        + "\n"
    )
    (fake / "client" / "001.tsv").write_text(later)
    p = _watch(fake)
    assert p.returncode == 4, (p.stdout, p.stderr)
    assert "p99" in p.stderr


def test_watch_refuses_an_older_snapshot_and_a_password(fake):
    _snapshots(fake, [START + 500, START + 400])
    p = _watch(fake)
    assert p.returncode == 2 and "older than the previous snapshot" in p.stderr
    q = ndbsim("eta", "my.yaml", "--watch", "1s", "--", "--password=hunter2", cwd=fake)
    assert q.returncode == 2 and "refused" in q.stderr and "hunter2" not in q.stderr


def _pids(d: Path) -> list[int]:
    f = d / "client" / "pid"
    return [int(x) for x in f.read_text().split()] if f.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of an init that has not reaped it yet is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_no_client_left_after_ctrl_c_or_a_killed_parent(fake, how):
    _snapshots(fake, [START + 100])
    (fake / "client" / "hang").write_text("")
    cmd = [sys.executable, "-m", "ndbsim", "eta", "my.yaml", "--watch", "1s", "--mysql", str(fake / "client" / "mysql")]
    proc = subprocess.Popen(
        [*cmd, "--", "--defaults-file=my.cnf"], cwd=fake, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.time() + 60
    while not _pids(fake) and time.time() < deadline:
        time.sleep(0.1)
    (child,) = _pids(fake)
    proc.send_signal(how)
    proc.wait(timeout=30)
    deadline = time.time() + 10
    while _alive(child) and time.time() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


# --- a failed snapshot, and the Prometheus textfile (issue 40) -------------------------------

CLIENT_ERROR = "ERROR 2003 (HY000): Can't connect to MySQL server on 'sql1:3306' (111)"


def _failure_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("ndbsim: snapshot ") and " failed (" in line]


def test_a_client_that_fails_twice_then_answers_gives_two_lines_then_the_eta(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    times = cut_times(rows, WAVES, 1, START)
    _snapshots(fake, [times[4], times[-1]])
    (fake / "client" / "fail").write_text("2")
    p = _watch(fake)
    assert p.returncode == 0, p.stderr
    failures = _failure_lines(p.stderr)
    assert len(failures) == 2 and all(CLIENT_ERROR in line for line in failures), p.stderr
    assert "snapshot 1 failed (1 of 5 in a row)" in failures[0] and "snapshot 2 failed (2 of 5" in failures[1]
    assert len(p.stdout.strip().splitlines()) == 2 and "complete" in p.stdout.splitlines()[-1]
    assert "Traceback" not in p.stderr


def test_a_client_that_never_answers_stops_with_exit_2_and_its_message(fake):
    _snapshots(fake, [START + 100])
    (fake / "client" / "fail").write_text("1000")
    p = _watch(fake, "--max-failures", "3")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == "" and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(_failure_lines(p.stderr)) == 2 and len(lines) == 3, p.stderr
    assert "3 snapshot(s) in a row failed (--max-failures 3)" in lines[-1] and CLIENT_ERROR in lines[-1]
    assert int((fake / "client" / "calls").read_text()) == 3


def test_max_failures_default_is_stated_and_checked(fake):
    from ndbsim.studies.eta.watch import MAX_FAILURES

    h = ndbsim("eta", "-h")
    assert "--max-failures" in h.stdout and f"(default: {MAX_FAILURES})" in " ".join(h.stdout.split())
    p = _watch(fake, "--max-failures", "0")
    assert p.returncode == 2 and "--max-failures" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def _dashboard_metrics() -> set[str]:
    """Every ndbsim metric the Grafana dashboard's queries name."""
    import json

    def exprs(node: object) -> list[str]:
        if isinstance(node, dict):
            return [v for k, v in node.items() if k == "expr" and isinstance(v, str)] + [
                e for v in node.values() for e in exprs(v)
            ]
        return [e for v in node for e in exprs(v)] if isinstance(node, list) else []

    dashboard = json.loads((ROOT / "monitoring" / "grafana-ndbsim-eta.json").read_text())
    return {m for e in exprs(dashboard["panels"]) for m in re.findall(r"\bndbsim_[a-z0-9_]+", e)}


DASHBOARD_METRICS = _dashboard_metrics()


def _families(text: str) -> dict:
    from prometheus_client.parser import text_string_to_metric_families

    return {f.name: f for f in text_string_to_metric_families(text)}


def _sampled_at(text: str) -> float:
    return _families(text)["ndbsim_eta_snapshot_timestamp_seconds"].samples[0].value


def test_watch_writes_the_textfile_after_every_snapshot_never_half_written(fake):
    import threading

    rows = read_rows(str(DATA / "restart_info.csv"))
    times = cut_times(rows, WAVES, 1, START)
    taken = [times[2], times[4], times[6], times[-1]]
    _snapshots(fake, taken)
    out = fake / "metrics"
    out.mkdir()
    prom = out / "ndbsim.prom"
    (fake / "client" / "textfile").write_text(str(prom))
    (fake / "client" / "fail-calls").write_text("2")  # the third call fails: the file says so
    cmd = [
        sys.executable,
        "-m",
        "ndbsim",
        "eta",
        "my.yaml",
        "--watch",
        "0.2s",
        "--mysql",
        str(fake / "client" / "mysql"),
    ]
    cmd += ["-n", "2", "--prometheus-textfile", str(prom), "--", "--defaults-file=my.cnf"]
    proc = subprocess.Popen(cmd, cwd=fake, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reads, bad = [], []

    def poll() -> None:  # a reader as the collector is: whatever it finds must be a whole file
        while proc.poll() is None:
            if prom.exists():
                text = prom.read_text()
                try:
                    fams = _families(text)
                    assert "ndbsim_eta_watch_up" in fams and text.endswith("\n")
                    reads.append(text)
                except Exception as e:  # any unreadable file is the failure
                    bad.append((repr(e), text))
            time.sleep(0.005)

    reader = threading.Thread(target=poll)
    reader.start()
    _, stderr = proc.communicate(timeout=300)
    reader.join()
    assert proc.returncode == 0, stderr
    assert not bad, bad[:1]
    assert len({_sampled_at(t) for t in reads if "ndbsim_eta_snapshot_timestamp_seconds" in t}) >= 2, (
        "the reader saw fewer than two snapshots' files"
    )
    # each call of the client finds the file of the snapshot before it: updated after every one;
    # the first finds the file the watch wrote as it began (no snapshot yet, nobody else's figures)
    seen = sorted((fake / "client").glob("seen-*.prom"))
    first = _families(seen[0].read_text())
    assert "ndbsim_eta_snapshot_timestamp_seconds" not in first and _value(first, "ndbsim_eta_watch_up") == 1
    seen = seen[1:]
    assert [_sampled_at(f.read_text()) for f in seen] == pytest.approx([*taken[:2], *taken[1:3]])
    fams = [_families(f.read_text()) for f in seen]
    assert [_value(f, "ndbsim_eta_consecutive_snapshot_failures") for f in fams] == [0, 0, 1, 0]
    assert [_value(f, "ndbsim_eta_snapshot_failures") for f in fams] == [0, 0, 1, 1]  # the counter's _total
    # the time left is end - time(): the failed snapshot's file keeps the ends of the one before
    assert (
        fams[2]["ndbsim_eta_plan_end_timestamp_seconds"].samples
        == fams[1]["ndbsim_eta_plan_end_timestamp_seconds"].samples
    )
    final = prom.read_text()
    assert _sampled_at(final) == pytest.approx(taken[-1])
    status = {s.labels["status"]: s.value for s in _families(final)["ndbsim_eta_restart_status"].samples}
    assert status == {"running": 0, "complete": 1, "overrun": 0}
    assert sorted(p.name for p in out.iterdir()) == ["ndbsim.prom"]  # no temporary file left
    mid = fams[1]
    ends = mid["ndbsim_eta_node_end_timestamp_seconds"].samples
    assert {s.labels["node_id"] for s in ends} >= {"12"}
    q = {s.labels["percentile"]: s.value for s in ends if s.labels["node_id"] == "12"}
    assert q["5"] <= q["50"] <= q["95"] <= q["99"] and q["50"] > taken[1]
    phase = mid["ndbsim_eta_node_phase_elapsed_seconds"].samples
    assert all(s.labels["phase"].startswith("secs_") for s in phase) and phase
    for f in [*seen, prom]:
        for fam in _families(f.read_text()).values():
            assert fam.name.startswith("ndbsim_eta_") and fam.documentation and fam.type in ("gauge", "counter")
            assert all(
                s.labels.get("cluster") == "cluster of config.ini" and "quantile" not in s.labels for s in fam.samples
            )
    # the dashboard's queries name only metrics the file holds
    names = {s.name for fam in mid.values() for s in fam.samples} | set(mid)
    assert DASHBOARD_METRICS and names >= DASHBOARD_METRICS, DASHBOARD_METRICS - names
    if shutil.which("promtool"):
        for f in [*seen, prom]:
            check = subprocess.run(
                ["promtool", "check", "metrics"], input=f.read_text(), capture_output=True, text=True
            )
            assert check.returncode == 0, (f.name, check.stdout, check.stderr)


def _value(fams: dict, name: str, **labels: str) -> float:
    (v,) = [s.value for s in fams[name].samples if all(s.labels.get(k) == x for k, x in labels.items())]
    return v


def test_textfile_needs_its_extra_and_a_prom_name_and_works_with_one_snapshot(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    (fake / "now.tsv").write_text(snapshot_text(rows, WAVES, START, cut_times(rows, WAVES, 1, START)[4]))
    blocked = "import sys; sys.modules['prometheus_client'] = None; from ndbsim.cli.app import main; main(sys.argv[1:])"
    args = ["eta", "my.yaml", "--ndbinfo", "now.tsv", "--prometheus-textfile", "eta.prom"]
    p = subprocess.run([sys.executable, "-c", blocked, *args], cwd=fake, capture_output=True, text=True)
    assert p.returncode == 2 and "pip install 'ndbsim[prometheus]'" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and not (fake / "eta.prom").exists()
    p = ndbsim("eta", "my.yaml", "--ndbinfo", "now.tsv", "--prometheus-textfile", "eta.txt", cwd=fake)
    assert p.returncode == 2 and "*.prom" in p.stderr and not (fake / "eta.txt").exists()
    p = ndbsim(*args, "-n", "2", cwd=fake)
    assert p.returncode == 0, p.stderr
    fams = _families((fake / "eta.prom").read_text())
    running = {s.labels["status"]: s.value for s in fams["ndbsim_eta_restart_status"].samples}
    assert running["running"] == 1 and fams["ndbsim_eta_running_wave"].samples[0].value == 2
    assert {s.labels["percentile"] for s in fams["ndbsim_eta_plan_end_timestamp_seconds"].samples} == {
        "5",
        "50",
        "95",
        "99",
    }


# --- the file after the watch, the cluster label, the dry run (issue 46) ---------------------

STALE = '# another run\nndbsim_eta_restart_status{cluster="cluster of config.ini",status="running"} 1\n'


def _stopped(prom: Path) -> tuple[dict, str]:
    """The file's families and the one stop reason it gives (the watch must say it stopped)."""
    fams = _families(prom.read_text())
    assert _value(fams, "ndbsim_eta_watch_up") == 0
    (reason,) = [s.labels["reason"] for s in fams["ndbsim_eta_watch_stop_reason"].samples if s.value == 1]
    for name in ("plan_end", "wave_end", "node_end"):  # a forecast nobody updates is left out
        assert (
            f"ndbsim_eta_{name}_timestamp_seconds" not in fams
            or not fams[f"ndbsim_eta_{name}_timestamp_seconds"].samples
        )
    return fams, reason


def test_a_watch_that_gives_up_replaces_another_runs_file_with_one_that_says_it_stopped(fake):
    _snapshots(fake, [START + 100])
    (fake / "client" / "fail").write_text("1000")
    prom = fake / "ndbsim.prom"
    prom.write_text(STALE)
    (fake / "client" / "textfile").write_text(str(prom))
    p = _watch(fake, "--max-failures", "2", "--prometheus-textfile", str(prom))
    assert p.returncode == 2, p.stderr
    # while the first snapshot failed, the client already found this watch's file, not the stale one
    first = _families((fake / "client" / "seen-001.prom").read_text())
    assert _value(first, "ndbsim_eta_consecutive_snapshot_failures") == 1 and "ndbsim_eta_restart_status" not in first
    fams, reason = _stopped(prom)
    assert reason == "max_failures" and _value(fams, "ndbsim_eta_snapshot_failures") == 2
    assert "ndbsim_eta_restart_status" not in fams and "ndbsim_eta_last_success_timestamp_seconds" not in fams


def test_an_overrun_says_overrun_and_shows_no_time_left(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    restore = cut_times(rows, WAVES, 1, START)[4] + 5
    _snapshots(fake, [restore, restore + 1])
    lines = []
    for line in (
        (fake / "client" / "001.tsv").read_text().replace(f"{restore + 1:.6f}", f"{restore + 3600:.6f}").splitlines()
    ):
        cells = line.split("\t")
        if cells[0] in ("12", "14") and len(cells) == 5 and cells[2] == "STARTING":
            cells[1] = str(int(cells[1]) + 3600)
        lines.append("\t".join(cells))
    (fake / "client" / "001.tsv").write_text("\n".join(lines) + "\n")
    prom = fake / "ndbsim.prom"
    p = _watch(fake, "--prometheus-textfile", str(prom))
    assert p.returncode == 4, p.stderr
    fams, reason = _stopped(prom)
    status = {s.labels["status"]: s.value for s in fams["ndbsim_eta_restart_status"].samples}
    assert reason == "overrun" and status == {"running": 0, "complete": 0, "overrun": 1}
    deadline = _value(fams, "ndbsim_eta_overrun_deadline_timestamp_seconds")
    assert deadline < _sampled_at(prom.read_text())  # the deadline it passed, in the past


def test_a_completed_watch_and_an_error_say_why_they_stopped(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    times = cut_times(rows, WAVES, 1, START)
    _snapshots(fake, [times[4], times[-1]])
    prom = fake / "ndbsim.prom"
    assert _watch(fake, "--prometheus-textfile", str(prom)).returncode == 0
    fams, reason = _stopped(prom)
    assert reason == "complete" and _value(fams, "ndbsim_eta_restart_status", status="complete") == 1
    for f in (fake / "client").glob("*"):
        if f.name in ("n", "calls") or f.suffix == ".tsv":
            f.unlink()
    _snapshots(fake, [START + 500, START + 400])  # the second is older: an error ends the watch
    p = _watch(fake, "--prometheus-textfile", str(prom))
    assert p.returncode == 2 and "older than the previous snapshot" in p.stderr
    fams, reason = _stopped(prom)
    assert reason == "error" and _sampled_at(prom.read_text()) == pytest.approx(START + 500)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_leaves_a_file_that_says_the_watch_stopped(fake, how):
    _snapshots(fake, [START + 100])
    (fake / "client" / "hang").write_text("")
    prom = fake / "ndbsim.prom"
    prom.write_text(STALE)
    cmd = [sys.executable, "-m", "ndbsim", "eta", "my.yaml", "--watch", "1s", "--mysql", str(fake / "client" / "mysql")]
    cmd += ["--prometheus-textfile", str(prom), "--", "--defaults-file=my.cnf"]
    proc = subprocess.Popen(cmd, cwd=fake, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 60
        while not _pids(fake) and time.time() < deadline:
            time.sleep(0.1)
        assert _value(_families(prom.read_text()), "ndbsim_eta_watch_up") == 1  # the stale file is gone already
        proc.send_signal(how)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert _stopped(prom)[1] == "signal"


def test_two_watches_into_one_folder_need_two_cluster_labels(fake):
    rows = read_rows(str(DATA / "restart_info.csv"))
    (fake / "now.tsv").write_text(snapshot_text(rows, WAVES, START, cut_times(rows, WAVES, 1, START)[4]))
    args = ["eta", "my.yaml", "--ndbinfo", "now.tsv", "-n", "2", "--prometheus-textfile"]
    assert ndbsim(*args, "a.prom", cwd=fake).returncode == 0
    p = ndbsim(*args, "b.prom", cwd=fake)
    assert p.returncode == 2 and "--cluster" in p.stderr and "a.prom" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and not (fake / "b.prom").exists()
    p = ndbsim(*args, "b.prom", "--cluster", "prod-eu", cwd=fake)
    assert p.returncode == 0, p.stderr
    labels = {s.labels["cluster"] for fam in _families((fake / "b.prom").read_text()).values() for s in fam.samples}
    assert labels == {"prod-eu"}


@pytest.mark.parametrize(
    "extra, field",
    [
        (["--ndbinfo", "x.tsv", "--speed", "30"], "--speed"),
        (["--replay", "--speed", "0"], "--speed"),
        (["--replay", "--ndbinfo", "x.tsv"], "--replay"),
        (["--replay", "--cluster", " "], "--cluster"),
    ],
)
def test_dry_run_options_are_checked(fake, extra, field):
    p = ndbsim("eta", "my.yaml", *extra, cwd=fake)
    assert p.returncode == 2 and field in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_a_dry_run_watches_a_simulated_restart_of_the_scenario_to_its_end(fake):
    prom = fake / "dry.prom"
    p = ndbsim("eta", "my.yaml", "--replay", "--speed", "400", "-n", "2", "--prometheus-textfile", str(prom), cwd=fake)
    assert p.returncode == 0, p.stderr
    assert "dry run: a simulated restart of my.yaml" in p.stderr and "played 400 times as fast" in p.stderr
    assert "complete" in p.stdout.strip().splitlines()[-1] and len(p.stdout.strip().splitlines()) >= 2
    fams, reason = _stopped(prom)
    assert reason == "complete" and _value(fams, "ndbsim_eta_clock_speed") == 400


def test_the_collision_check_reads_any_label_value_back(tmp_path):
    from ndbsim.errors import InputError
    from ndbsim.studies.eta.metrics import WatchState, check_cluster_free, write_textfile

    name = 'prod "eu-1" \\ Zürich'
    write_textfile(tmp_path / "a.prom", None, WatchState(name, START))
    check_cluster_free(tmp_path / "a.prom", name)  # its own file is no collision
    check_cluster_free(tmp_path / "b.prom", "prod eu-1")
    with pytest.raises(InputError, match="--cluster"):
        check_cluster_free(tmp_path / "b.prom", name)
