"""Metric values read back from Inspect logs, under the names this project gives its metrics.

Inspect records a metric under its registry name, and the registry prefixes the objects of an
installed plugin with their package: after ``pip install .``, ``citation_bias``'s pooled share
is ``scorers/weighted_mean`` (and ``scorers/weighted_mean_by_group_<group>``), while the same
metric imported from a source tree (pytest, an editable install) is ``weighted_mean``.
Everything that reads metric names from a log (the report, the benchmarks, the tests) resolves
them here, so it works either way.
"""

import re

from inspect_ai.log import EvalLog

# A leading "<package>/": Inspect's registry namespace, never part of a metric's own name.
_REGISTRY_PREFIX = re.compile(r"^[A-Za-z_][\w.]*/")


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
