"""Citation generation solvers, registered as ``solvers/<name>``."""

from solvers.alce import alce_vanilla
from solvers.constrained import constrained_citations
from solvers.posthoc import posthoc_citations
from solvers.prompted import prompted_citations

__all__ = ["alce_vanilla", "constrained_citations", "posthoc_citations", "prompted_citations"]
