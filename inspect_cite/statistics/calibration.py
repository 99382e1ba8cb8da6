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
  :math:`Se` and :math:`Sp` from their Jeffreys posteriors given the calibration counts (moved
  for the chance check's selection, :func:`_selection_adjusted`) and the samples' mean rate
  and judged share from a Bayesian bootstrap, so it holds both the task's and the
  calibration's uncertainty. Where it cannot be known it is nan with the reason
  (:class:`CorrectedRate`): a calibration that cannot tell the judge from chance
  (:func:`chance_problem`, :data:`MIN_YOUDEN`), a raw rate out of the judge's reach. It assumes
  the judge errs on the task's claims as it did on the calibration's.

Values here are fractions in [0, 1]; callers scale them (the scorers and reports use x100).
A value that cannot be known (precision of a judge that never said "supported") is nan.
"""

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

import numpy as np
from scipy import special

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.http_client import redact_text

logger = logging.getLogger(__name__)

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
# Runs whose interval draws are held in memory at once (draws x runs x distinct values).
_RUNS_PER_BLOCK = 64
# Beyond this many sds above the chance check's threshold, passing it selects nothing.
_TRUNCATION_NEGLIGIBLE = 8.0
# Where J's conditional distribution is tabulated (every 0.0005 of its range).
_YOUDEN_GRID = np.linspace(-1.0, 1.0, 4001)


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


MIN_YOUDEN = 0.1
"""Youden's J (sensitivity + specificity - 1) at or below which no rate is corrected.

At J = 0.1 (balanced accuracy 55) the correction multiplies every error of the raw rate by 10;
at or below it a judge cannot be told from chance well enough to undo its errors."""


def _posterior(confusion: Confusion) -> tuple[float, float, float, float]:
    """Jeffreys posterior Beta parameters of sensitivity (a, b) and specificity (a, b)."""
    c = confusion
    return c.tp + _JEFFREYS, c.fn + _JEFFREYS, c.tn + _JEFFREYS, c.fp + _JEFFREYS


def _youden_moments(confusion: Confusion) -> tuple[float, float, float]:
    """Posterior mean and sd of Youden's J, and the share of its variance from sensitivity."""
    a1, b1, a2, b2 = _posterior(confusion)
    mean = a1 / (a1 + b1) + a2 / (a2 + b2) - 1
    var_se = a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1))
    var_sp = a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1))
    return mean, math.sqrt(var_se + var_sp), var_se / (var_se + var_sp)


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def youden_interval(confusion: Confusion, *, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The interval of Youden's J given the counts: its Jeffreys posterior, normal approximation.

    Sensitivity and specificity have independent Jeffreys (Beta) posteriors; J is their sum
    minus 1, whose mean and variance are exact; the interval is mean +- z sd. Closed form, so
    every check of one calibration (where it is given, where a rate is corrected) agrees.
    """
    mean, sd, _ = _youden_moments(confusion)
    return mean - _z(confidence) * sd, mean + _z(confidence) * sd


def correction_problem(confusion: Confusion) -> str | None:
    """Why a calibration gives no correction at all (no positives, no negatives, J <= 0), or None.

    A calibration with this problem is refused where it is given (``-S calibration``).
    """
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


def chance_problem(confusion: Confusion) -> str | None:
    """Why a calibration cannot tell its judge from chance, or None.

    Any :func:`correction_problem`; else Youden's J at or below :data:`MIN_YOUDEN`, or its
    interval (:func:`youden_interval`) reaching 0. Rates corrected with such a calibration
    are nan with this reason.
    """
    problem = correction_problem(confusion)
    if problem is not None:
        return problem
    se = confusion.tp / (confusion.tp + confusion.fn)
    sp = confusion.tn / (confusion.tn + confusion.fp)
    youden = se + sp - 1
    measured = f"sensitivity {100 * se:.1f}, specificity {100 * sp:.1f}, {confusion.n} pairs"
    # Compared exactly: 0.6 + 0.5 - 1 is a hair above 0.1 in floating point.
    exact = (
        Fraction(confusion.tp, confusion.tp + confusion.fn)
        + Fraction(confusion.tn, confusion.tn + confusion.fp)
        - 1
    )
    if exact <= Fraction(str(MIN_YOUDEN)):
        return (
            f"the calibration cannot tell the judge from chance: Youden's J {youden:.3f} "
            f"({measured}) is at or below {MIN_YOUDEN}"
        )
    low, high = youden_interval(confusion)
    if low <= 0:
        return (
            f"the calibration cannot tell the judge from chance: Youden's J {youden:.3f} "
            f"({measured}) has the {round(100 * CONFIDENCE)}% interval [{low:.3f}, "
            f"{high:.3f}], which reaches 0"
        )
    return None


@dataclass(frozen=True)
class CorrectedRate:
    """A rate corrected for the judge's errors (fractions in [0, 1], nan when unknown).

    Attributes:
        rate: The Rogan-Gladen estimate.
        low: Lower end of its interval.
        high: Upper end of its interval.
        reason: Why the rate is nan (None when it has a value).

    """

    rate: float
    low: float
    high: float
    reason: str | None = None

    @classmethod
    def unknown(cls, reason: str) -> "CorrectedRate":
        """A rate that cannot be known, with the reason."""
        return cls(math.nan, math.nan, math.nan, reason)


def _selection_adjusted(
    se: np.ndarray, sp: np.ndarray, confusions: Sequence[Confusion]
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior draws of sensitivity and specificity, moved for the chance check's selection.

    A calibration is used only when it passes :func:`chance_problem`; among calibrations of a
    weak judge, those that pass overstate it (they were lucky), and intervals drawn from their
    posterior would hold the true rate less often than claimed. So each draw's J is replaced by
    the same quantile of J's conditional confidence distribution given that the calibration
    passed (J's estimate normal with the posterior's mean and sd, truncated below at the
    check's threshold): ``P(estimate >= observed | estimate > threshold; J) = u`` with u the
    draw's quantile without truncation. Far above the threshold the truncation vanishes and the
    draws are unchanged; near it, J draws spread down to 0, which widens the interval up to all
    of ``[0, judged]``. Sensitivity and specificity take the shift in proportion to their
    posterior variances.
    """
    moments = np.array([_youden_moments(c) for c in confusions])
    mean, sd, share = moments[:, 0], moments[:, 1], moments[:, 2]
    point = np.array([c.tp / (c.tp + c.fn) + c.tn / (c.tn + c.fp) - 1 for c in confusions])
    # The check passes when the point estimate exceeds MIN_YOUDEN and the interval's low end
    # exceeds 0: as a threshold on the posterior mean, the larger of the two.
    threshold = np.maximum(_z(CONFIDENCE) * sd, MIN_YOUDEN + mean - point)
    youden = se + sp - 1
    matters = (mean - threshold) / sd < _TRUNCATION_NEGLIGIBLE
    if not matters.any():
        return se, sp
    cols = np.flatnonzero(matters)
    se, sp = se.copy(), sp.copy()
    for col in cols:
        m, s, t = mean[col], sd[col], threshold[col]
        y = youden[:, col]
        # The conditional CDF of J on a grid, log(Phi((g - m)/s) / Phi((g - t)/s)), increasing
        # in g; each draw's untruncated quantile log(Phi((y - m)/s)) read back through it.
        cdf = special.log_ndtr((_YOUDEN_GRID - m) / s) - special.log_ndtr((_YOUDEN_GRID - t) / s)
        moved = np.interp(special.log_ndtr((y - m) / s), cdf, _YOUDEN_GRID)
        shift = np.minimum(moved - y, 0.0)
        se[:, col] = np.clip(se[:, col] + share[col] * shift, 0.0, 1.0)
        sp[:, col] = np.clip(sp[:, col] + (1 - share[col]) * shift, 0.0, 1.0)
    return se, sp


def _rogan_gladen(
    observed: np.ndarray, judged: np.ndarray, se: np.ndarray, sp: np.ndarray
) -> np.ndarray:
    """The unclipped estimate; nan where sensitivity + specificity <= 1 (no solution)."""
    youden = se + sp - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(youden > 0, (observed - (1 - sp) * judged) / youden, np.nan)


@dataclass(frozen=True)
class _Run:
    """One run's scored samples, reduced to what the interval needs."""

    index: int
    pool: np.ndarray  # distinct (value, judged) pairs, then the two ends (Jeffreys halves)
    weights: np.ndarray
    v_mean: float
    j_mean: float
    confusion: Confusion


def _run(index: int, values: np.ndarray, judged: np.ndarray, confusion: Confusion) -> _Run:
    # Half a sample at each end of the range (value 0 and value = judged, at the mean judged
    # share) joins the pool, as Jeffreys' prior does for a proportion: samples that all agree
    # (every answer fully supported) still leave room below 100, not a zero-width interval.
    j_mean = float(judged.mean())
    # Distinct (value, judged) pairs, as complex numbers: a one-dimensional unique is fast.
    pairs, counts = np.unique(values + 1j * judged, return_counts=True)
    pool = np.concatenate(
        [np.stack([pairs.real, pairs.imag], axis=1), [[0.0, j_mean], [j_mean, j_mean]]]
    )
    weights = np.concatenate([counts, [_JEFFREYS, _JEFFREYS]]).astype(float)
    return _Run(index, pool, weights, float(values.mean()), j_mean, confusion)


def _out_of_reach(raw: float, se: float, sp: float, where: str) -> str:
    return (
        f"the raw rate {100 * raw:.1f} is out of this judge's reach: it says 'supported' "
        f"{where} a judge with the calibration's sensitivity {100 * se:.1f} and specificity "
        f"{100 * sp:.1f} could on any claims, so it does not err on these claims as on the "
        "calibration's"
    )


def corrected_rates(
    values: Sequence[Sequence[float]],
    judged: Sequence[Sequence[float]],
    calibrations: Sequence[Confusion],
    *,
    negative: bool = False,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> list[CorrectedRate]:
    """:func:`corrected_rate` of several runs at once (vectorised; one seed for all).

    Args:
        values: Per run, each sample's raw rate.
        judged: Per run, each sample's judged share.
        calibrations: Per run, the judge's confusion table.
        negative: The rates count units judged *not* supported.
        draws: Draws behind each interval.
        seed: Seed of the draws.
        confidence: Coverage of the intervals.

    """
    out: list[CorrectedRate | None] = [None] * len(calibrations)
    runs: list[_Run] = []
    for i, (vals, shares, confusion) in enumerate(zip(values, judged, calibrations, strict=True)):
        v = np.asarray(vals, dtype=float)
        j = np.asarray(shares, dtype=float)
        keep = np.isfinite(v) & np.isfinite(j)
        v, j = np.clip(v[keep], 0.0, 1.0), np.clip(j[keep], 0.0, 1.0)
        problem = "no sample has a value" if v.size == 0 else chance_problem(confusion)
        if problem is not None:
            out[i] = CorrectedRate.unknown(problem)
            continue
        # The share of units supported is what the judge's errors act on.
        runs.append(_run(i, 1 - v if negative else v, j, confusion))
    rng = np.random.default_rng(seed)
    tail = (1 - confidence) / 2
    for start in range(0, len(runs), _RUNS_PER_BLOCK):
        block = runs[start : start + _RUNS_PER_BLOCK]
        params = np.array([_posterior(r.confusion) for r in block])
        se = rng.beta(params[:, 0], params[:, 1], size=(draws, len(block)))
        sp = rng.beta(params[:, 2], params[:, 3], size=(draws, len(block)))
        se, sp = _selection_adjusted(se, sp, [r.confusion for r in block])
        width = max(len(r.weights) for r in block)
        pool = np.zeros((len(block), width, 2))
        shape = np.zeros((len(block), width))
        for k, r in enumerate(block):
            pool[k, : len(r.weights)] = r.pool
            shape[k, : len(r.weights)] = r.weights
        # Bayesian bootstrap (Rubin, 1981): Dirichlet weights on the samples, drawn per distinct
        # (value, judged) pair as Gamma variates of shape = its count; with the two Jeffreys
        # halves, a run of 0/1 rates gives exactly the Jeffreys posterior of a proportion.
        weights = rng.standard_gamma(shape, size=(draws, len(block), width))
        total = weights.sum(axis=2)
        v_means = np.einsum("drk,rk->dr", weights, pool[:, :, 0]) / total
        j_means = np.einsum("drk,rk->dr", weights, pool[:, :, 1]) / total
        sampled = _rogan_gladen(v_means, j_means, se, sp)
        solved = np.isfinite(sampled)
        clipped = np.clip(np.where(solved, sampled, 0.0), 0.0, j_means)
        # An unsolvable draw could be anything in [0, judged]: it counts at both ends.
        lows = np.quantile(np.where(solved, clipped, 0.0), tail, axis=0)
        highs = np.quantile(np.where(solved, clipped, j_means), 1 - tail, axis=0)
        above = np.count_nonzero(solved & (sampled > j_means), axis=0)
        below = np.count_nonzero(solved & (sampled < 0), axis=0)
        for k, r in enumerate(block):
            c = r.confusion
            se_point, sp_point = c.tp / (c.tp + c.fn), c.tn / (c.tn + c.fp)
            raw = 1 - r.v_mean if negative else r.v_mean
            # Nearly every draw beyond one end: the interval would collapse onto that end.
            if above[k] > (1 - tail) * draws:
                out[r.index] = CorrectedRate.unknown(
                    _out_of_reach(raw, se_point, sp_point, "more often than")
                )
                continue
            if below[k] > (1 - tail) * draws:
                out[r.index] = CorrectedRate.unknown(
                    _out_of_reach(raw, se_point, sp_point, "less often than")
                )
                continue
            point = _rogan_gladen(
                np.array(r.v_mean), np.array(r.j_mean), np.array(se_point), np.array(sp_point)
            )
            rate = float(np.clip(point, 0.0, r.j_mean))
            low, high = min(float(lows[k]), rate), max(float(highs[k]), rate)
            if negative:
                rate, low, high = 1 - rate, 1 - high, 1 - low
            out[r.index] = CorrectedRate(rate, low, high)
    return [r if r is not None else CorrectedRate.unknown("not computed") for r in out]


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

    The interval draws sensitivity and specificity from their Jeffreys posteriors given the
    calibration counts and resamples the samples (each sample's rate with its judged share;
    half a sample at each end of the range joins them, as Jeffreys' prior for a proportion), so
    it holds both the calibration's and the task's uncertainty. Each draw is clipped to
    ``[0, judged]``; a draw with sensitivity + specificity <= 1 has no solution and counts at
    both ends (it widens the interval instead of being dropped).

    Args:
        values: Each sample's raw rate (a fraction; nan samples are left out).
        judged: Each sample's share of units the judge decided (1 when it decided all).
        calibration: The judge's confusion table on human-labelled pairs.
        negative: The rate counts units judged *not* supported (e.g. unsupported claims).
        draws: Draws behind the interval.
        seed: Seed of the draws.
        confidence: Coverage of the interval.

    Returns:
        The estimate and its interval; nan with the reason when no sample has a value, the
        calibration cannot tell the judge from chance (:func:`chance_problem`), or nearly
        every draw lies beyond one end of ``[0, judged]``: the raw rate is out of the reach
        of a judge with the calibration's errors, which therefore does not err on these
        claims as on the calibration's.

    """
    [result] = corrected_rates(
        [values],
        [judged],
        [calibration],
        negative=negative,
        draws=draws,
        seed=seed,
        confidence=confidence,
    )
    return result


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


def scorer_calibration(calibration: str | None, nli: str) -> JudgeCalibration | None:
    """The calibration a scorer was given, checked when the scorer is built (or None).

    A calibration that cannot tell its judge from chance is accepted with a warning: every
    rate it corrects is then nan with that reason.

    Raises:
        ArgumentError: Naming ``-S calibration`` (see :func:`read_calibration`).

    """
    if calibration is None:
        return None
    chosen = read_calibration(calibration, nli=nli)
    problem = chance_problem(chosen.confusion)
    if problem is not None:
        logger.warning(f"-S calibration={calibration}: corrected rates will be nan: {problem}")
    return chosen
