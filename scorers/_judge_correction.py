"""The ``corrected`` metric: an NLI-judged rate corrected for the judge's measured errors.

``citation_nli``, ``claim_coverage`` and ``claim_support`` take ``-S calibration=FILE``
(``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` of ``inspect-cite calibrate`` that measured
the same ``nli`` judge). Each scored sample then carries, in its score's metadata
(``judge_calibration``), the calibration's confusion counts and, per rate, the share of its
units the judge decided (an uncited statement is unsupported without asking the judge, so it
carries no judge error).
This metric, beside ``mean`` and ``stderr`` on each such rate, gives the Rogan-Gladen rate
and its interval (:func:`inspect_cite.statistics.calibration.corrected_rate`) as ``corrected_mean``,
``corrected_low`` and ``corrected_high`` (x100). Without a calibration it reports nothing, but
where every sample of a run is nan Inspect lists the declared metric itself as ``corrected: nan``.
"""

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from inspect_cite.statistics.calibration import (
    Confusion,
    JudgeCalibration,
    corrected_rate,
    read_calibration,
)

CALIBRATION_KEY = "judge_calibration"
"""The ``Score.metadata`` key of a sample's calibration and judged shares."""


def calibration_for(calibration: str | None, nli: str) -> JudgeCalibration | None:
    """The calibration a scorer was given, checked when the scorer is built (or None).

    Raises:
        ArgumentError: Naming ``-S calibration`` (see :func:`read_calibration`).

    """
    return None if calibration is None else read_calibration(calibration, nli=nli)


def calibration_metadata(
    calibration: JudgeCalibration | None, judged: dict[str, float]
) -> dict[str, object]:
    """``{"judge_calibration": ...}`` for a scored sample's metadata (empty without one).

    Args:
        calibration: The scorer's calibration.
        judged: Per rate, the share of the sample's units the judge decided (0 to 1).

    """
    if calibration is None:
        return {}
    return {CALIBRATION_KEY: calibration.as_metadata(judged)}


def share(part: int, whole: int) -> float:
    """``part / whole``; 0 for an empty whole: the judge decided nothing of the sample.

    A sample with nothing to judge still counts where its rate is known (ALCE's precision of
    an answer that cites nothing is 0): it enters the corrected mean as settled without the
    judge. Where its rate is nan, the sample is left out by the rate itself.
    """
    return part / whole if whole else 0.0


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
        for s in scores:
            info = (s.score.metadata or {}).get(CALIBRATION_KEY)
            if not isinstance(info, dict):
                continue
            calibration = calibration or info
            values.append(s.score.as_float() / 100)
            judged.append(float((info.get("judged") or {}).get(key, math.nan)))
        if calibration is None:
            return {}
        confusion = Confusion(*(int(calibration[k]) for k in ("tp", "fp", "tn", "fn")))
        result = corrected_rate(values, judged, confusion, negative=negative)
        return {"mean": 100 * result.rate, "low": 100 * result.low, "high": 100 * result.high}

    return compute
