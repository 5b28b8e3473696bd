"""``ndbsim solve``: inverse questions, answered by search on the simulation.

- ``redo-log``: the smallest NoOfFragmentLogFiles (or FragmentLogFileSize) that avoids error 410
  at the scenario's write rate, and a recommended size whose REDO peak leaves a margin
  (``--margin``, default a third: seed 004's log for four LCPs where three must fit);
- ``update-rate``: the highest update rate during the restart at which the copy converges, the
  REDO log holds and the restart ends within ``--window`` (without one: within twice its time
  with no updates, a bound the answer prints);
- ``lcp-speed``: the restart LCP write speed (MaxDiskWriteSpeedOtherNodeRestart and
  MaxDiskWriteSpeedOwnRestart together, or DiskCheckpointSpeedInRestart before 7.4) that a
  restart window needs;
- ``data-size``: the most data per node whose restart fits a window, on the hardware as
  configured (DataMemory bounds the data; the answer says where it runs out), or with DataMemory
  growing with the data (``--grow-datamemory``);
- ``plan``: the safest rolling-restart plan whose window fits ``--window``, among every plan the
  replica count allows (``plans``: one-at-a-time, per-node-group, and with three or four
  replicas waves of several nodes of a node group), each listed with its window and the node
  groups it leaves on a single replica.

Every run uses the scenario's seed and replications, so the answer is what ``ndbsim run
--set ...`` prints. Every search is bisection on the parameter's steps (a file, a megabyte, a
gigabyte, a rate's third significant figure; ``search``'s docstring says why not SciPy), so the
answer ends verified by runs: the answer meets the target, one step past it does not.

The package, one module per question (``redo_log``, ``update_rate``, ``lcp_speed``,
``data_size``, ``plan`` with the plans it enumerates in ``plans``), the searches they share
(``search``), the answer (``answer``) and ``solve()`` itself (``questions``).
"""

from __future__ import annotations

from ndbsim.studies.solve.answer import Answer
from ndbsim.studies.solve.questions import QUESTIONS, WINDOW_QUESTIONS, solve
from ndbsim.studies.solve.redo_log import MAX_LOG_FILES, REDO_MARGIN
from ndbsim.studies.solve.update_rate import MAX_UPDATE_RATE, RATE_BOUND_FACTOR

__all__ = [
    "MAX_LOG_FILES",
    "MAX_UPDATE_RATE",
    "QUESTIONS",
    "RATE_BOUND_FACTOR",
    "REDO_MARGIN",
    "WINDOW_QUESTIONS",
    "Answer",
    "solve",
]
