"""ALCE correctness as an Inspect scorer (definitions in ``inspect_cite.alce_metrics``)."""

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce_metrics import CORRECTNESS_KEYS, AlceDataset, correctness
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.cli_values import accept_cli_values
from scorers.no_answer import no_answer_score


def _explanation(output: str, values: dict[str, float], dataset: str) -> str:
    rows = "\n".join(f"| {k} | {v:.2f} |" for k, v in values.items())
    shown = output if output.strip() else "*(empty output)*"
    return (
        f"**Scored output ({dataset}, first line, citations removed for these metrics):**"
        f"\n\n{shown}\n\n| metric | value |\n|---|---|\n{rows}"
    )


@scorer(metrics={"*": [mean(), stderr()]})
@accept_cli_values("-S")
def alce_correctness(dataset: AlceDataset | None = None) -> Scorer:
    """ALCE correctness (length, STR-EM/HIT, ROUGE-Lsum, QAMPARI precision/recall) as eval.py.

    The output is cleaned as ALCE does (``<think>`` blocks, ``<|im_end|>`` and a trailing
    ``End.`` removed), cut to its first line, and citations are removed.

    Args:
        dataset: ``asqa``, ``qampari`` or ``eli5``; ``None`` reads ``metadata["dataset"]``.

    """

    async def score(state: TaskState, target: Target) -> Score:
        ds = dataset or (state.metadata or {}).get("dataset")
        if ds not in CORRECTNESS_KEYS:
            raise ValueError(
                f'sample {state.sample_id}: alce_correctness needs dataset= or metadata["dataset"] '
                f"in {sorted(CORRECTNESS_KEYS)}, got {ds!r}"
            )
        if unscored := no_answer_score(state, CORRECTNESS_KEYS[ds]):
            return unscored
        output = alce_scoring_output(state.output.completion if state.output else "")
        values = correctness(output, state.metadata, ds)
        return Score(value=values, answer=output, explanation=_explanation(output, values, ds))

    return score
