"""The corrected rate's 95% interval, simulated: it holds the true rate, or the rate is nan with why.

A seeded grid of judges (sensitivity, specificity; from strong to chance), prevalences of
supported units and sizes (calibration pairs per class, scored samples). Each trial draws a
calibration of the judge on labelled pairs, then a task whose samples hold one or two units,
each judged with probability 0.8 (the rest settled without the judge, as an uncited statement
is) and truly supported with the prevalence; the judge errs at its sensitivity and specificity.
The true rate is prevalence x 0.8. Every trial's result goes through
:func:`inspect_cite.statistics.calibration.corrected_rates`, the code behind the ``corrected`` metric.

Per cell of 500 trials: where a value is given, its interval holds the true rate in at least
93% of them; a value that is not given is nan with its reason. A chance judge is nearly always
refused; a strong one nearly never. The grid runs in about 15 s on one core (numpy, every
trial of a cell in one call).
"""

import itertools
import math

import numpy as np
import pytest

from inspect_cite.statistics.calibration import Confusion, corrected_rate, corrected_rates

JUDGES = {
    "strong": (0.9, 0.9),
    "lenient": (0.95, 0.6),
    "weak": (0.65, 0.6),
    "near-chance": (0.58, 0.57),
    "chance": (0.52, 0.5),
}
PREVALENCES = (0.1, 0.5, 0.9)
# (calibration pairs per class, scored samples)
SIZES = {"small": (50, 40), "large": (400, 400)}
TRIALS = 500
JUDGED = 0.8
MIN_COVERAGE = 0.93


def simulate(
    se: float, sp: float, prevalence: float, pairs: int, samples: int, rng: np.random.Generator
) -> tuple[list[Confusion], np.ndarray, np.ndarray]:
    """TRIALS calibrations and tasks: (confusions, per-sample raw rates, judged shares)."""
    tp, tn = rng.binomial(pairs, se, TRIALS), rng.binomial(pairs, sp, TRIALS)
    calibrations = [
        Confusion(tp=int(a), fp=int(pairs - b), tn=int(b), fn=int(pairs - a))
        for a, b in zip(tp, tn, strict=True)
    ]
    units = rng.integers(1, 3, size=(TRIALS, samples))
    present = np.arange(2)[None, None, :] < units[..., None]
    judged = (rng.random(present.shape) < JUDGED) & present
    truth = (rng.random(present.shape) < prevalence) & judged
    draw = rng.random(present.shape)
    says_supported = np.where(truth, draw < se, draw >= sp) & judged
    return calibrations, says_supported.sum(axis=2) / units, judged.sum(axis=2) / units


CELLS = list(itertools.product(JUDGES, PREVALENCES, SIZES))


@pytest.mark.parametrize(
    "judge, prevalence, size", CELLS, ids=[f"{j}-{p}-{s}" for j, p, s in CELLS]
)
def test_the_interval_holds_the_true_rate_or_the_rate_is_nan_with_a_reason(judge, prevalence, size):
    se, sp = JUDGES[judge]
    pairs, samples = SIZES[size]
    rng = np.random.default_rng(CELLS.index((judge, prevalence, size)))
    calibrations, values, judged = simulate(se, sp, prevalence, pairs, samples, rng)
    truth = prevalence * JUDGED
    results = corrected_rates(list(values), list(judged), calibrations)
    given = [r for r in results if not math.isnan(r.rate)]
    assert all(r.reason for r in results if math.isnan(r.rate))
    assert all(r.reason is None and r.low <= r.rate <= r.high for r in given)
    # Never collapsed onto one value: an interval has a width.
    assert all(r.high > r.low for r in given)
    if given:
        covered = sum(r.low <= truth <= r.high for r in given)
        assert covered >= MIN_COVERAGE * len(given), f"{covered}/{len(given)} hold {truth}"
    if judge == "chance":
        assert len(given) <= 0.1 * TRIALS
    if judge in ("strong", "lenient"):
        assert len(given) >= 0.95 * TRIALS


def test_a_rate_of_unsupported_units_is_the_mirror_of_the_supported_one():
    """``negative`` corrects the complement: 1 - rate, with the interval's ends swapped."""
    rng = np.random.default_rng(4)
    calibrations, values, judged = simulate(0.8, 0.7, 0.3, 80, 50, rng)
    supported = corrected_rate(values[0], judged[0], calibrations[0])
    unsupported = corrected_rate(1 - values[0], judged[0], calibrations[0], negative=True)
    assert unsupported.rate == pytest.approx(1 - supported.rate)
    assert (unsupported.low, unsupported.high) == pytest.approx(
        (1 - supported.high, 1 - supported.low)
    )


def test_one_run_is_the_batch_of_one():
    rng = np.random.default_rng(3)
    calibrations, values, judged = simulate(0.8, 0.85, 0.4, 100, 60, rng)
    single = corrected_rate(values[0], judged[0], calibrations[0])
    assert corrected_rates([values[0]], [judged[0]], [calibrations[0]]) == [single]
