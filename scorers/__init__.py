"""Citation and answer scorers, registered as ``scorers/<name>``."""

from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_bias import citation_bias
from scorers.citation_judge import citation_judge
from scorers.citation_nli import citation_nli
from scorers.citation_similarity import citation_similarity
from scorers.claim_coverage import claim_coverage
from scorers.claim_support import claim_support
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.fullcite_answer import fullcite_answer
from scorers.mauve import mauve, mauve_corpus
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
