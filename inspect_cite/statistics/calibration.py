r"""How far to trust a citation judge: its agreement with people, and rates corrected for it.

Two halves, both pure arithmetic on counts (no model, no file format):

- **Agreement** (``inspect-cite calibrate``): a judge's verdicts on human-labelled (evidence,
  claim) pairs give a confusion table against the human label (positive = supported). From it:
  accuracy, balanced accuracy, Cohen's kappa, precision / recall / F1 of "supported",
  specificity, with percentile-bootstrap intervals. Resampling pairs with replacement changes
  only how many pairs fall in each cell, so each bootstrap draw is a multinomial draw of the
  four counts: the same distribution as resampling the pairs, at any number of pairs.
- **Correction** (``-S calibration=FILE`` of the NLI scorers): a judge with sensitivity
  :math:`Se` and specificity :math:`Sp` calls a claim supported with probability
  :math:`Se\,\pi + (1 - Sp)(1 - \pi)` when a share :math:`\pi` of claims is truly supported.
  Solving for :math:`\pi` is the Rogan-Gladen estimator
  :math:`\hat\pi = (p + Sp - 1) / (Se + Sp - 1)`. Units a scorer settles without the judge
  (an uncited statement is unsupported whatever the judge would say) carry no judge error, so
  with :math:`J` the mean share of units the judge decided, the corrected rate is
  :math:`(p - (1 - Sp) J) / (Se + Sp - 1)`, clipped to :math:`[0, J]`. Its interval draws
  :math:`Se` and :math:`Sp` from their Jeffreys posteriors given the calibration counts and
  resamples the scored samples, so it holds both the task's and the calibration's uncertainty.
  It assumes the judge errs on the task's claims as it did on the calibration's.

Values here are fractions in [0, 1]; callers scale them (the scorers and reports use x100).
A value that cannot be known (precision of a judge that never said "supported") is nan.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.http_client import redact_text

CONFIDENCE = 0.95
"""Coverage of every interval."""
BOOTSTRAP_DRAWS = 2000
"""Draws behind each interval."""
SEED = 0
"""The bootstrap's seed: the same counts give the same intervals on every run."""

METRICS = (
    "accuracy",
    "balanced_accuracy",
    "kappa",
    "precision",
    "recall",
    "f1",
    "specificity",
)
"""The agreement measures of :func:`agreement`, in report order."""

_JEFFREYS = 0.5
_RESAMPLE_CELLS = 1 << 22


@dataclass(frozen=True)
class Confusion:
    """A judge's decided verdicts against the human labels (positive = supported).

    Attributes:
        tp: Human supported, judge supported.
        fp: Human not supported, judge supported.
        tn: Human not supported, judge not supported.
        fn: Human supported, judge not supported.

    """

    tp: int
    fp: int
    tn: int
    fn: int

    @classmethod
    def count(cls, labels: Sequence[bool], verdicts: Sequence[bool]) -> "Confusion":
        """The table of parallel human labels and judge verdicts."""
        pairs = list(zip(labels, verdicts, strict=True))
        return cls(
            tp=sum(1 for h, v in pairs if h and v),
            fp=sum(1 for h, v in pairs if not h and v),
            tn=sum(1 for h, v in pairs if not h and not v),
            fn=sum(1 for h, v in pairs if h and not v),
        )

    @property
    def n(self) -> int:
        """Decided pairs."""
        return self.tp + self.fp + self.tn + self.fn

    def as_array(self) -> np.ndarray:
        """``[tp, fp, tn, fn]``."""
        return np.array([self.tp, self.fp, self.tn, self.fn], dtype=float)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def rates(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Every measure of :data:`METRICS` from counts ``[..., (tp, fp, tn, fn)]`` (vectorised)."""
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    n = tp + fp + tn + fn
    recall = _ratio(tp, tp + fn)
    specificity = _ratio(tn, tn + fp)
    accuracy = _ratio(tp + tn, n)
    # Chance agreement of two raters with these margins (Cohen, 1960).
    expected = _ratio((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp), n * n)
    return {
        "accuracy": accuracy,
        "balanced_accuracy": (recall + specificity) / 2,
        "kappa": _ratio(accuracy - expected, 1 - expected),
        "precision": _ratio(tp, tp + fp),
        "recall": recall,
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "specificity": specificity,
    }


@dataclass(frozen=True)
class Agreement:
    """A judge's agreement with people on one set of pairs.

    Attributes:
        confusion: The counts of decided pairs.
        values: Each measure of :data:`METRICS` (a fraction, or nan when undefined).
        intervals: Each measure's bootstrap interval ``(low, high)`` (nan when undefined).

    """

    confusion: Confusion
    values: dict[str, float]
    intervals: dict[str, tuple[float, float]]


def _interval(draws: np.ndarray, confidence: float) -> tuple[float, float]:
    defined = draws[np.isfinite(draws)]
    if defined.size == 0:
        return math.nan, math.nan
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high)


def agreement(
    confusion: Confusion,
    *,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Agreement:
    """The measures of :data:`METRICS` and their percentile-bootstrap intervals.

    Args:
        confusion: The judge's decided verdicts against the human labels.
        draws: Bootstrap draws.
        seed: Seed of the draws.
        confidence: Coverage of the intervals.

    """
    counts = confusion.as_array()
    point = {k: float(v) for k, v in rates(counts).items()}
    intervals: dict[str, tuple[float, float]] = dict.fromkeys(METRICS, (math.nan, math.nan))
    if confusion.n:
        rng = np.random.default_rng(seed)
        sampled = rng.multinomial(confusion.n, counts / confusion.n, size=draws).astype(float)
        for key, values in rates(sampled).items():
            if math.isfinite(point[key]):
                intervals[key] = _interval(values, confidence)
    return Agreement(confusion, point, intervals)


def correction_problem(confusion: Confusion) -> str | None:
    """Why a calibration cannot correct a rate (no positives, no negatives, chance), or None."""
    if confusion.tp + confusion.fn == 0:
        return "it has no human-supported pairs, so the judge's sensitivity is unknown"
    if confusion.tn + confusion.fp == 0:
        return "it has no human-unsupported pairs, so the judge's specificity is unknown"
    se = confusion.tp / (confusion.tp + confusion.fn)
    sp = confusion.tn / (confusion.tn + confusion.fp)
    if se + sp <= 1:
        return (
            f"the judge is no better than chance on it (sensitivity {100 * se:.1f} + "
            f"specificity {100 * sp:.1f} <= 100), so no correction exists"
        )
    return None


@dataclass(frozen=True)
class CorrectedRate:
    """A rate corrected for the judge's errors (fractions in [0, 1], nan when unknown).

    Attributes:
        rate: The Rogan-Gladen estimate.
        low: Lower end of its interval.
        high: Upper end of its interval.

    """

    rate: float
    low: float
    high: float


def _rogan_gladen(
    observed: np.ndarray, judged: np.ndarray, se: np.ndarray, sp: np.ndarray
) -> np.ndarray:
    # A draw at or below chance has no solution: the tiny positive denominator sends it to an
    # end of [0, judged], which widens the interval instead of dropping the draw.
    youden = np.maximum(se + sp - 1, 1e-12)
    return np.clip((observed - (1 - sp) * judged) / youden, 0.0, judged)


def corrected_rate(
    values: Sequence[float],
    judged: Sequence[float],
    calibration: Confusion,
    *,
    negative: bool = False,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> CorrectedRate:
    """The mean of per-sample rates corrected for the judge's sensitivity and specificity.

    Args:
        values: Each sample's raw rate (a fraction; nan samples are left out).
        judged: Each sample's share of units the judge decided (1 when it decided all).
        calibration: The judge's confusion table on human-labelled pairs.
        negative: The rate counts units judged *not* supported (e.g. unsupported claims).
        draws: Draws behind the interval.
        seed: Seed of the draws.
        confidence: Coverage of the interval.

    Returns:
        The estimate and its interval; all nan when no sample has a value or
        :func:`correction_problem` finds the calibration unusable.

    """
    v = np.asarray(values, dtype=float)
    j = np.asarray(judged, dtype=float)
    keep = np.isfinite(v) & np.isfinite(j)
    v, j = v[keep], np.clip(j[keep], 0.0, 1.0)
    if v.size == 0 or correction_problem(calibration) is not None:
        return CorrectedRate(math.nan, math.nan, math.nan)
    if negative:
        # The share of units supported is what the judge's errors act on.
        v = 1 - v
    c = calibration
    se = np.array(c.tp / (c.tp + c.fn))
    sp = np.array(c.tn / (c.tn + c.fp))
    point = float(_rogan_gladen(np.array(v.mean()), np.array(j.mean()), se, sp))
    rng = np.random.default_rng(seed)
    se_draws = rng.beta(c.tp + _JEFFREYS, c.fn + _JEFFREYS, size=draws)
    sp_draws = rng.beta(c.tn + _JEFFREYS, c.fp + _JEFFREYS, size=draws)
    v_means, j_means = np.empty(draws), np.empty(draws)
    # Resampled in blocks, so that memory stays bounded however many samples a log holds.
    block = max(1, _RESAMPLE_CELLS // v.size)
    for start in range(0, draws, block):
        rows = rng.integers(0, v.size, size=(min(block, draws - start), v.size))
        v_means[start : start + len(rows)] = v[rows].mean(axis=1)
        j_means[start : start + len(rows)] = j[rows].mean(axis=1)
    sampled = _rogan_gladen(v_means, j_means, se_draws, sp_draws)
    low, high = _interval(sampled, confidence)
    if negative:
        point, low, high = 1 - point, 1 - high, 1 - low
    return CorrectedRate(point, low, high)


CALIBRATION_FLAG = "-S calibration"
_CELLS = ("tp", "fp", "tn", "fn")
ALL_SUBSET = "all"
"""The subset every dataset reports: all of its pairs."""


@dataclass(frozen=True)
class JudgeCalibration:
    """The calibration a scorer corrects its rates with.

    Attributes:
        confusion: The judge's confusion table on the chosen human-labelled pairs.
        source: ``<file>#<data>/<subset>``, for the log.

    """

    confusion: Confusion
    source: str

    def as_metadata(self, judged: dict[str, float]) -> dict[str, object]:
        """What a sample's score metadata carries for the ``corrected`` metric."""
        c = self.confusion
        return {"source": self.source, "tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn} | {
            "judged": judged
        }


def _count(row: dict[str, object], key: str) -> int | None:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def read_calibration(value: str, *, nli: str, flag: str = CALIBRATION_FLAG) -> JudgeCalibration:
    """The calibration named by ``FILE[#DATA[/SUBSET]]`` for the judge ``nli``.

    ``FILE`` is a ``calibration.json`` written by ``inspect-cite calibrate``; ``DATA`` may be
    left out when the file holds one dataset for this judge, ``SUBSET`` defaults to ``all``.

    Raises:
        ArgumentError: Naming the flag: the file cannot be read, does not measure this judge,
            lacks the dataset or subset, or cannot correct a rate (:func:`correction_problem`).

    """
    path_text, choice = value, ""
    if "#" in value and not Path(value).is_file():
        path_text, _, choice = value.rpartition("#")
    data_name, _, subset = choice.partition("/")
    subset = subset or ALL_SUBSET
    where = f"{flag}={value}"

    def refuse(problem: str) -> ArgumentError:
        return ArgumentError(f"{where}: {problem}")

    content = read_json(Path(path_text), "calibration file", ArgumentError, f" ({flag})")
    judges = content.get("judges") if isinstance(content, dict) else None
    if not isinstance(judges, list) or not all(isinstance(j, dict) for j in judges):
        raise refuse(f'{path_text} has no "judges" list: not a calibration.json')
    spec = redact_text(nli.strip())
    measuring = [j for j in judges if j.get("nli") == spec]
    if not measuring:
        measured = ", ".join(str(j.get("nli")) for j in judges) or "none"
        raise refuse(
            f"it measures the judges {measured}, not {spec}: a calibration holds only for the "
            "judge it measured (run inspect-cite calibrate --nli with this spec)"
        )
    rows = [r for j in measuring for r in j.get("datasets") or [] if isinstance(r, dict)]
    names = list(dict.fromkeys(str(r.get("data")) for r in rows))
    if not data_name:
        if len(names) != 1:
            raise refuse(f"name the dataset: FILE#DATA[/SUBSET], one of {', '.join(names)}")
        data_name = names[0]
    chosen = [r for r in rows if r.get("data") == data_name and r.get("subset") == subset]
    if not chosen:
        known = [f"{r.get('data')}/{r.get('subset')}" for r in rows]
        raise refuse(f"no {data_name}/{subset} for {spec}; it has {', '.join(known) or 'none'}")
    tables = set()
    for row in chosen:
        counts = {k: _count(row, k) for k in _CELLS}
        if any(v is None for v in counts.values()):
            raise refuse(f"{data_name}/{subset}: tp, fp, tn and fn must be whole numbers >= 0")
        tables.add(Confusion(**{k: int(v or 0) for k, v in counts.items()}))
    # The same judge measured twice (an edited or merged file) with other counts: which one
    # holds is unknown, and each would correct the rates differently.
    if len(tables) > 1:
        raise refuse(
            f"{path_text} holds {len(chosen)} entries for the judge {spec} on "
            f"{data_name}/{subset} with different counts; keep one"
        )
    [confusion] = tables
    problem = correction_problem(confusion)
    if problem is not None:
        raise refuse(f"{data_name}/{subset} cannot correct a rate: {problem}")
    return JudgeCalibration(confusion, f"{path_text}#{data_name}/{subset}")
