"""Answers with one claim of each diagnose class, in the ALCE and the FullCite format.

Judged by ``tests.helpers.nli_fns:word_entail`` (entailed iff every word of the claim is in
the premise): each document holds one capital, so which document supports a claim is plain.
"""

from typing import Any

from inspect_ai.dataset import Sample

# Shown in this order: France at position 1, Germany at 2, Italy at 3.
DOCS = [
    {"id": "fr", "title": "France", "text": "Paris is the capital of France."},
    {"id": "de", "title": "Germany", "text": "Berlin is the capital of Germany."},
    {"id": "it", "title": "Italy", "text": "Rome is the capital of Italy."},
]
NLI = "python:tests.helpers.nli_fns:word_entail"

# supported (doc 1 holds it), misattributed (cites doc 1, doc 2 holds it), unsupported (no
# document holds it), uncited (doc 3 holds it: uncited_but_supported).
ALCE_FOUR = (
    "Paris is the capital of France [1]. Berlin is the capital of Germany [1]. "
    "Madrid is the capital of Spain [2]. Rome is the capital of Italy."
)
FULLCITE_FOUR = (
    "Paris is the capital of France {doc_id: fr, snippet: Paris is the capital of France}. "
    "Berlin is the capital of Germany {doc_id: fr, snippet: Paris is the capital of France}. "
    "Madrid is the capital of Spain {doc_id: de, snippet: Berlin is the capital of Germany}. "
    "Rome is the capital of Italy."
)
# The pairs diagnose adds to either: the misattributed and the unsupported claim against the
# two documents they do not cite, the uncited claim against all three.
FOUR_PAIRS = 7


def alce_sample(answer: str, sample_id: str = "s1", **metadata: Any) -> Sample:
    """An ALCE ASQA sample over :data:`DOCS` whose input is the answer a script replays."""
    return Sample(
        id=sample_id,
        input=answer,
        metadata={
            "docs": [dict(d) for d in DOCS],
            "dataset": "asqa",
            "question": "Which cities are capitals?",
            **metadata,
        },
    )


def fullcite_sample(answer: str, sample_id: str = "s1") -> Sample:
    """A FullCite sample over :data:`DOCS` whose input is the answer a script replays."""
    return Sample(
        id=sample_id,
        input=answer,
        metadata={
            "docs": [dict(d) for d in DOCS],
            "question": "Which cities are capitals?",
            "gold_spans": [],
            "source": "asqa",
        },
    )
