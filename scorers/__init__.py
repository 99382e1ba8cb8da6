"""Citation and answer scorers, registered as ``scorers/<name>``.

Each scorer lives in ``scorers/<name>.py`` (the file is named like the scorer; the tables give
file names in ``scorers/``) and holds its metric's definition, or imports it from the one module
named in the last column. Every FullCite scorer reads the answer through
``scorers/_cited_answer.py`` (parsing, validity, verbatim and near-verbatim per citation); every
ALCE scorer reads ``[n]`` markers through ``inspect_cite/citations/alce.py``.

ALCE log keys (``alce_tasks/*``; the same definitions score ``alce-eval`` and lm-eval):

| Log keys                               | Scorer file            | Definition
|----------------------------------------|------------------------|------------------------------
| citation_rec, citation_prec            | citation_nli.py        | inspect_cite/alce/autoais.py
|                                        |                        | (RERANK needs it too)
| supported, misattributed, unsupported, | citation_nli.py        | inspect_cite/nli/diagnose.py
| uncited, uncited_but_supported         |                        | (classes), autoais.py
| (-S diagnose=true)                     |                        | (statements)
| claims_nli (ELI5)                      | claim_coverage.py      | here
| length; str_em, str_hit, rougeLsum     | alce_correctness.py    | here (normalisation:
| (ASQA); rougeLsum (ELI5); num_preds,   |                        | inspect_cite/text/squad.py)
| qampari_prec, qampari_rec,             |                        |
| qampari_rec_top5, qampari_f1,          |                        |
| qampari_f1_top5 (QAMPARI)              |                        |
| QA-EM, QA-F1, QA-Hit (ASQA, qa=true)   | alce_qa.py             | here (EM/F1:
|                                        |                        | inspect_cite/text/squad.py)
| mauve (-T mauve=true)                  | mauve.py               | here

TRUST-SCORE log keys (``scorers/trust_score``, ``alce-eval --trust``; trust-eval 0.1.5's names,
all from its one metric ``trust_corpus``; the list per dataset: ``trust_keys``):

| Log keys                               | Scorer file            | Definition
|----------------------------------------|------------------------|------------------------------
| num_samples, answered_ratio,           | trust_score.py         | inspect_cite/alce/trust/
| answered_num, answerable_num,          |                        | metrics.py (refusal:
| overlapped_num, regular_length,        |                        | inspect_cite/alce/trust/
| answered_length, reject_rec,           |                        | refusal.py)
| reject_prec, reject_f1, answerable_rec,|                        |
| answerable_prec, answerable_f1,        |                        |
| macro_avg, macro_f1, trust_score;      |                        |
| {regular,answered}_citation_{rec,prec, |                        |
| f1}; ASQA: regular_str_em,             |                        |
| answered_str_em, calib_answered_str_em,|                        |
| calib_answerable_str_em,               |                        |
| calib_str_em_f1, parametric_str_em;    |                        |
| QAMPARI: qampari_presence,             |                        |
| qampari_absence, {regular,answered,    |                        |
| calib_answered,calib_answerable}_      |                        |
| {num_preds,qampari_prec,qampari_rec,   |                        |
| qampari_rec_top5,qampari_f1,           |                        |
| qampari_f1_top5}, calib_qampari_em_f1, |                        |
| parametric_qampari_rec_top5; ELI5 and  |                        |
| ExpertQA: regular_claims_nli,          |                        |
| answered_claims_nli,                   |                        |
| calib_answered_claims_nli,             |                        |
| calib_answerable_claims_nli,           |                        |
| parametric_answered_claims_nli,        |                        |
| calib_claims_nli_f1                    |                        |

FullCite log keys (``fullcite_tasks/*``):

| Log keys                               | Scorer file            | Definition
|----------------------------------------|------------------------|------------------------------
| doc_precision, doc_recall, doc_f1,     | doc_snippet_f1.py      | here (token F1:
| snippet_precision, snippet_recall,     |                        | inspect_cite/text/squad.py)
| snippet_f1, snippet_em_precision,      |                        |
| snippet_em_recall, snippet_em_f1,      |                        |
| n_citations, invalid_citations         |                        |
| verbatim_rate, near_verbatim_rate      | doc_snippet_f1.py      | scorers/_cited_answer.py
| n_citations, omission_rate,            | citation_bias.py       | here
| pos_1 .. pos_N, pos_rest,              |                        |
| invalid_share, first_two_share,        |                        |
| first_two_rank_share                   |                        |
| similarity, n_scored                   | citation_similarity.py | here
| support, relevance, coverage,          | citation_judge.py      | here
| n_citations                            |                        |
| snippet_support, doc_support,          | claim_support.py       | here (NLI backends:
| unsupported_claims                     |                        | inspect_cite/nli/)
| supported, misattributed, unsupported, | claim_support.py       | inspect_cite/nli/diagnose.py
| uncited, uncited_but_supported         |                        |
| (-S diagnose=true)                     |                        |
| yesno_accuracy, factoid_strict,        | fullcite_answer.py     | here
| factoid_lenient, factoid_mrr,          |                        |
| list_precision, list_recall, list_f1,  |                        |
| summary_rouge2, summary_rouge_su4      |                        |
| (BioASQ)                               |                        |
| str_em, str_hit (ASQA)                 | fullcite_answer.py     | scorers/alce_correctness.py
| rougeL (ExpertQA)                      | fullcite_answer.py     | here
| rougeL_precision, rougeL_recall,       | span_agreement.py      | here
| rougeL_f1, n_spans, rejected_spans,    |                        |
| failed_docs                            |                        |
| (fullcite_tasks/annotate_spans)        |                        |

Native citations and agents (``-T strategy=native``/``agent``, any log of a tool-using model):

| Log keys                               | Scorer file            | Definition
|----------------------------------------|------------------------|------------------------------
| native_citations, unmapped_citations,  | native_counts.py       | inspect_cite/citations/
| replies_without_citations              |                        | native.py
| cited_source_seen, supported_claims,   | source_support.py      | here (sources, claims:
| uncited_claims, n_citations            |                        | inspect_cite/evidence/
|                                        |                        | transcript.py)

LongBench-Cite log keys (``longcite_tasks/longbench_cite``):

| Log keys                               | Scorer file            | Definition
|----------------------------------------|------------------------|------------------------------
| citation_recall, citation_precision,   | longcite_citation.py   | here (statements:
| citation_f1, citation_length           |                        | inspect_cite/longcite/)
| correctness, unreadable_gradings       | longcite_correctness.py| here
| (metrics longbench_cite,               | _longcite_metrics.py   | inspect_cite/longcite/
| longbench_cite_by_dataset)             |                        | datasets.py

``n_citations`` (citations in the answer) is reported by four scorers; Inspect names each by
its scorer in the log.

With ``-S calibration=FILE``, ``citation_nli``, ``claim_coverage`` and ``claim_support`` add the
metrics ``corrected_mean``, ``corrected_low`` and ``corrected_high`` to each of their rates: the
rate corrected for the NLI judge's measured errors (``_judge_correction.py``; the arithmetic in
``inspect_cite/statistics/calibration.py``). ``epoch_mean``, the epochs reducer the tasks declare,
is Inspect's ``mean`` that also carries each epoch's judged shares into those corrected rates.
"""

from scorers._judge_correction import epoch_mean
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
from scorers.longcite_citation import longcite_citation
from scorers.longcite_correctness import longcite_correctness
from scorers.mauve import mauve, mauve_corpus
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from scorers.span_agreement import span_agreement
from scorers.trust_score import trust_corpus, trust_score

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
    "epoch_mean",
    "fullcite_answer",
    "longcite_citation",
    "longcite_correctness",
    "mauve",
    "mauve_corpus",
    "native_counts",
    "source_support",
    "span_agreement",
    "trust_corpus",
    "trust_score",
]
