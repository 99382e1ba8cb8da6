"""Raw-prompt generation (``-T chat=false``): the prompt as ALCE's run.py sent it to open models.

run.py sent every model outside the OpenAI chat API (the paper's LLaMA, Alpaca, Vicuna, OPT
and Llama-2 runs) the prompt string itself: no chat template, no system message, generation
stopped at the first newline, and at most ``min(max_new_tokens, max_length - prompt_tokens)``
new tokens, an empty answer when that is 0 or less (``prompt_tokens`` counted by
``tokenizer.tokenize``, without special tokens). How each provider is given a raw prompt:

- ``hf/``: the loaded provider's chat template (what ``-M chat_template`` sets) is replaced by
  one that renders the message text alone; the tokenizer then adds its special tokens (BOS)
  as run.py's ``tokenizer([prompt])`` did. Set per model, as the thinking switch is.
- ``vllm-completions/``, ``openai-api-completions/``: Inspect's providers for the servers'
  ``/v1/completions`` route send the message text as the prompt.
- ``mockllm/``: the message is the prompt (scripted models in tests).
- every other provider applies a chat template, or has no raw route: refused before
  generation, naming the completions provider for ``vllm/`` and ``openai-api/``.

``max_length`` is ``-T max_length``, else the model's context length (``hf/``: the model
config's ``max_position_embeddings``; ``vllm-completions/``: the server's ``max_model_len``,
which Inspect registers as the context window). Where the prompt cannot be counted or the
length is unknown, no cap is applied and the sample's metadata says why.
"""

from typing import Any

from inspect_ai.model import ChatMessage, Model, ModelName, ModelOutput, get_model_info

from inspect_cite.checks.errors import PreflightError

RAW_CHAT_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"
"""An ``hf/`` chat template that renders the messages' text alone (one user message here)."""

RAW_STOP_SEQS = ["\n"]
"""run.py stops open models at the first newline (and ``"\\n", "\\n\\n"`` in interactive turns)."""

RAW_PROMPT_KEY = "raw_prompt"
"""Sample metadata key recording how the raw prompt reached the model and its token caps."""

NO_ANSWER_KEY = "no_answer"
"""``ModelOutput.metadata`` key holding why a generation was not attempted (scored nan)."""

# Providers that send a raw prompt as it is, and the raw route of those that do not.
RAW_PROVIDERS = ("hf", "vllm-completions", "openai-api-completions", "mockllm")
COMPLETIONS_PROVIDERS = {"vllm": "vllm-completions", "openai-api": "openai-api-completions"}
# A tokenizer's model_max_length above this is a placeholder ("no limit"), not a length.
_NO_LIMIT = 1_000_000


def raw_prompt_problem(model: Model) -> str | None:
    """Why ``model`` cannot be sent run.py's raw prompt, with the fix; None when it can."""
    name = ModelName(str(model))
    provider = name.api
    if provider == "hf":
        if getattr(model.api, "use_chat_template", None) is False:
            return (
                "-M use_chat_template=false makes the hf provider frame the prompt as "
                "'user: ...'; drop it (the task renders the prompt alone)"
            )
        return None
    if provider in RAW_PROVIDERS:
        return None
    route = COMPLETIONS_PROVIDERS.get(provider)
    if route is not None:
        return (
            f"{provider}/ sends chat messages through the server's chat template; use the same "
            f"server's completions route: --model {route}/{name.name}"
        )
    return (
        f"{provider}/ has no raw-prompt route in Inspect (only hf/, vllm-completions/ and "
        "openai-api-completions/ send a prompt as it is); drop -T chat=false"
    )


def check_raw_prompt(model: Model) -> None:
    """Refuse, before generation, a model that cannot be sent a raw prompt.

    Raises:
        PreflightError: Naming ``-T chat=false``, the model, why and the fix.

    """
    problem = raw_prompt_problem(model)
    if problem is not None:
        raise PreflightError(f"-T chat=false with --model {model}: {problem}")


def apply_raw_prompt(model: Model, raw: bool) -> None:
    """Switch an ``hf/`` model's chat template to the raw one, or back to its own.

    No public way: the hf provider reads ``chat_template`` only as a model arg at load time.
    Setting the loaded provider's attribute (the one ``-M chat_template`` sets) avoids loading
    the weights twice; it is per model, so tasks sharing one loaded model share the setting,
    and a chat task after a raw one gets the model's own template back here.
    """
    if ModelName(str(model)).api != "hf":
        return
    api: Any = model.api
    if raw:
        api.chat_template = RAW_CHAT_TEMPLATE
    elif getattr(api, "chat_template", None) == RAW_CHAT_TEMPLATE:
        api.chat_template = model.model_args.get("chat_template")


async def prompt_tokens(model: Model, prompt: str) -> int | None:
    """The prompt's length as run.py counts it (``tokenizer.tokenize``), or None if unknown."""
    provider = ModelName(str(model)).api
    api: Any = model.api
    if provider == "hf":
        return len(api.tokenizer.tokenize(prompt))
    try:
        # vLLM's /tokenize, without special tokens (Inspect's vllm providers).
        return len(await api.tokenize(prompt))
    except NotImplementedError:
        return None


def chat_prompt_tokens(model: Model, messages: list[ChatMessage]) -> int | None:
    """The tokens of an ``hf/`` model's chat prompt for ``messages`` (None elsewhere).

    Rendered and tokenized as the provider does before generating (its chat template, then
    the tokenizer with its special tokens and call arguments).
    """
    if ModelName(str(model)).api != "hf":
        return None
    api: Any = model.api
    prompt = api.hf_chat(messages, [])
    call_args = getattr(api, "tokenizer_call_args", None) or {}
    return len(api.tokenizer(prompt, **call_args)["input_ids"])


def context_length(model: Model) -> int | None:
    """The model's context length, or None when it cannot be told."""
    api: Any = model.api
    if ModelName(str(model)).api == "hf":
        length = getattr(getattr(api.model, "config", None), "max_position_embeddings", None)
        if isinstance(length, int) and length > 0:
            return length
        length = getattr(api.tokenizer, "model_max_length", None)
        return length if isinstance(length, int) and 0 < length < _NO_LIMIT else None
    info = get_model_info(model)
    return info.context_length if info is not None else None


def capped_max_tokens(max_new_tokens: int, max_length: int, n_prompt: int) -> int:
    """run.py's budget for one generation: ``min(max_new_tokens, max_length - prompt_tokens)``."""
    return min(max_new_tokens, max_length - n_prompt)


def no_answer_output(model: Model, reason: str) -> ModelOutput:
    """The empty output of a generation that was not attempted, with why (scored nan)."""
    output = ModelOutput.from_content(model=str(model), content="")
    output.metadata = {NO_ANSWER_KEY: reason}
    return output


def no_generation_reason(output: ModelOutput | None) -> str | None:
    """Why ``output`` holds no generation at all (:func:`no_answer_output`), or None."""
    if output is None or not output.metadata:
        return None
    reason = output.metadata.get(NO_ANSWER_KEY)
    return reason if isinstance(reason, str) else None
