"""What the predictive interval costs ``ndbsim run``'s default output (issue 43's target: at most
1.5x the time without it): ``python benchmarks/interval_speed.py``, or the interval row of
``bench.py``. Per round, in one process and in alternation: the default scenario loaded, run
(as ``ndbsim run`` does, then annotated) and its phase table written, once with the interval and
once with ``Result.interval`` returning nothing; the least CPU time of several rounds each."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ndbsim.models.load import load
from ndbsim.output.result import Result
from ndbsim.output.table import phase_table

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = {
    "default 2-node node restart": None,
    "3-replica 8.4 cluster": str(ROOT / "tests" / "data" / "three-replicas-8.4.3.yaml"),
}
"""The runs measured: the built-in default scenario and the tests' 3-replica 8.4.3 cluster."""


def _once(path: str | None) -> None:
    loaded = load(path)
    result = loaded.run(None, None, explained=False)
    loaded.model.annotate(result, loaded.prepared, loaded.origins, loaded.notes, [])
    phase_table(result)


def _cpu(path: str | None, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        _once(path)
        best = min(best, time.process_time() - t0)
    return best


def measure(rounds: int = 7) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    real = Result.interval
    for name, path in SCENARIOS.items():
        _once(path)  # warm the caches both sides share
        with_iv, without = float("inf"), float("inf")
        for _ in range(rounds):
            with_iv = min(with_iv, _cpu(path, 1))
            Result.interval = lambda self: {}  # type: ignore[assignment,method-assign]
            try:
                without = min(without, _cpu(path, 1))
            finally:
                Result.interval = real  # type: ignore[method-assign]
        out[name] = {"with": with_iv, "without": without}
    return out


def line(m: dict[str, Any]) -> str:
    target = 1.5
    parts = []
    worst = 0.0
    for name, t in m.items():
        r = t["with"] / t["without"]
        worst = max(worst, r)
        parts.append(f"{name} {t['with'] * 1e3:.1f} ms vs {t['without'] * 1e3:.1f} ms ({r:.2f}x)")
    verdict = "ok" if worst <= target else "MISSED"
    shown = "; ".join(parts)
    return f"run's default output with the predictive interval (CPU): {shown} [target <= {target:g}x: {verdict}]"


if __name__ == "__main__":
    print(line(measure()))
