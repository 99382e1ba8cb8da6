"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.mauve import mauve, mauve_corpus

__all__ = ["alce_correctness", "alce_qa", "mauve", "mauve_corpus"]
