"""A signal that lands where Python cannot raise it: inside a SimPy process generator being
closed (its ``finally``), where an exception is "ignored" and the run would go on to its end.
The signal is sent from the LCP master's own ``finally``, so it lands there every time, not by
chance: each long path must still stop with its one line and exit code, and write nothing."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from ndbsim.cli.app import main
from ndbsim.engine.lcp.master import LcpMaster

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = (ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml").read_text()
RI = "node_id,total_restart_secs,secs_restore_fragments,secs_exec_redo_log\n2,415,140,30\n"

SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")]

COMMANDS = {
    "run": ["run", "-n", "400", "-o", "out.json"],
    "advise": ["advise", "-n", "60", "-w", "1", "-o", "out.txt"],
    "solve": ["solve", "redo-log", "-n", "40", "-o", "out.txt"],
    "calibrate": ["calibrate", "--restart-info", "ri.csv", "--scenario", "s.yaml", "-o", "fit.yaml"],
    "report": ["report", "-n", "400", "-o", "out.html"],
    "sweep": ["sweep", "sw.yaml", "-w", "1", "-o", "out.csv"],
}


@pytest.fixture
def signal_in_a_finaliser(monkeypatch):
    """Make the first LCP-master process that is closed send ``sig`` to this process from its
    ``finally``, i.e. while the generator is being finalised."""

    def arm(sig: int) -> list[int]:
        fired: list[int] = []
        loop = LcpMaster._loop

        def closing_loop(self):
            try:
                yield from loop(self)
            finally:
                if not fired:
                    fired.append(sig)
                    os.kill(os.getpid(), sig)

        monkeypatch.setattr(LcpMaster, "_loop", closing_loop)
        return fired

    return arm


@pytest.mark.parametrize("sig,code,word", SIGNALS, ids=[s[2] for s in SIGNALS])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_signal_in_a_generator_finaliser_still_stops(
    command, sig, code, word, signal_in_a_finaliser, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sw.yaml").write_text("factors:\n  cluster.config.RecoveryWork: [25, 50, 75]\nreplications: 200\n")
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "ri.csv").write_text(RI)
    before = sorted(p.name for p in tmp_path.iterdir())
    fired = signal_in_a_finaliser(sig)
    with pytest.raises(SystemExit) as exc:
        main(COMMANDS[command])
    _, err = capsys.readouterr()
    assert fired == [sig]
    assert exc.value.code == code, err[-2000:]
    assert err.strip().splitlines()[-1] == f"ndbsim: {word}", err[-2000:]
    assert "Traceback" not in err and "Exception ignored" not in err, err[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 0), (signal.SIGINT, 0)])
def test_a_forked_worker_before_its_initializer_never_unwinds(sig, code):
    """A pool worker is forked with the main process's handlers and keeps them until its
    initializer runs; a signal in that window (the main process stopping its pool) ends the
    worker at once after SIGTERM and is ignored otherwise, never raised as a traceback."""
    from ndbsim import signals

    previous = signals.install()
    try:
        pid = os.fork()
        if pid == 0:  # the worker: no pytest machinery may run here
            try:
                os.kill(os.getpid(), sig)
                os._exit(0)
            except BaseException:
                os._exit(70)
        _, status = os.waitpid(pid, 0)
    finally:
        signals.restore(previous)
    assert os.waitstatus_to_exitcode(status) == code
    assert signals.pending() is None
