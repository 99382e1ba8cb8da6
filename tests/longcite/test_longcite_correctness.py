"""scorers/longcite_correctness against LongCite's own eval_correct.py on the same grader replies.

Expected values: LongCite's ``eval_correct.process`` per item and its script's averages, with
its ``query_llm`` replaced by the scripted grader (tests/fixtures/longcite/make_expected.py,
LongCite d7d772e). The fixture covers a rating read from the last ``[[...]]``, the best of two
reference answers, an unreadable grading (0.5), the summary and few-shot scales, a second try
for LongBench-Chat and a rating off the QA scale (LongCite keeps 200).
"""

import math

import pytest

from inspect_cite.app.log_metrics import log_metrics
from scorers.longcite_correctness import longcite_correctness, read_rating
from tests.longcite.conftest import RecordingGrader, run_fixture
from tests.longcite.fixtures import expected

EXPECTED = expected()


@pytest.fixture
def scored(longcite_files, tmp_path):
    grader = RecordingGrader()
    log = run_fixture(longcite_correctness(), tmp_path, grader)
    return log, {str(s.id): s.scores["longcite_correctness"] for s in log.samples}, grader


def test_each_item_equals_longcites_correctness(scored):
    _, by_id, _ = scored
    for idx, item in EXPECTED["items"].items():
        assert by_id[idx].value["correctness"] == pytest.approx(100 * item["correctness"]), idx


def test_the_headline_is_eval_corrects_average(scored):
    log, _, _ = scored
    metrics = log_metrics(log)["correctness"]
    assert metrics["longbench_cite"] == pytest.approx(
        100 * EXPECTED["eval_correct"]["avg_gpt_score"]
    )
    for group, scores in EXPECTED["eval_correct"]["scores"].items():
        assert metrics[f"longbench_cite_by_dataset_{group}"] == pytest.approx(
            100 * scores["gpt_score"]
        ), group


def test_the_grader_is_asked_as_longcite_asks_it(scored):
    _, _, grader = scored
    # As LongCite passes them: temperature 0, 1024 tokens, no stop but LongBench-Chat's "\n\n".
    want = [
        (t, m, s[0] if isinstance(s, list) else s)
        for item in EXPECTED["items"].values()
        for t, m, s in item["correctness_calls"]
    ]
    got = [(t, m, s) for t, m, s in grader.calls["correctness"]]
    assert sorted(got, key=repr) == sorted(want, key=repr)


def test_the_explanation_shows_each_grading(scored):
    _, by_id, _ = scored
    assert "rating 3 -> 1" in by_id["1"].explanation
    assert "0.5 (LongCite)" in by_id["3"].explanation


def test_strict_makes_unreadable_and_off_scale_gradings_nan(longcite_files, tmp_path):
    log = run_fixture(longcite_correctness(strict=True), tmp_path)
    by_id = {str(s.id): s.scores["longcite_correctness"] for s in log.samples}
    assert math.isnan(by_id["3"].value["correctness"])
    assert "no readable reply in 5 tries" in by_id["3"].metadata["reason"]
    assert math.isnan(by_id["9"].value["correctness"])
    assert "off the scale 1-3" in by_id["9"].metadata["reason"]
    assert by_id["0"].value["correctness"] == pytest.approx(50.0)


def test_ratings_are_read_as_longcite_reads_them():
    assert read_rating("[[good]] then [[4]]") == "4"
    assert read_rating("[[rating: 3 of 3]]") == "3"
    assert read_rating("[[2.5]]") == "2.5"
    assert read_rating("Rating: 3") is None
    assert read_rating("[[none]]") is None


def test_longbench_chat_examples_are_shuffled_reproducibly():
    """LongCite shuffles them unseeded; here the seed and the sample id fix the order."""
    import random

    from scorers.longcite_correctness import _examples

    shots = [{"answer": f"a{i}", "score": i} for i in range(3)]
    order = {
        key: [a for a, _ in _examples({"few_shot_scores": shots}, 3, random.Random(key))]
        for key in ("42:s1:0", "42:s2:0", "7:s1:0", "42:s3:0")
    }
    again = [a for a, _ in _examples({"few_shot_scores": shots}, 3, random.Random("42:s1:0"))]
    assert again == order["42:s1:0"]
    assert len({tuple(o) for o in order.values()}) > 1  # not one fixed order
    with pytest.raises(Exception, match="shows 3 rated example answers"):
        _examples({"few_shot_scores": shots[:2]}, 3, random.Random(0))
