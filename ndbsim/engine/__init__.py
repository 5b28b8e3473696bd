"""The SimPy engine: a cluster of fluid resources, its LCP loop, and restart pipelines."""

from ndbsim.engine.run import simulate_once

__all__ = ["simulate_once"]
