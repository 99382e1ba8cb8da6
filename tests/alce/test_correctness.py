"""ALCE correctness on hand-built items, with expectations computed by hand from eval.py's definitions."""

import math

import pytest
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from scorers.alce_correctness import (
    alce_correctness,
    correctness,
    qampari_scores,
    rouge_lsum,
    str_em,
)

QA_PAIRS = [
    {"short_answers": ["Christopher Eccleston", "Eccleston"]},
    {"short_answers": ["David Tennant"]},
    {"short_answers": ["Matt Smith"]},
]


def test_str_em_substring_without_word_boundary():
    # "eccleston" is found inside "ecclestons" (substring, no word boundary), Tennant is not there.
    em, hit = str_em("The Ecclestons were famous.", QA_PAIRS)
    assert em == pytest.approx(1 / 3)
    assert hit == 0.0
    em, hit = str_em("Eccleston, then David Tennant, then Matt Smith.", QA_PAIRS)
    assert (em, hit) == (1.0, 1.0)


def test_citation_markers_are_removed_before_matching():
    item = {"qa_pairs": QA_PAIRS[:2], "annotations": None, "answer": "Eccleston and Tennant."}
    values = correctness("Christopher Eccles[1]ton and David [2]Tennant [3].", item, "asqa")
    # remove_citations drops " [n" (with its space) first, then "[n", then "]":
    # "Christopher Eccleston and DavidTennant." -- the space before "[2]" goes with it.
    assert values["str_em"] == 50.0
    assert values["str_hit"] == 0.0
    assert values["length"] == 4.0


def test_empty_output_scores_zero_except_empty_answers():
    item = {"qa_pairs": [{"short_answers": ["Paris"]}, {"short_answers": ["The"]}], "answer": "x"}
    values = correctness("", item, "asqa")
    assert values["length"] == 0.0
    # "The" normalises to "" which eval.py finds in any string: 1 of 2 pairs.
    assert values["str_em"] == 50.0
    assert values["str_hit"] == 0.0
    assert values["rougeLsum"] == 0.0


def test_rouge_takes_better_annotation():
    refs = ["the cat sat on the mat", "a completely different sentence"]
    assert rouge_lsum("The cat sat on the mat.", refs) == pytest.approx(1.0)
    # Unigram LCS: "cat sat mat" (3) of 4 hypothesis and 6 reference tokens -> F = 2*3/(4+6).
    assert rouge_lsum("cat sat mat dog", refs) == pytest.approx(0.6)


def test_qampari_precision_recall_with_duplicates():
    answers = [
        ["Memento"],
        ["Inception"],
        ["The Prestige", "Prestige"],
        ["Dunkirk"],
        ["Tenet"],
        ["Heat"],
    ]
    # Trailing "." and "," stripped; "the prestige" normalises to "prestige" (an alias after
    # normalisation); "Inception" twice counts twice in precision; "Batman" is wrong; empties dropped.
    out = "Memento, Inception, inception, The Prestige, Batman, ,."
    s = qampari_scores(out, answers)
    assert s["num_preds"] == 5
    assert s["qampari_prec"] == pytest.approx(4 / 5)
    assert s["qampari_rec"] == pytest.approx(3 / 6)
    assert s["qampari_rec_top5"] == pytest.approx(3 / 5)
    assert s["qampari_f1"] == pytest.approx(2 * 0.8 * 0.5 / 1.3)
    assert s["qampari_f1_top5"] == pytest.approx(2 * 0.8 * 0.6 / 1.4)


def test_qampari_empty_and_short_gold():
    s = qampari_scores("", [["A"], ["B"]])
    assert (s["num_preds"], s["qampari_prec"], s["qampari_rec"], s["qampari_f1"]) == (0, 0, 0, 0)
    s = qampari_scores("X, Y", [["x"], ["y"]])
    assert s["qampari_rec_top5"] == 1.0  # min(5, 2) / min(5, 2)
    s = qampari_scores("A", [])
    assert math.isnan(s["qampari_rec"]) and math.isnan(s["qampari_f1"])


def test_qampari_values_scaled_like_eval_py():
    item = {"answers": [["x"], ["y"]], "question": "q"}
    values = correctness("x [1], z [2].", item, "qampari")
    assert values["num_preds"] == 2.0
    assert values["qampari_prec"] == 50.0
    assert values["qampari_rec"] == 50.0
    assert set(values) == {
        "length",
        "num_preds",
        "qampari_prec",
        "qampari_rec",
        "qampari_rec_top5",
        "qampari_f1",
        "qampari_f1_top5",
    }


def state_with(output: str, metadata: dict) -> TaskState:
    from inspect_ai.model import ModelName

    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="q",
        messages=[],
        metadata=metadata,
    )
    state.output = ModelOutput.from_content("mockllm/model", output)
    return state


async def test_scorer_uses_first_line_and_strips_think():
    metadata = {
        "dataset": "eli5",
        "answer": "Blue light scatters more.",
        "docs": [],
    }
    output = "<think>long reasoning\nover lines</think>\nBlue light scatters more [1].\nIgnored second line."
    score = await alce_correctness()(state_with(output, metadata), Target(""))
    assert score.answer == "Blue light scatters more [1]."
    assert score.value["length"] == 4.0
    assert score.value["rougeLsum"] == pytest.approx(100.0)
    assert set(score.value) == {"length", "rougeLsum"}
    assert "Blue light scatters more" in score.explanation


async def test_scorer_needs_a_dataset():
    with pytest.raises(ValueError, match='metadata\\["dataset"\\]'):
        await alce_correctness()(state_with("x", {"docs": []}), Target(""))
