"""Metrics for FullCite scores: citation-weighted means and per-group means.

A metric on one key of a dict score sees one float per sample; the weight a pooled metric
needs travels in ``Score.metadata``. Groups (e.g. BioASQ question types) are read from
``Score.metadata[group_key]``, else from the sample's metadata, else ``unknown``.
"""

import math
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, Value, metric


def group_of(sample_score: SampleScore, group_key: str) -> str:
    """The group a sample belongs to for ``group_key``."""
    for source in (sample_score.score.metadata, sample_score.sample_metadata):
        if source and source.get(group_key) not in (None, ""):
            return str(source[group_key])
    return "unknown"


def _weight(sample_score: SampleScore, key: str) -> float:
    value = (sample_score.score.metadata or {}).get(key, 0)
    try:
        value = float(value)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(value) else value


def _weighted(scores: list[SampleScore], weight_key: str) -> float:
    pairs = [(s.score.as_float(), _weight(s, weight_key)) for s in scores]
    pairs = [(v, w) for v, w in pairs if not math.isnan(v) and w > 0]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else math.nan


def _groups(scores: list[SampleScore], group_key: str) -> dict[str, list[SampleScore]]:
    groups: dict[str, list[SampleScore]] = defaultdict(list)
    for s in scores:
        groups[group_of(s, group_key)].append(s)
    return dict(sorted(groups.items()))


@metric
def weighted_mean(weight_key: str = "n_citations") -> Metric:
    """Mean of the values weighted by ``Score.metadata[weight_key]``.

    On a per-sample share of citations weighted by the sample's citation count this is the
    pooled share over all citations of the run (e.g. 81.8% of citations to the first two
    documents), rather than the mean of per-sample shares.
    """

    def compute(scores: list[SampleScore]) -> Value:
        return _weighted(scores, weight_key)

    return compute


@metric
def weighted_mean_by_group(weight_key: str = "n_citations", group_key: str = "group") -> Metric:
    """:func:`weighted_mean` within each group (a dict group -> value)."""

    def compute(scores: list[SampleScore]) -> Value:
        return {
            g: _weighted(members, weight_key) for g, members in _groups(scores, group_key).items()
        }

    return compute


@metric
def mean_by_group(group_key: str = "group") -> Metric:
    """Mean of the (non-nan) values within each group (a dict group -> mean)."""

    def compute(scores: list[SampleScore]) -> Value:
        out = {}
        for g, members in _groups(scores, group_key).items():
            values = [v for v in (s.score.as_float() for s in members) if not math.isnan(v)]
            if values:
                out[g] = sum(values) / len(values)
        return out

    return compute
