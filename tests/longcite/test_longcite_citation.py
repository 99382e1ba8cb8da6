"""scorers/longcite_citation against LongCite's own auto_scorer.py on the same grader replies.

Expected values (tests/fixtures/longcite/expected.json) are LongCite's ``get_citation_score``
(``max_statement_num=40``, as eval_cite.py) and eval_cite.py's averages, run on the fixture items
and answers with its ``query_llm`` replaced by tests/helpers/longcite_grader.py: see
tests/fixtures/longcite/make_expected.py (LongCite d7d772e). The grader here gives the same
replies (its reply is a function of what each prompt asks), through Inspect's ``grader`` role;
the prompts' wording comes from own-words files in LongCite's layout
(tests/helpers/longcite_files.py).
"""

import math

import pytest

from inspect_cite.app.log_metrics import (
    HIGHER_IS_BETTER,
    NO_DIRECTION,
    log_metrics,
    metric_direction,
)
from scorers.longcite_citation import (
    CITATION_KEYS,
    longcite_citation,
    read_need_citation,
    read_relevant,
    read_support,
)
from tests.longcite.conftest import RecordingGrader, run_fixture
from tests.longcite.fixtures import expected, items

EXPECTED = expected()
QUESTIONS = {str(item["idx"]): item["query"] for item in items()}


@pytest.fixture(scope="module")
def scored(tmp_path_factory, word_tokenizer):
    """One run of the fixture (module scope: each test reads it)."""
    import os

    from tests.helpers.longcite_files import write_longcite_files

    folder = write_longcite_files(tmp_path_factory.mktemp("longcite"))
    old = os.environ.get("INSPECT_CITE_LONGCITE_DIR")
    os.environ["INSPECT_CITE_LONGCITE_DIR"] = str(folder)
    try:
        grader = RecordingGrader()
        log = run_fixture(
            longcite_citation(tokenizer=str(word_tokenizer)),
            tmp_path_factory.mktemp("logs"),
            grader,
        )
    finally:
        if old is None:
            del os.environ["INSPECT_CITE_LONGCITE_DIR"]
        else:
            os.environ["INSPECT_CITE_LONGCITE_DIR"] = old
    by_id = {str(s.id): s.scores["longcite_citation"] for s in log.samples}
    return log, by_id, grader


@pytest.mark.parametrize("idx", sorted(EXPECTED["items"], key=int))
def test_each_item_equals_longcites_recall_precision_and_f1(scored, idx):
    _, by_id, _ = scored
    want = EXPECTED["items"][idx]["citation"]
    value = by_id[idx].value
    if want is None:  # LongCite drops the item: here it is nan on every key, with the reason
        assert all(math.isnan(value[k]) for k in CITATION_KEYS)
        assert "unreadable" in by_id[idx].metadata["reason"]
        return
    for key in ("citation_recall", "citation_precision", "citation_f1"):
        assert value[key] == pytest.approx(100 * want[key], abs=1e-9), key


@pytest.mark.parametrize("idx", sorted(EXPECTED["items"], key=int))
def test_the_grader_is_asked_as_longcite_asks_it(scored, idx):
    """Same calls in the same order: temperature 0 then 1, 10 tokens, stop at Analysis:."""
    _, _, grader = scored
    assert grader.calls.get(QUESTIONS[idx], []) == EXPECTED["items"][idx]["citation_calls"]


@pytest.mark.parametrize("idx", sorted(EXPECTED["items"], key=int))
def test_citation_length_counts_every_statements_citations(scored, idx):
    _, by_id, _ = scored
    want = EXPECTED["items"][idx]
    value = by_id[idx].value["citation_length"]
    if want["citation"] is None or want["n_citations"] == 0:
        assert math.isnan(value)
        return
    assert by_id[idx].metadata["n_citations"] == want["n_citations"]
    assert value == pytest.approx(want["citation_tokens"] / want["n_citations"])


def test_the_headline_is_eval_cites_average_of_dataset_means(scored):
    log, _, _ = scored
    metrics = log_metrics(log)
    for key in ("citation_recall", "citation_precision", "citation_f1"):
        assert metrics[key]["longbench_cite"] == pytest.approx(
            100 * EXPECTED["eval_cite"][f"avg_{key}"]
        )
        for group, scores in EXPECTED["eval_cite"]["scores"].items():
            assert metrics[key][f"longbench_cite_by_dataset_{group}"] == pytest.approx(
                100 * scores[key]
            ), (key, group)
    # The paper's citation length: all tokens over all citations of the items LongCite keeps.
    assert metrics["citation_length"]["longbench_cite"] == pytest.approx(
        EXPECTED["citation_length_pooled"]
    )


def test_the_explanation_shows_each_statement_its_chunks_and_verdicts(scored):
    _, by_id, _ = scored
    text = by_id["1"].explanation
    assert "The Harbour Library opened in 1884 with 2,000 books." in text
    assert "cites `[0-0]`" in text and "`[40-42]` names no chunk shown" in text
    assert "`[7-7]` not scored: LongCite keeps the first 3 citations" in text
    assert "relevant" in text and "support of the cited chunks" in text
    assert "not scored: LongCite scores the first 40 statements" in by_id["4"].explanation


def test_a_reply_holding_trigger_ends_the_tries_and_the_sample_is_nan(scored):
    _, by_id, grader = scored
    assert len(grader.calls[QUESTIONS["8"]]) == 1
    assert "Trigger" in by_id["8"].metadata["reason"]


def test_the_tokenizer_missing_leaves_only_citation_length_nan(longcite_files, tmp_path):
    log = run_fixture(longcite_citation(tokenizer=str(tmp_path / "absent")), tmp_path / "logs")
    score = next(s for s in log.samples if str(s.id) == "0").scores["longcite_citation"]
    assert math.isnan(score.value["citation_length"])
    assert "cannot be loaded" in score.metadata["reasons"]["citation_length"]
    assert score.value["citation_f1"] == pytest.approx(
        100 * EXPECTED["items"]["0"]["citation"]["citation_f1"]
    )


def test_glm4_without_remote_code_says_how_to_allow_it(longcite_files, tmp_path):
    log = run_fixture(longcite_citation(), tmp_path / "logs")
    score = next(s for s in log.samples if str(s.id) == "0").scores["longcite_citation"]
    reason = score.metadata["reasons"]["citation_length"]
    assert "THUDM/glm-4-9b-chat" in reason and "trust_remote_code=true" in reason
    assert not math.isnan(score.value["citation_recall"])


def test_strict_corrects_longcites_defects(longcite_files, tmp_path, word_tokenizer):
    log = run_fixture(longcite_citation(tokenizer=str(word_tokenizer), strict=True), tmp_path)
    by_id = {str(s.id): s.scores["longcite_citation"] for s in log.samples}
    # No statements: nan, not 0.
    assert math.isnan(by_id["6"].value["citation_recall"])
    assert by_id["6"].metadata["reason"] == "the answer has no statements"
    # No citations: precision and F1 nan, recall as LongCite.
    assert math.isnan(by_id["9"].value["citation_precision"])
    assert math.isnan(by_id["9"].value["citation_f1"])
    assert by_id["9"].value["citation_recall"] == pytest.approx(50.0)
    # Ranges naming no chunk count as citations that support and show nothing.
    lenient = EXPECTED["items"]["1"]["citation"]
    assert by_id["1"].value["citation_precision"] < 100 * lenient["citation_precision"]
    assert (
        "`[40-42]` names no chunk shown: a citation of nothing (strict)" in by_id["1"].explanation
    )


def test_replies_are_read_as_longcite_reads_them():
    assert read_need_citation("Need Citation: [[Yes/No]]") == 1
    assert read_need_citation("[[no]] [[Yes]]") == 0
    assert read_need_citation("Yes") is None
    assert read_support("Rating: [[Fully supported]]") == 1.0
    assert read_support("[[partially supported]]") == 0.5
    assert read_support("[[Supported]]") == 0.0
    assert read_support("[[5]]") is None  # digits are not a verdict
    assert read_relevant("[[Unrelevant]]") == 0
    assert read_relevant("[[Irrelevant]]") == 1  # only "unrelevant" says no
    assert read_relevant("[Relevant]") is None


def test_every_key_has_a_direction():
    for key in ("citation_recall", "citation_precision", "citation_f1", "correctness"):
        assert metric_direction(key) == HIGHER_IS_BETTER
    assert metric_direction("citation_length") == NO_DIRECTION


def test_bad_options_are_refused(longcite_files):
    with pytest.raises(ValueError, match="max_statements must be at least 1"):
        longcite_citation(max_statements=0)


def test_a_statement_citing_only_unseen_chunks(longcite_files, tmp_path):
    """LongCite asks whether it needed a citation; strict scores it as supported by nothing."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    from tests.helpers.evals import eval_one
    from tests.helpers.scripted_models import scripted_model, scripted_output

    docs = [{"id": str(i), "title": "", "text": f"Chunk {i} text. "} for i in range(3)]
    sample = Sample(id="s", input="Why?", metadata={"docs": docs, "dataset": "hotpotqa"})
    answer = "<statement>The sky is green.<cite>[7-9]</cite></statement>"
    model, _ = scripted_model(lambda *a: scripted_output(answer))
    values = {}
    for strict in (False, True):
        grader = RecordingGrader()
        task = Task(dataset=[sample], scorer=longcite_citation(tokenizer=None, strict=strict))
        log = eval_one(
            task, model, model_roles={"grader": grader.model}, log_dir=str(tmp_path / str(strict))
        )
        values[strict] = (log.samples[0].scores["longcite_citation"].value, grader.calls)
    lenient, lenient_calls = values[False]
    # No digit in the statement: the scripted grader says it needs no citation, so recall 100.
    assert lenient["citation_recall"] == 100 and lenient["citation_precision"] == 0
    assert [len(c) for c in lenient_calls.values()] == [1]
    strict_values, strict_calls = values[True]
    assert strict_values["citation_recall"] == 0 and strict_values["citation_precision"] == 0
    assert not strict_calls  # "No matched citation" and a citation of nothing need no grader


def test_every_score_nan_keeps_one_key_per_group(tmp_path):
    """Issue 52: every grader reply unreadable logged a bare ``longbench_cite_by_dataset`` nan.

    Inspect asks a metric for its value over no scores when every value is nan; the metric
    answers each group's nan under its own key.
    """
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, scorer

    from inspect_cite.benchmarks.longcite import GROUPS
    from scorers._longcite_metrics import longbench_cite_by_dataset
    from tests.helpers.scripted_models import scripted_model

    @scorer(metrics={"citation_f1": [longbench_cite_by_dataset()]})
    def all_nan():
        async def score(state, target):
            return Score(value={"citation_f1": math.nan})

        return score

    [log] = inspect_eval(
        Task(dataset=[Sample(input="q", metadata={"dataset": "hotpotqa"})], scorer=all_nan()),
        model=scripted_model(["an answer"])[0],
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    [score] = log.results.scores
    assert "longbench_cite_by_dataset" not in score.metrics
    assert set(score.metrics) == {f"longbench_cite_by_dataset_{g}" for g in GROUPS}
    assert all(math.isnan(m.value) for m in score.metrics.values())
