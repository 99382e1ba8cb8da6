"""The thinking switch as the answer solvers apply it.

The policy is :mod:`inspect_cite.generation.thinking`.
"""

from typing import Any, Literal, cast

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, TaskState

from inspect_cite.generation.raw_prompt import (
    RAW_PROMPT_KEY,
    apply_raw_prompt,
    capped_max_tokens,
    chat_prompt_tokens,
    context_length,
    no_answer_output,
)
from inspect_cite.generation.thinking import (
    THINKING_KEY,
    apply_thinking,
    effective_config,
    mark_think_opened,
    renders_template_in_process,
    template_opens_think,
    with_chat_template_kwargs,
)


def thinking_generate(state: TaskState, generate: Generate, thinking: bool) -> Generate:
    """Switch the model's thinking for this sample and return the ``generate`` to answer with.

    Also puts an ``hf/`` model's chat template right for the sample: the raw one for a
    raw-prompt sample (``-T chat=false``), the model's own otherwise.

    Records the switch in ``state.metadata["thinking"]`` (``enabled``, ``control``,
    ``template_reads_enable_thinking``). On providers whose server renders the chat template, the
    returned function adds ``chat_template_kwargs.enable_thinking`` to every request's
    ``extra_body`` (keeping the request's or the configured extra_body). On ``hf/``, which renders
    the template in-process, each output records whether its prompt opened ``<think>``
    (:func:`inspect_cite.generation.thinking.mark_think_opened`), so that scorers know where its
    answer begins, and a chat prompt is kept inside the model's context as a raw prompt is
    (:func:`inspect_cite.generation.raw_prompt.capped_max_tokens`): the new tokens are capped to the
    room the prompt leaves, and a prompt that leaves none is not generated from (the output is empty
    with the reason, scored nan) instead of failing in the model's forward pass. Otherwise it is
    ``generate`` itself.

    Args:
        state: The sample.
        generate: The solver's ``generate``.
        thinking: Whether the answer is generated with thinking on.

    """
    model = get_model()
    record = apply_thinking(model, thinking)
    # The other per-model switch: an hf/ model a raw-prompt task used (solvers.raw_prompt,
    # which marks its samples) gets its own chat template back for a chat sample.
    apply_raw_prompt(model, raw=RAW_PROMPT_KEY in state.metadata)
    state.metadata[THINKING_KEY] = record
    if renders_template_in_process(model):

        async def generate_marked(
            state: TaskState,
            tool_calls: Literal["loop", "single", "none"] = "loop",
            **kwargs: Any,
        ) -> TaskState:
            # Rendered as the provider will render it for this call (same messages, same flag).
            opened = template_opens_think(model, state.messages)
            if RAW_PROMPT_KEY not in state.metadata:
                # A raw prompt is capped by raw_generate, run.py's way.
                limit = context_length(model)
                n_prompt = chat_prompt_tokens(model, state.messages)
                if limit is not None and n_prompt is not None:
                    # The provider's own default when nothing sets max_tokens.
                    wanted = (
                        kwargs.get("max_tokens")
                        or effective_config(model).max_tokens
                        or model.api.max_tokens()
                    )
                    budget = capped_max_tokens(wanted or limit, limit, n_prompt)
                    if budget <= 0:
                        state.output = no_answer_output(
                            model,
                            f"no answer: the prompt ({n_prompt} tokens) leaves no room in the "
                            f"model's context of {limit} tokens",
                        )
                        return state
                    if not wanted or budget < wanted:
                        kwargs["max_tokens"] = budget
            state = await generate(state, tool_calls, **kwargs)
            if opened is not None and state.output.choices:
                mark_think_opened(state.output, opened)
            return state

        return cast(Generate, generate_marked)
    if record["control"] != "chat_template_kwargs":
        return generate

    async def generate_switched(
        state: TaskState,
        tool_calls: Literal["loop", "single", "none"] = "loop",
        **kwargs: Any,
    ) -> TaskState:
        base = kwargs.get("extra_body") or effective_config(model).extra_body
        kwargs["extra_body"] = with_chat_template_kwargs(base, thinking)
        return await generate(state, tool_calls, **kwargs)

    return cast(Generate, generate_switched)
