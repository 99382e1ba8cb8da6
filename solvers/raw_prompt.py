"""Raw-prompt generation as the ALCE solvers apply it.

The policy is :mod:`inspect_cite.generation.raw_prompt`.
"""

from typing import Any, Literal, cast

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.generation.raw_prompt import (
    RAW_PROMPT_KEY,
    RAW_STOP_SEQS,
    apply_raw_prompt,
    capped_max_tokens,
    check_raw_prompt,
    context_length,
    no_answer_output,
    prompt_tokens,
)
from inspect_cite.generation.thinking import effective_config

# run.py's --max_new_tokens default, when neither the task nor a flag sets max_tokens.
RUN_PY_MAX_NEW_TOKENS = 300


def raw_generate(state: TaskState, generate: Generate, max_length: int | None) -> Generate:
    """The ``generate`` that sends each prompt as run.py sent it to open models.

    The conversation must be the prompt alone (one user message, no system message). Each
    call stops at a newline (besides the call's own stop strings) and gets run.py's token
    budget; when the prompt leaves none, nothing is generated and the output is empty with
    the reason (scored nan). ``state.metadata["raw_prompt"]`` records the provider, the
    ``max_length`` used (or why none) and each call's prompt tokens and budget.

    Args:
        state: The sample.
        generate: The solver's ``generate``.
        max_length: run.py's ``--max_length``; None: the model's context length.

    Raises:
        PreflightError: When the model has no way to receive a raw prompt.

    """
    model = get_model()
    check_raw_prompt(model)
    apply_raw_prompt(model, raw=True)
    record: dict[str, Any] = {"provider": str(model).split("/")[0], "calls": []}
    state.metadata[RAW_PROMPT_KEY] = record

    async def generate_raw(
        state: TaskState,
        tool_calls: Literal["loop", "single", "none"] = "loop",
        **kwargs: Any,
    ) -> TaskState:
        if len(state.messages) != 1 or state.messages[0].role != "user":
            raise ValueError(
                f"sample {state.sample_id}: a raw prompt is one user message, got "
                f"{[m.role for m in state.messages]}"
            )
        config = effective_config(model)
        stops = kwargs.get("stop_seqs") or config.stop_seqs or []
        kwargs["stop_seqs"] = [*RAW_STOP_SEQS, *(s for s in stops if s not in RAW_STOP_SEQS)]
        # Counted first: a vLLM server registers its context length on first contact.
        n_prompt = await prompt_tokens(model, state.messages[0].text)
        limit = max_length if max_length is not None else context_length(model)
        call: dict[str, Any] = {"prompt_tokens": n_prompt}
        record["calls"].append(call)
        if limit is None or n_prompt is None:
            record["max_length"] = None
            record["uncapped"] = (
                f"{model} has no tokenizer to count the prompt with"
                if n_prompt is None
                else "the model's context length is unknown: pass -T max_length"
            )
            return await generate(state, tool_calls, **kwargs)
        record["max_length"] = limit
        wanted = kwargs.get("max_tokens") or config.max_tokens or RUN_PY_MAX_NEW_TOKENS
        budget = capped_max_tokens(wanted, limit, n_prompt)
        call["max_tokens"] = budget
        if budget <= 0:
            state.output = no_answer_output(
                model,
                f"no answer: the prompt ({n_prompt} tokens) leaves no room under "
                f"max_length={limit} (run.py answers with an empty string)",
            )
            return state
        kwargs["max_tokens"] = budget
        return await generate(state, tool_calls, **kwargs)

    return cast(Generate, generate_raw)


@solver
def alce_raw_prompt(solver: Solver, max_length: int | None = None) -> Solver:
    """Run an ALCE solver with run.py's raw prompts (``-T chat=false``).

    The solver must send its prompt without a system message (``system_message=None``).

    Args:
        solver: The ALCE solver (VANILLA, CLOSEDBOOK, SUMM, SNIPPET, INTERACT, ...).
        max_length: run.py's ``--max_length``; default the model's context length.

    """
    if max_length is not None and max_length < 1:
        raise ArgumentError(f"alce_raw_prompt: max_length must be at least 1, got {max_length}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await solver(state, raw_generate(state, generate, max_length))

    return solve
