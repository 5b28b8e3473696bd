"""ndbsim: a discrete-event simulator of MySQL NDB Cluster data-node restarts."""

__version__ = "0.1.0"

from ndbsim.errors import InputError
from ndbsim.profiles import use_constants
from ndbsim.result import Result
from ndbsim.simulate import simulate
from ndbsim.sweep import sweep

__all__ = ["InputError", "Result", "__version__", "simulate", "sweep", "use_constants"]
