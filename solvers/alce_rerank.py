"""ALCE's RERANK baseline: sample several answers, keep the one with the best citation recall."""

from inspect_ai.model import ChatMessageAssistant
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.autoais import at_most_citations_problem, citation_scores
from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE, check_dataset_argument
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.evidence.documents import get_docs
from inspect_cite.evidence.record import record_evidence
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.nli.judge import nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from solvers.alce_prompting import (
    check_vanilla_prompts,
    sample_dataset,
    sample_outputs,
    sample_question,
    use_alce_prompt,
    vanilla_prompts,
)
from solvers.thinking import thinking_generate


@solver
@accept_cli_values("-S")
def alce_rerank(
    n: int = 4,
    nli: str = "true",
    at_most_citations: int = 3,
    system_message: str | None = ALCE_SYSTEM_MESSAGE,
    dataset: str | None = None,
    thinking: bool = False,
    prompt_file: str | None = None,
) -> Solver:
    """RERANK: draw ``n`` answers to the task's prompt and keep the best-supported one.

    A sample of one's own task gets VANILLA's prompt around its question and documents, as
    ``alce_vanilla`` builds it.

    Each candidate is judged as the citation scorer will judge it (first line, eval.py's
    statement and citation rules, ``nli`` backend) and the highest citation recall wins; ties
    go to the earliest sample. Unlike ALCE's ``tools/rerank_outputs.py`` (which judges each
    cited statement against all shown documents, and keeps an empty answer when every
    candidate scores 0), the premise is the cited documents, and a candidate is always kept.

    Args:
        n: Candidates to sample (paper: 4). Sampling needs a temperature > 0.
        nli: NLI backend spec used to judge candidates (see ``scorers/citation_nli``).
        at_most_citations: Citations judged per statement (eval.py: 3).
        system_message: System message for chat models (ALCE's); ``None`` sends none.
        dataset: ``asqa``, ``qampari`` or ``eli5``; default ``metadata["dataset"]``.
        thinking: Generate with the chat template's thinking on (off by default); a
            candidate that ends inside thinking has no recall and is chosen only when all do.
        prompt_file: An ALCE-format prompt file for the samples of one's own task, instead of
            the official file of their dataset (checked when the solver is built).

    """
    if n < 1:
        raise ArgumentError(f"alce_rerank: n must be >= 1, got {n}")
    problem = at_most_citations_problem(at_most_citations)
    if problem is not None:
        raise ArgumentError(f"alce_rerank: {problem}")
    check_dataset_argument(dataset, who="alce_rerank")
    backend = nli_judge(nli).backend
    prompts = vanilla_prompts(system_message, dataset, prompt_file=prompt_file)
    check_vanilla_prompts(prompts)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        name = sample_dataset(state, dataset)
        question = sample_question(state)
        use_alce_prompt(state, prompts)
        record_evidence(state.metadata, format="alce", via="prompt")
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        candidates = await sample_outputs(state, generate, n)
        recalls = []
        for candidate in candidates:
            result = await citation_scores(
                alce_scoring_output(
                    candidate.completion, prompt_opened=think_opened_by_prompt(candidate)
                ),
                docs,
                question,
                backend,
                qampari=name == "qampari",
                at_most_citations=at_most_citations,
            )
            recalls.append(result.recall if result.recall is not None else -1.0)
        best = max(range(len(candidates)), key=lambda i: (recalls[i], -i))
        state.output = candidates[best]
        state.messages.append(ChatMessageAssistant(content=candidates[best].completion))
        state.metadata["rerank"] = {
            "candidates": [c.completion for c in candidates],
            "citation_recall": recalls,
            "chosen": best,
        }
        return state

    return solve
