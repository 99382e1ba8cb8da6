"""ASQA QA-based accuracy as an Inspect scorer (definitions in ``inspect_cite.alce_qa``)."""

import math

import anyio.to_thread
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce_qa import QA_KEYS, QA_MODEL, get_qa_model, qa_context, qa_item_scores
from inspect_cite.cli_values import accept_cli_values
from scorers.no_answer import no_answer_score


def _explanation(context: str, rows: list[tuple[str, list[str], str]], values: dict) -> str:
    table = "\n".join(
        f"| {q} | {' / '.join(golds)} | {pred or '*(no answer)*'} |" for q, golds, pred in rows
    )
    summary = ", ".join(f"{k} {v:.1f}" for k, v in values.items())
    return (
        f"**QA context (citation-free first line):** {context.strip() or '*(empty)*'}\n\n"
        f"| question | short answers | QA prediction |\n|---|---|---|\n{table}\n\n{summary}"
    )


@scorer(metrics={key: [mean(), stderr()] for key in QA_KEYS})
@accept_cli_values("-S")
def alce_qa(qa_model: str = QA_MODEL, device: str | None = None) -> Scorer:
    """ASQA QA accuracy (QA-EM, QA-F1, QA-Hit, x100) as eval.py's ``--qa``.

    An extractive QA model answers each ``metadata["qa_pairs"][].question`` from the
    citation-free first-line output; answers are scored against the pair's short answers
    with SQuAD exact match and F1.

    Args:
        qa_model: Question-answering model, Hugging Face id or local directory (ALCE:
            gaotianyu1350/roberta-large-squad).
        device: Torch device for the QA model; default CUDA when available.

    """

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, QA_KEYS):
            return unscored
        output = state.output.completion if state.output else ""
        context = qa_context(output)
        pairs = (state.metadata or {}).get("qa_pairs")
        if not isinstance(pairs, list) or not pairs:
            return Score(
                value=dict.fromkeys(QA_KEYS, math.nan),
                answer=context,
                explanation="No `qa_pairs` in the sample metadata: QA accuracy is ASQA-only.",
            )
        questions = [str(p.get("question", "")) for p in pairs]

        def answer() -> list[str]:
            return get_qa_model(qa_model, device).answer(questions, context)

        predictions = await anyio.to_thread.run_sync(answer)
        try:
            values = qa_item_scores(predictions, pairs)
        except ValueError as e:
            return Score(
                value=dict.fromkeys(QA_KEYS, math.nan),
                answer=context,
                explanation=f"Not scored: {e}.",
            )
        rows = [
            (q, list(p.get("short_answers") or []), pred)
            for q, p, pred in zip(questions, pairs, predictions, strict=True)
        ]
        return Score(
            value=values,
            answer=context,
            explanation=_explanation(context, rows, values),
            metadata={"qa_predictions": predictions},
        )

    return score
