"""Citation generation solvers, registered as ``solvers/<name>``."""

from solvers.alce import alce_vanilla

__all__ = ["alce_vanilla"]
