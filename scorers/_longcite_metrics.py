"""The LongBench-Cite paper's figures from per-sample scores, grouped as LongCite groups them.

``longbench_cite`` is a run's headline as LongCite's scripts print it: the unweighted mean of
the per-dataset means over ``longbench-chat``, ``multifieldqa`` (English and Chinese pooled),
``hotpotqa``, ``dureader`` and ``gov_report`` (:mod:`inspect_cite.benchmarks.longcite`); with
``weight_key`` it is instead the mean over every citation of the run (the paper's citation
length: all tokens over all citations). ``longbench_cite_by_dataset`` gives each group's mean.
A group without a scored sample (a ``--limit`` run) is left out of the headline (LongCite's
``np.mean`` of an empty group would make it nan; its correctness script would count it as 0).
Samples of other datasets are in no group.
"""

import math
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from inspect_cite.benchmarks.longcite import GROUPS, HEADLINE_GROUPS, groups_of


def _dataset(score: SampleScore) -> str:
    for source in (score.score.metadata, score.sample_metadata):
        if source and isinstance(source.get("dataset"), str):
            return str(source["dataset"])
    return ""


def _weight(score: SampleScore, key: str) -> float:
    try:
        value = float((score.score.metadata or {}).get(key, 0))
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(value) else value


def _mean(scores: list[SampleScore], weight_key: str | None) -> float:
    pairs = [(s.score.as_float(), _weight(s, weight_key) if weight_key else 1.0) for s in scores]
    pairs = [(v, w) for v, w in pairs if not math.isnan(v) and w > 0]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else math.nan


def _by_group(scores: list[SampleScore]) -> dict[str, list[SampleScore]]:
    groups: dict[str, list[SampleScore]] = defaultdict(list)
    for s in scores:
        for group in groups_of(_dataset(s)):
            groups[group].append(s)
    return groups


@metric
def longbench_cite(weight_key: str | None = None) -> Metric:
    """The paper's headline: the mean of the per-dataset means (LongCite's ``avg_*``).

    Args:
        weight_key: Instead, the mean weighted by ``Score.metadata[weight_key]`` over every
            sample of a LongBench-Cite dataset (``n_citations``: citation length per citation).

    """

    def compute(scores: list[SampleScore]) -> Value:
        groups = _by_group(scores)
        if weight_key is not None:
            members = [s for s in scores if groups_of(_dataset(s))]
            return _mean(members, weight_key)
        means = [_mean(groups[g], None) for g in HEADLINE_GROUPS if groups.get(g)]
        means = [m for m in means if not math.isnan(m)]
        return sum(means) / len(means) if means else math.nan

    return compute


@metric
def longbench_cite_by_dataset(weight_key: str | None = None) -> Metric:
    """Each LongBench-Cite group's mean, as LongCite's ``scores`` table (a dict group -> mean).

    Args:
        weight_key: Weight each sample by ``Score.metadata[weight_key]`` (as
            :func:`longbench_cite`).

    """

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            # Inspect calls a metric with no scores when every sample's value is nan (each
            # grader reply unreadable) and, given no keys back, logs one nan under the bare
            # metric name: each group's mean is nan instead, under its own key.
            return dict.fromkeys(GROUPS, math.nan)
        groups = _by_group(scores)
        return {g: _mean(groups[g], weight_key) for g in GROUPS if groups.get(g)}

    return compute
