"""Claim-snippet semantic similarity with a sentence-transformers model.

Each citation with a non-empty claim and evidence gets the cosine similarity of the claim's
and the evidence's embeddings (raw cosine, -1..1, not x100). The evidence is the cited
document's own text of the span that holds the model's snippet, verbatim or near-verbatim
(:attr:`scorers._cited_answer.CheckedCitation.evidence`), never the model's words: a snippet
the document does not hold (say, the claim restated) is not compared, nor is an empty snippet
or an invalid citation. Per sample: the mean over the compared citations (``similarity``),
nan without any. The model is loaded once per process and name (the
shared encoder of :mod:`inspect_cite.models.retrieval`); texts of concurrently scored samples are
encoded together (:class:`inspect_cite.models.batching.BatchQueue`).
"""

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.models.batching import BatchQueue
from inspect_cite.models.retrieval import get_retriever
from inspect_cite.models.shared import shared_instance
from inspect_cite.options.cli_values import accept_cli_values
from scorers._cited_answer import citations_markdown, read_cited_answer
from scorers._no_answer import no_answer_score

DEFAULT_SIMILARITY_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Texts per encoder call; claims and snippets of concurrently scored samples share batches.
SIMILARITY_BATCH_SIZE = 64


def embedding_queue(model_name: str) -> BatchQueue[str, Any]:
    """The process-wide batching queue over a sentence-transformers encoder (loaded once)."""

    def encode(texts: list[str]) -> list[Any]:
        return list(get_retriever(model_name).encode(texts))

    return shared_instance(
        ("similarity", model_name), lambda: BatchQueue(encode, max_batch=SIMILARITY_BATCH_SIZE)
    )


SIMILARITY_KEYS = ("similarity", "n_scored")


@scorer(metrics={key: [mean(), stderr()] for key in SIMILARITY_KEYS})
@accept_cli_values("-S")
def citation_similarity(similarity_model: str = DEFAULT_SIMILARITY_MODEL) -> Scorer:
    """Cosine similarity of each claim and the document text it cites (sentence-transformers).

    Values: ``similarity`` (mean cosine over the sample's citations with a claim and
    evidence, nan without any) and ``n_scored`` (how many citations were compared).

    Args:
        similarity_model: A sentence-transformers model name on the Hugging Face hub or a
            local directory (``-S similarity_model=``; tasks take ``-T similarity_model=``).

    """

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, SIMILARITY_KEYS):
            return unscored
        answer = read_cited_answer(state)
        pairs = [
            (c.index, c.claim, c.evidence)
            for c in answer.citations
            if c.claim and c.no_evidence is None and c.evidence
        ]
        verdicts: dict[int, str] = {}
        sims: list[float] = []
        if pairs:
            embeddings = await embedding_queue(similarity_model).submit(
                [p[1] for p in pairs] + [p[2] for p in pairs]
            )
            n = len(pairs)
            for k, (index, _, _) in enumerate(pairs):
                sim = float((embeddings[k] * embeddings[n + k]).sum())
                sims.append(sim)
                verdicts[index] = f"cosine {sim:.3f}"
        for c in answer.citations:
            verdicts.setdefault(c.index, f"not compared ({c.no_evidence or 'empty claim'})")
        value = sum(sims) / len(sims) if sims else math.nan
        shown = "nan (no citation with claim and evidence)" if math.isnan(value) else f"{value:.3f}"
        return Score(
            value={"similarity": value, "n_scored": float(len(sims))},
            answer=answer.text,
            explanation=f"{citations_markdown(answer, verdicts)}\n\n**Mean similarity:** {shown}",
            metadata={"model": similarity_model, "similarities": sims},
        )

    return score
