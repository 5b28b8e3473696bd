"""ndbsim: a discrete-event simulator of MySQL NDB Cluster data-node restarts."""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from ndbsim.errors import InputError

if TYPE_CHECKING:
    from ndbsim.advise import advise
    from ndbsim.profiles import use_constants
    from ndbsim.result import Result
    from ndbsim.simulate import simulate
    from ndbsim.solve import solve
    from ndbsim.sweep import sweep

__all__ = ["InputError", "Result", "__version__", "advise", "simulate", "solve", "sweep", "use_constants"]

_LAZY = {
    "Result": "ndbsim.result",
    "advise": "ndbsim.advise",
    "solve": "ndbsim.solve",
    "simulate": "ndbsim.simulate",
    "sweep": "ndbsim.sweep",
    "use_constants": "ndbsim.profiles",
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


class _Package(ModuleType):
    """``simulate``, ``sweep``, ``advise`` and ``solve`` name both a function of the API and the module defining it.
    Importing such a module binds its name on the package; the API's function is bound
    instead, so that ``ndbsim.simulate(...)`` calls the function whatever was imported first."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and _LAZY.get(name) == value.__name__ and hasattr(value, name):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
