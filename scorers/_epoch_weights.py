"""Per-citation means across epochs: a key weighted by a count in the score's metadata.

A key such as LongBench-Cite's ``citation_length`` is a mean over the sample's citations, and
its run figure pools every citation of the run (weighted by ``Score.metadata["n_citations"]``).
Inspect reduces a sample's epochs before the metrics see them, averaging each key over the
epochs where it is known and keeping the first epoch's metadata: a sample that cites nothing in
epoch 1 and 12 tokens in epoch 2 then has the value 12 and the weight 0, and the run's figure
loses epoch 2's citation (nan where no other sample cites).

A scorer declares such keys in ``Score.metadata["epoch_weights"]`` (value key -> metadata key
of its weight); :func:`reduce_weighted`, applied by the tasks' epochs reducer
(``scorers/epoch_mean``), makes the reduced value the weighted mean over the epochs, and the
reduced weight the mean weight per epoch, so that the run's pooled figure is every epoch's
units over every epoch's units: for citation length, all tokens over all citations.
"""

import math
from typing import Any

from inspect_ai.scorer import Score

EPOCH_WEIGHTS_KEY = "epoch_weights"
"""The ``Score.metadata`` key naming, per weighted value key, the metadata key of its weight."""


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


def reduce_weighted(scores: list[Score], reduced: Score) -> Score:
    """``reduced`` (the epochs' mean) with each declared weighted key pooled over the epochs.

    For each key the first scored epoch declares: the value is ``sum(v * w) / sum(w)`` over the
    epochs whose value is known and whose weight is positive (nan when none is), the weight is
    ``sum(w) / epochs`` over the same epochs, and a reason logged for the key in
    ``metadata["reasons"]`` is kept only where the value stays nan.

    Args:
        scores: The sample's scores, one per epoch.
        reduced: What the reducer made of them (Inspect's mean).

    """
    epochs: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (s.value, s.metadata)
        for s in scores
        if isinstance(s.value, dict) and isinstance(s.metadata, dict)
    ]
    declared = next((m[EPOCH_WEIGHTS_KEY] for _, m in epochs if EPOCH_WEIGHTS_KEY in m), None)
    if not isinstance(declared, dict) or not isinstance(reduced.value, dict) or len(scores) < 2:
        return reduced
    value = dict(reduced.value)
    metadata = dict(reduced.metadata or {})
    reasons = dict(metadata.get("reasons") or {})
    for key, weight_key in declared.items():
        if key not in value:
            continue
        pairs = [(_number(v.get(key)), _number(meta.get(weight_key))) for v, meta in epochs]
        pairs = [(v, w) for v, w in pairs if math.isfinite(v) and math.isfinite(w) and w > 0]
        total = sum(w for _, w in pairs)
        value[key] = sum(v * w for v, w in pairs) / total if total else math.nan
        metadata[weight_key] = total / len(scores)
        if not math.isnan(value[key]):
            reasons.pop(key, None)
    if "reasons" in metadata:
        metadata["reasons"] = reasons
    metadata["epochs"] = len(scores)
    return reduced.model_copy(update={"value": value, "metadata": metadata})
