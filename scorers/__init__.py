"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage

__all__ = ["alce_correctness", "citation_nli", "claim_coverage"]
