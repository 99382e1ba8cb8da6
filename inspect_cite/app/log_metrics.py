"""Metric values read back from Inspect logs, under the names this project gives its metrics.

Inspect records a metric under its registry name, and the registry prefixes the objects of an
installed plugin with their package: after ``pip install .``, ``citation_bias``'s pooled share
is ``scorers/weighted_mean`` (and ``scorers/weighted_mean_by_group_<group>``), while the same
metric imported from a source tree (pytest, an editable install) is ``weighted_mean``.
Everything that reads metric names from a log (the report, the benchmarks, the tests) resolves
them here, so it works either way. Which way each of the project's scores is better (for the
report's charts) is recorded here too, once: ``metric_direction``.
"""

import re

from inspect_ai.log import EvalLog

# A leading "<package>/": Inspect's registry namespace, never part of a metric's own name.
_REGISTRY_PREFIX = re.compile(r"^[A-Za-z_][\w.]*/")
# citation_bias's share of citations to one context position.
_POSITION = re.compile(r"^pos_\d+$")


def metric_name(name: str) -> str:
    """A metric's name without Inspect's registry prefix.

    ``scorers/weighted_mean`` (installed) and ``weighted_mean`` (source tree) both give
    ``weighted_mean``.
    """
    return _REGISTRY_PREFIX.sub("", name)


def log_metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """Each score's metric values by plain metric name: ``{score name: {metric name: value}}``.

    A score name that several scorers report (``n_citations``) keeps the first scorer's values.
    An unfinished log (no results) gives an empty dict.
    """
    metrics: dict[str, dict[str, float]] = {}
    for score in log.results.scores if log.results else []:
        values = {metric_name(key): m.value for key, m in score.metrics.items()}
        metrics.setdefault(score.name, values)
    return metrics


HIGHER_IS_BETTER = "higher is better"
LOWER_IS_BETTER = "lower is better"
NO_DIRECTION = "neither higher nor lower is better"
UNKNOWN_DIRECTION = "direction unknown"

# Every score the project's scorers log (scorers/__init__.py lists them by scorer), by direction.
_DIRECTIONS = {
    HIGHER_IS_BETTER: """
        citation_rec citation_prec claims_nli str_em str_hit rougeLsum mauve QA-EM QA-F1 QA-Hit
        qampari_prec qampari_rec qampari_rec_top5 qampari_f1 qampari_f1_top5
        doc_precision doc_recall doc_f1 snippet_precision snippet_recall snippet_f1
        snippet_em_precision snippet_em_recall snippet_em_f1 verbatim_rate
        similarity support relevance coverage snippet_support doc_support
        yesno_accuracy factoid_strict factoid_lenient factoid_mrr list_precision list_recall
        list_f1 summary_rouge2 summary_rouge_su4 rougeL rougeL_precision rougeL_recall rougeL_f1
        supported cited_source_seen supported_claims
        trust_score reject_rec reject_prec reject_f1 answerable_rec answerable_prec answerable_f1
        macro_avg macro_f1 regular_str_em answered_str_em calib_answered_str_em
        calib_answerable_str_em calib_str_em_f1 calib_qampari_em_f1 regular_claims_nli
        answered_claims_nli calib_answered_claims_nli calib_answerable_claims_nli
        calib_claims_nli_f1 regular_citation_rec regular_citation_prec regular_citation_f1
        answered_citation_rec answered_citation_prec answered_citation_f1
        citation_recall citation_precision citation_f1 correctness
    """
    + " ".join(
        f"{p}_{k}"
        for p in ("regular", "answered", "calib_answered", "calib_answerable")
        for k in (
            "qampari_prec",
            "qampari_rec",
            "qampari_rec_top5",
            "qampari_f1",
            "qampari_f1_top5",
        )
    ),
    LOWER_IS_BETTER: """
        invalid_citations invalid_share omission_rate unsupported_claims rejected_spans failed_docs
        misattributed unsupported uncited uncited_but_supported uncited_claims
        unmapped_citations replies_without_citations unreadable_gradings
    """,
    # Sizes (good or bad only against a reference), and where citations go: citing the first
    # documents is a bias or right, depending on where the evidence is. A near-verbatim snippet
    # is neither the document's exact words nor a rewording. TRUST-SCORE's counts, and its
    # parametric scores (answers from the model's own knowledge: diagnostic, not a goal).
    NO_DIRECTION: """
        length num_preds n_citations n_scored n_spans pos_rest first_two_share
        first_two_rank_share near_verbatim_rate native_citations
        num_samples answered_ratio answered_num answerable_num overlapped_num regular_length
        answered_length regular_num_preds answered_num_preds calib_answered_num_preds
        calib_answerable_num_preds qampari_presence qampari_absence parametric_str_em
        parametric_qampari_rec_top5 parametric_answered_claims_nli
        citation_length
    """,
}
_SCORE_DIRECTIONS = {name: d for d, names in _DIRECTIONS.items() for name in names.split()}


def metric_direction(column: str) -> str:
    """Which way a metric is better, as a phrase for charts (``HIGHER_IS_BETTER``, ...).

    The one table of directions: every score this project's scorers log is in it (other
    scorers' are ``UNKNOWN_DIRECTION``). ``column`` is a score name or a report column named
    after one (``pos_1 (weighted)``, ``n_citations (citation_bias)``).
    """
    score, _, rest = column.partition(" (")
    # A scorer whose one metric reports many keys (TRUST-SCORE's trust_corpus) gives columns
    # "<score> (<key>)": the key's direction, not the score's (a count is never "higher is
    # better" for being reported beside the headline).
    key = rest.removesuffix(")")
    if key in _SCORE_DIRECTIONS:
        return _SCORE_DIRECTIONS[key]
    if _POSITION.match(score) or _POSITION.match(key):
        return NO_DIRECTION
    return _SCORE_DIRECTIONS.get(score, UNKNOWN_DIRECTION)
