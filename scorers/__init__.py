"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.mauve import mauve, mauve_corpus

__all__ = ["alce_correctness", "mauve", "mauve_corpus"]
