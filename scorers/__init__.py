"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.bias import citation_bias
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.claim_support import claim_support
from scorers.fullcite_answer import fullcite_answer
from scorers.judge import citation_judge
from scorers.mauve import mauve, mauve_corpus
from scorers.similarity import citation_similarity
from scorers.snippet_f1 import doc_snippet_f1
from scorers.span_agreement import span_agreement

__all__ = [
    "alce_correctness",
    "alce_qa",
    "citation_bias",
    "citation_judge",
    "citation_nli",
    "citation_similarity",
    "claim_support",
    "claim_coverage",
    "doc_snippet_f1",
    "fullcite_answer",
    "mauve",
    "mauve_corpus",
    "span_agreement",
]
