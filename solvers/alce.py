"""ALCE generation: the paper's VANILLA baseline."""

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.helmet import helmet_evidence
from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE
from inspect_cite.evidence.record import record_evidence
from inspect_cite.options.cli_values import accept_cli_values
from solvers.alce_prompting import check_vanilla_prompts, use_alce_prompt, vanilla_prompts
from solvers.thinking import thinking_generate


@solver
@accept_cli_values("-S")
def alce_vanilla(
    system_message: str | None = ALCE_SYSTEM_MESSAGE,
    thinking: bool = False,
    prompt_file: str | None = None,
) -> Solver:
    """VANILLA: answer the ALCE prompt (demonstrations, documents, question) in one generation.

    The ALCE tasks put the full ALCE prompt in ``metadata["alce_prompt"]`` (the input is the
    question). As ALCE's run.py does for chat
    models, the prompt is sent as the user message after a fixed system message. A sample of
    one's own task (its input is the question, its documents in ``metadata["docs"]``) gets
    VANILLA's prompt built around its question and all its documents, from the prompt file of
    ``metadata["dataset"]`` (ASQA's when absent): see
    :func:`solvers.alce_prompting.use_alce_prompt`.

    Args:
        system_message: The system message; ``None`` sends the prompt alone.
        thinking: Generate with the chat template's thinking on (see
            ``inspect_cite.generation.thinking``; off by default).
        prompt_file: An ALCE-format prompt file (``-S prompt_file=mine.json``) for the
            samples of one's own task, instead of the official file of their dataset; read and
            checked when the solver is built, as the official file is.

    """
    prompts = vanilla_prompts(system_message, prompt_file=prompt_file)
    check_vanilla_prompts(prompts)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        use_alce_prompt(state, prompts)
        # A HELMET row's prompt may have been cut to its token budget: only the passages it
        # showed are evidence (every one, otherwise).
        via, texts = helmet_evidence(state.metadata)
        record_evidence(state.metadata, format="alce", via=via, texts=texts)
        return await generate(state)

    return solve
