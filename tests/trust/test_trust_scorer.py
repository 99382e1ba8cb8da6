"""``scorers/trust_score`` through Inspect gives what ``alce-eval --trust`` gives on the same outputs."""

import json
import math
import shutil

import pytest

from alce_tasks.eval_cli import main
from alce_tasks.trust_data import trust_record_to_sample
from inspect_cite.app.log_metrics import log_metrics
from scorers.trust_score import trust_score
from tests.helpers.evals import score_answers
from tests.trust.helpers import EXPECTED, FIXTURES, MAIN_FILES, NLI, assert_same, items


def run_scorer(tmp_path, name, **scorer_args):
    dataset = EXPECTED["files"][name]["dataset"]
    records = items(name)
    samples, answers = [], {}
    for i, record in enumerate(records):
        prompt = f"{i}: {record['question']}"
        samples.append(trust_record_to_sample(record, i, dataset, prompt, ndoc=len(record["docs"])))
        answers[prompt] = record["output"]
    log = score_answers(
        samples,
        answers,
        trust_score(dataset=dataset, nli=NLI, **scorer_args),
        log_dir=str(tmp_path / "logs"),
    )
    return log


def alce_eval_scores(tmp_path, name, *flags):
    path = tmp_path / name
    shutil.copy(FIXTURES / name, path)
    dataset = EXPECTED["files"][name]["dataset"]
    assert main(["--f", str(path), "--trust", "--dataset", dataset, "--nli", NLI, *flags]) == 0
    return json.loads((tmp_path / f"{name}.score").read_text())


@pytest.mark.parametrize("dataset", list(MAIN_FILES))
def test_inspect_run_equals_alce_eval_trust(fresh_nli, tmp_path, dataset):
    name = MAIN_FILES[dataset]
    log = run_scorer(tmp_path, name)
    metrics = log_metrics(log)["trust_score"]
    cli = alce_eval_scores(tmp_path, name)
    # The same keys; the run leads with trust_score (its headline in Inspect).
    assert sorted(metrics) == sorted(cli) and list(metrics)[0] == "trust_score"
    assert_same(metrics, cli)


def test_corrected_and_threshold_reach_the_metric(fresh_nli, tmp_path):
    name = "trust_edge_asqa_all_refused.json"
    log = run_scorer(tmp_path, name, corrected=True, rejection_threshold=88)
    metrics = log_metrics(log)["trust_score"]
    cli = alce_eval_scores(tmp_path, name, "--corrected", "--rejection_threshold", "88")
    cli.pop("nan_reasons")
    # The .score file records its mode; the log records it in the task's parameters.
    assert cli.pop("corrected") is True
    assert math.isnan(metrics["answered_str_em"])
    assert_same(metrics, cli)


def test_explanations_say_why_answered_refused_answerable(fresh_nli, tmp_path):
    log = run_scorer(tmp_path, "trust_asqa.json")
    scores = {s.input: s.scores["trust_score"] for s in log.samples}
    refused_answerable = scores["3: Who won the river race?"]
    assert "**refused an answerable question** (an over-refusal)" in refused_answerable.explanation
    assert "partial ratio" in refused_answerable.explanation
    assert refused_answerable.value["answered"] == 0.0
    assert refused_answerable.value["answerable"] == 1.0
    grounded = scores["4: When did the lighthouse open?"]
    assert "**a grounded refusal**" in grounded.explanation
    assert "no shown document's `answers_found` marks any of the 2 gold answers" in (
        grounded.explanation
    )
    parametric = scores["6: When did the lighthouse open?"]
    assert "**answered an unanswerable question**" in parametric.explanation
    assert parametric.value["correct"] == 100.0
    split = scores["7: Who painted the blue door?"]
    assert "Without its citations the ratio is 87: a refusal" in split.explanation
    assert "is 84 (a refusal needs more than 85): answered" in split.explanation
    # Where each gold answer is found: its documents listed once each, one space apart.
    found = [s.explanation for s in scores.values() if "(in document" in s.explanation]
    assert found and not any(",  [" in e or "document ," in e for e in found)


def test_found_in_lists_each_document_once():
    from scorers.trust_score import _in_documents as _found_in

    docs = [{"answers_found": [1, 0]}, {"answers_found": [0, 0]}, {"answers_found": [1, 1]}]
    assert _found_in(docs, 0) == "in documents [1], [3]"
    assert _found_in(docs, 1) == "in document [3]"


def test_sample_without_answers_found_is_not_scored(fresh_nli, tmp_path):
    record = items("trust_asqa.json")[0]
    sample = trust_record_to_sample(record, 0, "asqa", "q", ndoc=4)
    for doc in sample.metadata["docs"]:
        del doc["answers_found"]
    log = score_answers(
        [sample],
        {"q": record["output"]},
        trust_score(dataset="asqa", nli=NLI),
        log_dir=str(tmp_path / "logs"),
    )
    score = log.samples[0].scores["trust_score"]
    # The reason as given; the explanation shows it literally (markdown-escaped).
    assert score.metadata["reason"].startswith('sample 0: "docs"[0]["answers_found"]')
    assert score.explanation.startswith('**Not scored:** sample 0: "docs"[0]["answers\\_found"]')
    assert math.isnan(log_metrics(log)["trust_score"]["trust_score"])


def test_output_is_cleaned_as_trust_eval_generator_saves_it():
    from scorers.trust_score import trust_output

    assert trust_output("Paris [1]. End.<|im_end|>  \n", prompt_opened=False) == "Paris [1]. "
    assert trust_output("<think>hmm</think>Paris [1].", prompt_opened=None) == "Paris [1]."
    assert trust_output("<think>still thinking", prompt_opened=None) is None


@pytest.mark.parametrize(
    "args, message",
    [
        ({"rejection_threshold": 101}, "rejection_threshold must be a number from 0 to 100"),
        ({"rejection_flag": " "}, "rejection_flag must be a non-empty sentence"),
        ({"dataset": "nq"}, "dataset must be one of asqa, qampari, eli5, expertqa"),
        ({"at_most_citations": 0}, "at_most_citations must be a whole number of at least 1"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(fresh_nli, args, message):
    from inspect_cite.checks.errors import ArgumentError

    with pytest.raises(ArgumentError, match=message):
        trust_score(nli=NLI, **args)


def test_explanation_shows_the_users_text_literally(fresh_nli, tmp_path):
    # The viewer renders the explanation as markdown: a statement over two lines, the second
    # indented, was a code block; `_` and `*` in a statement or gold answer formatted it.
    record = items("trust_asqa.json")[0]
    record["answers"] = [["Anna_Berg *the* rower", "Berg"], ["Tomas Lind", "Lind"]]
    output = "Anna Berg won the river_race\n      in *1990* [1][3]. Tomas Lind won it [2]."
    sample = trust_record_to_sample(record, 0, "asqa", "q", ndoc=4)
    log = score_answers(
        [sample],
        {"q": output},
        trust_score(dataset="asqa", nli=NLI, rejection_flag="I can_not *answer*"),
        log_dir=str(tmp_path / "logs"),
    )
    explanation = log.samples[0].scores["trust_score"].explanation
    lines = explanation.splitlines()
    assert not [line for line in lines if line.startswith("    ")], explanation
    assert "- Anna Berg won the river\\_race in \\*1990\\* [1][3]. (cites [1], [3];" in lines[-2]
    assert "- Anna\\_Berg \\*the\\* rower: yes (found in documents)" in lines
    assert 'partial ratio with "I can\\_not \\*answer\\*" is' in explanation
    # One space between the documents marking a gold answer; "documents" for two.
    assert "gold answer(s) 1 (in documents [1], [3]), 2 (in document [2]) are found" in explanation
