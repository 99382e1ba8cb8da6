"""Agreement with human labels and the Rogan-Gladen correction (inspect_cite.statistics.calibration)."""

import json
import math

import numpy as np
import pytest

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.statistics.calibration import (
    MIN_YOUDEN,
    Confusion,
    agreement,
    chance_problem,
    corrected_rate,
    correction_problem,
    read_calibration,
    youden_interval,
)


def test_rates_equal_sklearn_on_random_labels():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    for _ in range(20):
        labels = rng.random(150) < rng.uniform(0.2, 0.8)
        verdicts = np.where(rng.random(150) < 0.75, labels, ~labels)
        got = agreement(Confusion.count(labels.tolist(), verdicts.tolist())).values
        assert got["accuracy"] == pytest.approx(metrics.accuracy_score(labels, verdicts))
        assert got["balanced_accuracy"] == pytest.approx(
            metrics.balanced_accuracy_score(labels, verdicts)
        )
        assert got["kappa"] == pytest.approx(metrics.cohen_kappa_score(labels, verdicts))
        assert got["precision"] == pytest.approx(metrics.precision_score(labels, verdicts))
        assert got["recall"] == pytest.approx(metrics.recall_score(labels, verdicts))
        assert got["f1"] == pytest.approx(metrics.f1_score(labels, verdicts))


def test_confusion_counts_each_cell():
    labels = [True, True, False, False, True]
    verdicts = [True, False, True, False, True]
    assert Confusion.count(labels, verdicts) == Confusion(tp=2, fp=1, tn=1, fn=1)


def test_undefined_rates_are_nan_and_have_no_interval():
    # The judge never says "supported": its precision cannot be known, not 0.
    result = agreement(Confusion(tp=0, fp=0, tn=5, fn=5))
    assert math.isnan(result.values["precision"])
    assert all(math.isnan(v) for v in result.intervals["precision"])
    assert result.values["recall"] == 0.0
    empty = agreement(Confusion(0, 0, 0, 0))
    assert all(math.isnan(v) for v in empty.values.values())


def test_bootstrap_intervals_hold_the_estimate_and_repeat_exactly():
    confusion = Confusion(tp=40, fp=10, tn=35, fn=15)
    first, again = agreement(confusion), agreement(confusion)
    assert first.intervals == again.intervals
    for key, (low, high) in first.intervals.items():
        assert low <= first.values[key] <= high, key
        assert high - low > 0.01, key
    wider = agreement(Confusion(tp=4, fp=1, tn=3, fn=2)).intervals["accuracy"]
    assert wider[1] - wider[0] > first.intervals["accuracy"][1] - first.intervals["accuracy"][0]


def judge(truth: np.ndarray, se: float, sp: float, rng: np.random.Generator) -> np.ndarray:
    """A judge of sensitivity ``se`` and specificity ``sp`` applied to ``truth``."""
    draw = rng.random(truth.shape)
    return np.where(truth, draw < se, draw >= sp)


def trial(seed: int, negative: bool) -> tuple[float, float, float]:
    """One synthetic run: calibration pairs, then a task of samples with 1-6 claims each.

    Some claims are uncited (the scorer counts them unsupported without asking the judge), so
    the judged share is below 1, as for citation recall. Returns (true rate, low, high).
    """
    rng = np.random.default_rng(seed)
    se, sp = rng.uniform(0.65, 0.95), rng.uniform(0.65, 0.95)
    prevalence = rng.uniform(0.15, 0.85)
    cal_truth = rng.random(400) < 0.5
    calibration = Confusion.count(cal_truth.tolist(), judge(cal_truth, se, sp, rng).tolist())
    values, judged, true_rates = [], [], []
    for _ in range(250):
        n = int(rng.integers(1, 7))
        cited = rng.random(n) < 0.8
        truth = (rng.random(n) < prevalence) & cited
        verdicts = judge(truth, se, sp, rng) & cited
        supported = verdicts.mean()
        values.append(1 - supported if negative else supported)
        judged.append(cited.mean())
        true_rates.append(1 - truth.mean() if negative else truth.mean())
    result = corrected_rate(values, judged, calibration, negative=negative)
    return float(np.mean(true_rates)), result.low, result.high


@pytest.mark.parametrize("negative", [False, True], ids=["supported", "unsupported"])
def test_corrected_rate_covers_the_true_rate_in_90_percent_of_200_trials(negative):
    covered = 0
    for seed in range(200):
        truth, low, high = trial(seed, negative)
        covered += low <= truth <= high
    assert covered >= 180, f"{covered}/200 intervals hold the true rate"


def test_the_correction_moves_a_biased_raw_rate_to_the_true_rate():
    rng = np.random.default_rng(0)
    truth = rng.random(8000) < 0.2
    verdicts = judge(truth, 0.6, 0.8, rng)
    calibration = Confusion.count(truth[:4000].tolist(), verdicts[:4000].tolist())
    task_truth, task_verdicts = truth[4000:].mean(), verdicts[4000:].astype(float)
    result = corrected_rate(task_verdicts, [1.0] * 4000, calibration)
    assert abs(task_verdicts.mean() - task_truth) > 0.05  # the judge's bias: raw is off
    assert abs(result.rate - task_truth) < 0.02
    assert result.low <= task_truth <= result.high


def test_a_judge_no_better_than_chance_cannot_correct():
    chance = Confusion(tp=10, fp=10, tn=10, fn=10)
    assert "no better than chance" in str(correction_problem(chance))
    assert "no human-supported" in str(correction_problem(Confusion(0, 3, 3, 0)))
    result = corrected_rate([0.5], [1.0], chance)
    assert all(math.isnan(v) for v in (result.rate, result.low, result.high))
    assert "no better than chance" in str(result.reason)


@pytest.mark.parametrize(
    "confusion, why",
    [
        (Confusion(tp=51, fp=50, tn=50, fn=49), "Youden's J 0.010"),
        # J = 0.1 exactly: at the threshold.
        (Confusion(tp=300, fp=250, tn=250, fn=200), f"at or below {MIN_YOUDEN}"),
        # J = 0.4 on 10 pairs: its interval reaches 0.
        (Confusion(tp=4, fp=2, tn=3, fn=1), "which reaches 0"),
    ],
)
def test_a_calibration_that_cannot_tell_the_judge_from_chance_gives_nan_with_why(confusion, why):
    assert correction_problem(confusion) is None  # a correction exists ...
    problem = chance_problem(confusion)  # ... but the calibration cannot back it
    assert problem is not None and why in problem
    result = corrected_rate([0.9] * 50, [1.0] * 50, confusion)
    assert math.isnan(result.rate) and result.reason == problem


def test_youden_interval_is_the_posterior_mean_and_sd():
    c = Confusion(tp=80, fp=30, tn=70, fn=20)
    rng = np.random.default_rng(0)
    draws = rng.beta(80.5, 20.5, 400_000) + rng.beta(70.5, 30.5, 400_000) - 1
    low, high = youden_interval(c)
    z = 1.959963984540054
    assert (low, high) == pytest.approx(
        (draws.mean() - z * draws.std(), draws.mean() + z * draws.std()), abs=1e-3
    )


def test_a_raw_rate_out_of_the_judges_reach_is_nan_not_a_collapsed_100():
    """claim_overlap of docs/nli.md says "supported" to at most 63% of claims, even all true."""
    claim_overlap = Confusion(tp=380, fp=185, tn=414, fn=219)
    result = corrected_rate([0.9] * 200, [1.0] * 200, claim_overlap)
    assert math.isnan(result.rate)
    assert "out of this judge's reach" in str(result.reason)
    # And below what it says of unsupported claims: out of reach from the other side.
    low = corrected_rate([0.05] * 200, [1.0] * 200, claim_overlap)
    assert "less often than" in str(low.reason)
    # Within its reach it corrects, with an interval that has a width.
    fine = corrected_rate([0.5] * 200, [1.0] * 200, claim_overlap)
    assert fine.low < fine.rate < fine.high


def test_every_answer_supported_by_a_near_perfect_judge_leaves_room_below_100():
    result = corrected_rate([1.0] * 100, [1.0] * 100, Confusion(tp=50, fp=0, tn=50, fn=0))
    assert result.rate == 1.0
    assert 0.9 < result.low < 1.0 == result.high


def calibration_file(tmp_path, rows, nli="python:x.py:f"):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"judges": [{"nli": nli, "datasets": rows}]}))
    return path


def row(data="attributionbench", subset="all", tp=30, fp=5, tn=25, fn=10):
    return {"data": data, "subset": subset, "tp": tp, "fp": fp, "tn": tn, "fn": fn}


def test_read_calibration_picks_the_judge_dataset_and_subset(tmp_path):
    path = calibration_file(tmp_path, [row(), row(subset="LFQA", tp=9, fp=1, tn=8, fn=2)])
    chosen = read_calibration(str(path), nli="python:x.py:f")
    assert chosen.confusion == Confusion(30, 5, 25, 10)
    assert chosen.source == f"{path}#attributionbench/all"
    lfqa = read_calibration(f"{path}#attributionbench/LFQA", nli="python:x.py:f")
    assert lfqa.confusion == Confusion(9, 1, 8, 2)


@pytest.mark.parametrize(
    "value, nli, message",
    [
        ("{path}", "python:other.py:g", "not python:other.py:g"),
        ("{path}#expertqa", "python:x.py:f", "no expertqa/all"),
        ("{path}#attributionbench/HAGRID", "python:x.py:f", "no attributionbench/HAGRID"),
        ("{tmp}/missing.json", "python:x.py:f", "does not exist"),
    ],
)
def test_read_calibration_refuses_with_the_flag(tmp_path, value, nli, message):
    path = calibration_file(tmp_path, [row()])
    value = value.format(path=path, tmp=tmp_path)
    with pytest.raises(ArgumentError, match=message) as e:
        read_calibration(value, nli=nli)
    assert "calibration" in str(e.value)


def test_read_calibration_refuses_a_chance_judge_and_bad_counts(tmp_path):
    chance = calibration_file(tmp_path, [row(tp=5, fp=5, tn=5, fn=5)])
    with pytest.raises(ArgumentError, match="no better than chance"):
        read_calibration(str(chance), nli="python:x.py:f")
    bad = calibration_file(tmp_path, [row(tp=-1)])
    with pytest.raises(ArgumentError, match="whole numbers"):
        read_calibration(str(bad), nli="python:x.py:f")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ArgumentError, match='no "judges" list'):
        read_calibration(str(tmp_path / "list.json"), nli="python:x.py:f")
