"""Citation and answer scorers, registered as ``scorers/<name>``.

Each scorer lives in ``scorers/<name>.py`` (the file is named like the scorer), which holds its
metric's definition or imports it from the one core module named below. Every FullCite scorer
reads the answer through ``scorers/cited_answer.py`` (parsing, validity, verbatim and
near-verbatim per citation).

FullCite log keys (``fullcite_tasks/*``):

| Log keys                                               | Scorer              | Imported from
|--------------------------------------------------------|---------------------|--------------------
| doc_precision, doc_recall, doc_f1                      | doc_snippet_f1      |
| snippet_precision, snippet_recall, snippet_f1          | doc_snippet_f1      | token F1:
|                                                        |                     | inspect_cite/
|                                                        |                     | alce_qa.py
| snippet_em_precision, snippet_em_recall, snippet_em_f1 | doc_snippet_f1      | (same)
| verbatim_rate, near_verbatim_rate                      | doc_snippet_f1      | scorers/
|                                                        |                     | cited_answer.py
| n_citations, invalid_citations                         | doc_snippet_f1      |
| n_citations, omission_rate, pos_1 .. pos_N, pos_rest,  | citation_bias       |
| invalid_share, first_two_share, first_two_rank_share   |                     |
| similarity, n_scored                                   | citation_similarity |
| support, relevance, coverage, n_citations              | citation_judge      |
| snippet_support, doc_support, unsupported_claims       | claim_support       | NLI: inspect_cite/
|                                                        |                     | nli/
| yesno_accuracy, factoid_strict, factoid_lenient,       | fullcite_answer     |
| factoid_mrr, list_precision, list_recall, list_f1,     |                     |
| summary_rouge2, summary_rouge_su4 (BioASQ)             |                     |
| str_em, str_hit (ASQA)                                 | fullcite_answer     | str_em: inspect_
|                                                        |                     | cite/alce_metrics
| rougeL (ExpertQA)                                      | fullcite_answer     |
| rougeL_precision, rougeL_recall, rougeL_f1, n_spans,   | span_agreement      |
| rejected_spans, failed_docs (annotate_spans)           |                     |

``n_citations`` (citations in the answer) is reported by three scorers; Inspect names each by
its scorer in the log.
"""

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
