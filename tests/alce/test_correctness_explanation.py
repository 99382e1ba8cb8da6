"""alce_correctness's explanation shows the text its metrics read: citations removed."""

import asyncio

from inspect_ai.scorer import Target

from scorers.alce_correctness import alce_correctness
from tests.helpers.task_states import state


def test_the_scored_text_is_shown_without_its_citations():
    meta = {"dataset": "asqa", "qa_pairs": [{"short_answers": ["Paris"]}], "answer": "Paris."}
    output = "The tower is in Paris [1][2]. It is tall [3].\nA second line [4]."
    score = asyncio.run(alce_correctness()(state(output, meta), Target("")))
    assert score is not None and score.explanation is not None
    heading, shown = score.explanation.split("\n\n")[:2]
    assert "citations removed" in heading
    # eval.py's remove_citations on the first line: what length, STR-EM and ROUGE read.
    assert shown == "The tower is in Paris. It is tall."
    assert score.value["length"] == len(shown.split()) == 8
