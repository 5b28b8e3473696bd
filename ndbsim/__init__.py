"""ndbsim: a discrete-event simulator of MySQL NDB Cluster data-node restarts."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.input.profiles import use_constants
    from ndbsim.models.simulate import simulate
    from ndbsim.output.result import Result
    from ndbsim.studies.advise.study import advise
    from ndbsim.studies.solve import solve
    from ndbsim.studies.sweep import sweep

__all__ = ["InputError", "Result", "__version__", "advise", "simulate", "solve", "sweep", "use_constants"]

_LAZY = {
    "Result": "ndbsim.output.result",
    "advise": "ndbsim.studies.advise.study",
    "solve": "ndbsim.studies.solve",
    "simulate": "ndbsim.models.simulate",
    "sweep": "ndbsim.studies.sweep",
    "use_constants": "ndbsim.input.profiles",
}
"""The API's names and the modules that define them, imported on first use: the command line
imports this package, and ``ndbsim --help`` needs none of numpy, pydantic or SimPy."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ndbsim' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
