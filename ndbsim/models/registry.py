"""The model registry: NDB data-node restarts and InnoDB crash recovery behind one interface.

A raw scenario mapping names its model with ``kind`` (absent: NDB); ``model_of`` is the one
place that reads it. Every entry point (``ndbsim run``/``validate``, ``simulate()``,
``sweep()``, calibration cases) asks the model to prepare the scenario, seed and run its
replications, tabulate the result and describe itself, and never asks which model it has.

The interface is ``interface.Model``; the models are ``ndb.NdbModel`` and ``innodb.InnodbModel``.
"""

from __future__ import annotations

from typing import Any

from ndbsim.models.innodb import InnodbModel
from ndbsim.models.interface import Model
from ndbsim.models.ndb import NdbModel

__all__ = ["INNODB", "MODELS", "NDB", "Model", "model_of"]

NDB = NdbModel()
INNODB = InnodbModel()
MODELS: dict[str, Model] = {"ndb": NDB, "innodb": INNODB}
"""The models by their ``kind``; a scenario without ``kind`` is NDB."""


def model_of(raw: Any) -> Model:
    """The model a raw scenario mapping names with ``kind`` (NDB when it names none, or names one
    that is not registered: NDB's validation then reports the key)."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    return MODELS.get(kind, NDB) if isinstance(kind, str) else NDB
