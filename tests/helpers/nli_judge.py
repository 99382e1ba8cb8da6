"""A scripted Inspect model that judges entailment like ``tests.helpers.nli_fns.word_entail``."""

import re
from typing import Any

from inspect_ai.model import ModelOutput, get_model

from scorers._cited_answer import CheckedCitation
from tests.helpers.nli_fns import word_entail
from tests.helpers.scripted_models import scripted_output

_PROMPT = re.compile(r"Premise:\n(.*)\n\nHypothesis:\n(.*)\n\nDoes the premise", re.DOTALL)


def judge(messages: list[Any], *args: Any) -> ModelOutput:
    """Answers from the first user message; hypotheses with "garble" get no yes/no at first.

    "garble" gets a clear answer once asked again; "gibberish" never does.
    """
    first = messages[0].text if messages[0].role == "user" else messages[1].text
    m = _PROMPT.search(first)
    assert m, first
    premise, hypothesis = m.group(1), m.group(2)
    retried = len([x for x in messages if x.role == "user"]) > 1
    if "gibberish" in hypothesis or ("garble" in hypothesis and not retried):
        return scripted_output("It depends on how one reads it.")
    verdict = word_entail(premise, hypothesis.replace("garble", ""))
    return scripted_output("**Yes.** It is supported." if verdict else "No, it is not.")


def judge_model() -> Any:
    return get_model("mockllm/model", custom_outputs=judge)


# A valid citation to ask a judge about.
CITATION = CheckedCitation(
    index=0,
    claim="The sky is blue",
    doc_id="d1",
    snippet="The sky is blue.",
    status="valid",
    position=0,
    verbatim=True,
    doc_start=0,
    doc_end=16,
    evidence="The sky is blue.",
)
