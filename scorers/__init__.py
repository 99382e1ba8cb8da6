"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.mauve import mauve, mauve_corpus

__all__ = ["alce_correctness", "alce_qa", "citation_nli", "claim_coverage", "mauve", "mauve_corpus"]
