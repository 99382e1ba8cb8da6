"""The ``corrected`` metric: an NLI-judged rate corrected for the judge's measured errors.

``citation_nli``, ``claim_coverage`` and ``claim_support`` take ``-S calibration=FILE``
(``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` of ``inspect-cite calibrate`` that measured
the same ``nli`` judge). Each scored sample then carries, in its score's metadata
(``judge_calibration``), the calibration's confusion counts and, per rate, the share of its
units the judge decided (an uncited statement is unsupported without asking the judge, so it
carries no judge error) and the rate itself.
This metric, beside ``mean`` and ``stderr`` on each such rate, gives the Rogan-Gladen rate
and its interval (:func:`inspect_cite.statistics.calibration.corrected_rate`) as ``corrected_mean``,
``corrected_low`` and ``corrected_high`` (x100); where the rate cannot be known (a calibration
that cannot tell the judge from chance, a raw rate out of the judge's reach) they are nan and
the reason is logged as a warning. Without a calibration it reports nothing, but where every
sample of a run is nan Inspect lists the declared metric itself as ``corrected: nan``.

Epochs: Inspect reduces a sample's epochs before the metrics see them and keeps the first
epoch's metadata, so each epoch's judged share would be lost. :func:`epoch_mean`, the reducer
the project's tasks declare, is Inspect's mean that also averages the judged shares over the
epochs that scored each rate. Under another reducer the metric checks that the metadata
describes the reduced rate (the rate recorded beside the shares equals it) and is nan with the
reason where it does not.
"""

import logging
import math
import statistics
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    ScoreReducer,
    Value,
    mean_score,
    metric,
    score_reducer,
)

from inspect_cite.statistics.calibration import (
    Confusion,
    JudgeCalibration,
    corrected_rate,
)
from scorers._epoch_weights import reduce_weighted

logger = logging.getLogger(__name__)

CALIBRATION_KEY = "judge_calibration"
"""The ``Score.metadata`` key of a sample's calibration, judged shares and rates."""


def calibration_metadata(
    calibration: JudgeCalibration | None,
    judged: dict[str, float],
    values: dict[str, float] | None = None,
) -> dict[str, object]:
    """``{"judge_calibration": ...}`` for a scored sample's metadata (empty without one).

    Args:
        calibration: The scorer's calibration.
        judged: Per rate, the share of the sample's units the judge decided (0 to 1).
        values: The sample's rates as scored (the score's value), recorded beside the shares
            so that the metric can tell whether they describe the same epochs.

    """
    if calibration is None:
        return {}
    info = calibration.as_metadata(judged)
    if values is not None:
        info["values"] = {key: values[key] for key in judged if key in values}
    return {CALIBRATION_KEY: info}


def share(part: int, whole: int) -> float:
    """``part / whole``; 0 for an empty whole: the judge decided nothing of the sample.

    A sample with nothing to judge still counts where its rate is known (ALCE's precision of
    an answer that cites nothing is 0): it enters the corrected mean as settled without the
    judge. Where its rate is nan, the sample is left out by the rate itself.
    """
    return part / whole if whole else 0.0


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# One name whether the plugin is installed (where Inspect would prefix "scorers/") or imported
# from a source tree (where it would not): a log written either way is rescored either way.
EPOCH_MEAN = "scorers/epoch_mean"
"""The reducer's registry name, as logs record it (``epochs_reducer``)."""


@score_reducer(name=EPOCH_MEAN)
def epoch_mean() -> ScoreReducer:
    """Inspect's ``mean`` over epochs, carrying each epoch's judged shares into the mean.

    Values are reduced exactly as Inspect's ``mean`` reducer does. Where the epochs' scores
    carry a calibration (``-S calibration``), the reduced score's calibration metadata holds,
    per rate, the mean over the epochs that scored the rate of their judged shares and of the
    rate itself, and the number of epochs (``epochs``): the corrected rate of a sample scored
    twice then uses both epochs' shares. A key weighted by a count in the metadata (LongBench-Cite's
    ``citation_length``, :mod:`scorers._epoch_weights`) is pooled over the epochs with its
    weight. Other metadata is the first epoch's, as Inspect's.
    """
    mean = mean_score()

    def reduce(scores: list[Score]) -> Score:
        reduced = reduce_weighted(scores, mean(scores))
        epochs = [
            (s.value, s.metadata[CALIBRATION_KEY])
            for s in scores
            if isinstance(s.value, dict)
            and isinstance(s.metadata, dict)
            and isinstance(s.metadata.get(CALIBRATION_KEY), dict)
        ]
        if not epochs:
            return reduced
        judged: dict[str, float] = {}
        values: dict[str, float] = {}
        for key in dict.fromkeys(k for _, info in epochs for k in info.get("judged") or {}):
            # The epochs whose rate is known, as Inspect's mean leaves out an epoch's nan.
            scored = [
                (float(value[key]), float(info["judged"][key]))
                for value, info in epochs
                if _finite(value.get(key)) and _finite((info.get("judged") or {}).get(key))
            ]
            values[key] = statistics.mean(v for v, _ in scored) if scored else math.nan
            judged[key] = statistics.mean(j for _, j in scored) if scored else math.nan
        merged = {**epochs[0][1], "judged": judged, "values": values, "epochs": len(epochs)}
        metadata = {**(reduced.metadata or {}), CALIBRATION_KEY: merged}
        return reduced.model_copy(update={"metadata": metadata})

    return reduce


def _mismatch(key: str, info: dict[str, Any], value: float) -> bool:
    """Whether the metadata's recorded rate is not the (reduced) rate the metric sees."""
    recorded = (info.get("values") or {}).get(key)
    if not isinstance(recorded, int | float) or not _finite(recorded):
        # Written before rates were recorded beside the shares: nothing to check.
        return False
    return not math.isclose(recorded, value, rel_tol=1e-9, abs_tol=1e-9)


@metric
def corrected(key: str, negative: bool = False) -> Metric:
    """The rate ``key`` (x100) corrected for the judge's sensitivity and specificity.

    Args:
        key: The score key, whose judged share each sample's metadata records.
        negative: The rate counts units not supported (``unsupported_claims``).

    """

    def compute(scores: list[SampleScore]) -> Value:
        values, judged = [], []
        calibration: dict | None = None
        mismatched = 0
        for s in scores:
            info = (s.score.metadata or {}).get(CALIBRATION_KEY)
            if not isinstance(info, dict):
                continue
            calibration = calibration or info
            value = s.score.as_float()
            mismatched += math.isfinite(value) and _mismatch(key, info, value)
            values.append(value / 100)
            judged.append(float((info.get("judged") or {}).get(key, math.nan)))
        if calibration is None:
            return {}
        if mismatched:
            reason = (
                f"{mismatched} samples' judged shares are from another epoch than their "
                f"{key}: the epochs were reduced without them (Inspect keeps the first epoch's "
                f"metadata); reduce epochs with {EPOCH_MEAN} (--epochs-reducer {EPOCH_MEAN})"
            )
            logger.warning(f"{key} corrected: nan: {reason}")
            return dict.fromkeys(("mean", "low", "high"), math.nan)
        confusion = Confusion(*(int(calibration[k]) for k in ("tp", "fp", "tn", "fn")))
        result = corrected_rate(values, judged, confusion, negative=negative)
        if result.reason is not None:
            logger.warning(f"{key} corrected: nan: {result.reason}")
        return {"mean": 100 * result.rate, "low": 100 * result.low, "high": 100 * result.high}

    return compute
