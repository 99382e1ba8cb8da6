"""scorers/longcite_correctness against LongCite's own eval_correct.py on the same grader replies.

Expected values: LongCite's ``eval_correct.process`` per item and its script's averages, with
its ``query_llm`` replaced by the scripted grader (tests/fixtures/longcite/make_expected.py,
LongCite d7d772e). The fixture covers a rating read from the last ``[[...]]``, the best of two
reference answers, an unreadable grading (0.5), the summary and few-shot scales, a second try
for LongBench-Chat and a rating off the QA scale (LongCite keeps 200).
"""

import math

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset

from inspect_cite.app.log_metrics import log_metrics
from longcite_tasks.data import item_samples
from scorers.longcite_correctness import longcite_correctness, read_rating
from solvers.longcite_one_shot import longcite_one_shot
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model
from tests.longcite.conftest import RecordingGrader, answering_model, run_fixture
from tests.longcite.fixtures import expected, items

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


def test_unreadable_gradings_is_the_share_scored_by_the_half_rule(scored):
    """Item 3's only reference stays unreadable (0.5, LongCite's rule); the others are rated."""
    log, by_id, _ = scored
    shares = {idx: s.value["unreadable_gradings"] for idx, s in by_id.items()}
    assert shares["3"] == 100.0
    assert by_id["3"].value["correctness"] == pytest.approx(50.0)
    assert {v for idx, v in shares.items() if idx != "3"} == {0.0}
    # Reduced across samples as correctness is: the mean, and LongCite's grouped headline.
    metrics = log_metrics(log)["unreadable_gradings"]
    assert metrics["mean"] == pytest.approx(100 / len(shares))
    assert metrics["longbench_cite_by_dataset_dureader"] == pytest.approx(50.0)


def test_an_unparseable_reply_is_half_and_shows_readably(longcite_files, tmp_path):
    """A grader that never writes [[rating]]: 0.5 on every reference, each counted unreadable."""
    reply = "Let me think.\n\nThe answer is close to the reference,\nbut I give no rating.\n"
    grader = RecordingGrader()
    grader.script.reply = lambda prompt: reply  # type: ignore[method-assign]
    log = run_fixture(longcite_correctness(), tmp_path, grader)
    for sample in log.samples:
        score = sample.scores["longcite_correctness"]
        assert score.value == {"correctness": 50.0, "unreadable_gradings": 100.0}, sample.id
        # The reply on one line, not a wall of "\n" escapes.
        assert "\\n" not in score.explanation
        assert "The answer is close to the reference, but I give no rating." in score.explanation
        assert "**Unreadable gradings:** 100%" in score.explanation
    assert log_metrics(log)["unreadable_gradings"]["mean"] == pytest.approx(100.0)


class GraderFault(RuntimeError):
    """What a provider raises when it cannot generate (hf rejects temperature 0)."""


def raising_grader(fail_calls: int | None = None):
    """A grader that raises on every call, or on its first ``fail_calls`` calls only."""
    script = RecordingGrader()
    calls = {"n": 0}

    def respond(input, tools, tool_choice, config):
        calls["n"] += 1
        if fail_calls is None or calls["n"] <= fail_calls:
            raise GraderFault("`temperature` (=0.0) has to be a strictly positive float")
        return script.respond(input, tools, tool_choice, config)

    model, _ = scripted_model(respond)
    return model


def test_a_grader_that_raises_errors_the_sample_instead_of_scoring_half(longcite_files, tmp_path):
    """LongCite scores a failed API as 0.5; here the sample errors (docs/longcite.md)."""
    task = Task(
        dataset=MemoryDataset(item_samples(items()[:3])),
        solver=longcite_one_shot(),
        scorer=longcite_correctness(),
    )
    [log] = inspect_eval(
        task,
        model=answering_model(),
        model_roles={"grader": raising_grader()},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    assert "GraderFault" in log.error.message and "strictly positive" in log.error.message
    # No sample was scored, so no 50.000 headline either.
    for sample in log.samples or []:
        assert "longcite_correctness" not in (sample.scores or {})
    assert not log.results or not log.results.scores


def test_a_grader_fault_is_retried_by_inspect(longcite_files, tmp_path):
    """--retry-on-error runs the sample again; its score is the answer's, not 0.5."""
    [item] = [i for i in items() if str(i["idx"]) == "2"]
    task = Task(
        dataset=MemoryDataset(item_samples([item])),
        solver=longcite_one_shot(),
        scorer=longcite_correctness(),
    )
    log = eval_one(
        task,
        answering_model(),
        model_roles={"grader": raising_grader(fail_calls=1)},
        retry_on_error=1,
        log_dir=str(tmp_path),
    )
    [sample] = log.samples
    assert sample.error_retries and len(sample.error_retries) == 1
    value = sample.scores["longcite_correctness"].value
    assert value == {
        "correctness": pytest.approx(100 * EXPECTED["items"]["2"]["correctness"]),
        "unreadable_gradings": 0.0,
    }
