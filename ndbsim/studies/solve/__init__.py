"""``ndbsim solve``: inverse questions, answered by root finding on the simulation.

- ``redo-log``: the smallest NoOfFragmentLogFiles (or FragmentLogFileSize) that avoids error 410
  at the scenario's write rate;
- ``update-rate``: the highest update rate during the restart at which the copy still converges;
- ``lcp-speed``: the restart LCP write speed (MaxDiskWriteSpeedOtherNodeRestart and
  MaxDiskWriteSpeedOwnRestart together, or DiskCheckpointSpeedInRestart before 7.4) that a
  restart window needs;
- ``data-size``: the most data per node whose restart fits a window (rows and DataMemory scale
  with it, keeping the scenario's row size and memory headroom).

Every run uses the scenario's seed and replications, so the answer is what ``ndbsim run
--set ...`` prints. A pass/fail question is bisected (``scipy.optimize.bisect`` on a ±1 sign;
whole-number parameters by bisection on the integers); a window question is ``brentq`` on
``total − window``, then moved to the parameter's step (a megabyte, a gigabyte). Either way the
answer ends verified by runs: the answer passes, one step short of it fails.

The package, one module per question (``redo_log``, ``update_rate``, ``lcp_speed``,
``data_size``), the searches they share (``search``), the answer (``answer``) and ``solve()``
itself (``questions``).
"""

from __future__ import annotations

from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.questions import QUESTIONS, WINDOW_QUESTIONS, solve
from ndbsim.studies.solve.redo_log import MAX_LOG_FILES
from ndbsim.studies.solve.update_rate import MAX_UPDATE_RATE, RATE_TOLERANCE

__all__ = ["MAX_LOG_FILES", "MAX_UPDATE_RATE", "QUESTIONS", "RATE_TOLERANCE", "WINDOW_QUESTIONS", "Answer", "solve"]
