"""What the predictive interval costs ``ndbsim run``'s default output (issue 49's target: at most
2x the time without it, with the defaulted inputs' range ends measured on the model):
``python benchmarks/interval_speed.py``, or the interval row of ``bench.py``. Per round, in one
process and in alternation: the default scenario loaded, run (as ``ndbsim run`` does, then
annotated) and its phase table written, once with the interval and once with ``Result.interval``
returning nothing; the least CPU time of several rounds each. The interval's range ends are kept
(``output.interval.measured``): "with" is a scenario run again (ends kept), "first" the first
run of a scenario (the ends simulated), reported beside it."""

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


def _first(path: str | None) -> float:
    """The CPU time of a scenario's first run: no range end kept in the process or on disk."""
    import os

    from ndbsim.output.interval import measured

    saved = os.environ.get(measured.CACHE_ENV)
    os.environ[measured.CACHE_ENV] = ""
    measured._MEMO.clear()
    try:
        return _cpu(path, 1)
    finally:
        if saved is None:
            del os.environ[measured.CACHE_ENV]
        else:
            os.environ[measured.CACHE_ENV] = saved


def measure(rounds: int = 7) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    real = Result.interval
    for name, path in SCENARIOS.items():
        first = _first(path)
        _once(path)  # warm the caches both sides share
        with_iv, without = float("inf"), float("inf")
        for _ in range(rounds):
            with_iv = min(with_iv, _cpu(path, 1))
            Result.interval = lambda self: {}  # type: ignore[assignment,method-assign]
            try:
                without = min(without, _cpu(path, 1))
            finally:
                Result.interval = real  # type: ignore[method-assign]
        out[name] = {"with": with_iv, "without": without, "first": first}
    return out


def line(m: dict[str, Any]) -> str:
    target = 2.0
    parts = []
    worst = 0.0
    for name, t in m.items():
        r = t["with"] / t["without"]
        worst = max(worst, r)
        first = f"; first run {t['first'] * 1e3:.1f} ms ({t['first'] / t['without']:.1f}x)" if "first" in t else ""
        parts.append(f"{name} {t['with'] * 1e3:.1f} ms vs {t['without'] * 1e3:.1f} ms ({r:.2f}x{first})")
    verdict = "ok" if worst <= target else "MISSED"
    shown = "; ".join(parts)
    return f"run's default output with the predictive interval (CPU): {shown} [target <= {target:g}x: {verdict}]"


if __name__ == "__main__":
    print(line(measure()))
