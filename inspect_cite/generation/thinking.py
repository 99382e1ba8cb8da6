"""Thinking models: whether ALCE and FullCite answers are generated with thinking on or off.

Chat templates such as Qwen3's think first (``<think>...</think>``) unless the template
variable ``enable_thinking`` is false. ALCE's answer budget (``max_tokens=300``) was set for
models that answer directly, so a thinking model usually spends it inside ``<think>`` and
leaves no answer. Decision: answers are generated with thinking **off** by default; the
tasks' ``-T thinking=true`` turns it on and adds ``thinking_tokens`` to the answer budget.
The prompt bytes are never changed (no ``/no_think`` soft switch): the switch is the
template variable, which reaches the model as follows.

- ``hf/``: the chat template is rendered in-process with the provider's ``enable_thinking``
  (Inspect's ``-M enable_thinking``); it is set on the loaded provider for every sample.
- ``vllm/``, ``sglang/``, ``openai-api/``: the server renders the template, so every request
  carries ``extra_body={"chat_template_kwargs": {"enable_thinking": ...}}``.
- Any other provider: nothing is sent. API reasoning models return their reasoning apart
  from the answer; Inspect's ``--reasoning-effort`` and ``--reasoning-tokens`` govern them.

Whatever the provider, an output that ends inside thinking has no answer: scorers report it
as nan with :data:`NO_ANSWER_THINKING` (:func:`no_answer_reason`), never as a zero.

Where the reasoning ends and the answer begins is :func:`inspect_cite.text.think.split_think`'s
rule. Some templates open ``<think>`` in the prompt (DeepSeek-R1 distills,
Qwen3-*-Thinking-2507, QwQ), so the output is ``reasoning</think>answer``. ``hf/`` renders
the template in-process: each answer output records in its metadata whether the prompt
opened ``<think>`` (:data:`THINK_OPENED_KEY`, read by :func:`split_output`), so that reasoning
cut before its ``</think>`` is no answer, and a ``</think>`` quoted in an answer stays text.
An output built by a solver from answer text records False. Elsewhere (a server renders the
template; a log produced by other tools) the rule reads the output alone.
"""

from logging import getLogger
from typing import Any, Literal

from inspect_ai.model import (
    ChatMessage,
    ContentReasoning,
    GenerateConfig,
    Model,
    ModelName,
    ModelOutput,
)

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.generation.raw_prompt import no_generation_reason
from inspect_cite.text.think import ThinkSplit, split_think

logger = getLogger(__name__)

NO_ANSWER_THINKING = "no answer: generation ended while thinking"
# Tokens added to the answer budget when thinking is on (-T thinking_tokens).
DEFAULT_THINKING_TOKENS = 4096
# Sample metadata key recording how the sample's answer was generated.
THINKING_KEY = "thinking"
# ModelOutput.metadata key: whether the output starts inside a <think> its prompt opened.
THINK_OPENED_KEY = "think_opened_by_prompt"
# Providers whose server renders the chat template and reads chat_template_kwargs.
CHAT_TEMPLATE_KWARGS_PROVIDERS = ("vllm", "sglang", "openai-api")

ThinkingControl = Literal["hf_enable_thinking", "chat_template_kwargs", "none"]

_warned: set[str] = set()


class ThinkingConflictError(ValueError):
    """The model's own settings ask for the opposite of the task's ``thinking``."""


def check_thinking_parameters(thinking: Any, thinking_tokens: Any) -> None:
    """Refuse ``-T thinking``/``-T thinking_tokens`` values of the wrong kind, naming the flag."""
    if not isinstance(thinking, bool):
        raise ArgumentError(f"-T thinking must be true or false, got {thinking!r}")
    if isinstance(thinking_tokens, bool) or not isinstance(thinking_tokens, int):
        raise ArgumentError(f"-T thinking_tokens must be an integer, got {thinking_tokens!r}")
    if thinking_tokens < 1:
        raise ArgumentError(f"-T thinking_tokens must be at least 1, got {thinking_tokens}")


def thinking_generate_config(
    config: GenerateConfig, thinking: bool, thinking_tokens: int
) -> GenerateConfig:
    """A task's generate config: with thinking on, ``thinking_tokens`` more for the answer.

    Args:
        config: The task's config (its ``max_tokens`` is the answer budget).
        thinking: Whether answers are generated with thinking on.
        thinking_tokens: Tokens added to ``max_tokens`` when thinking is on.

    """
    check_thinking_parameters(thinking, thinking_tokens)
    if not thinking or config.max_tokens is None:
        return config
    return config.merge(GenerateConfig(max_tokens=config.max_tokens + thinking_tokens))


def thinking_control(model: Model) -> ThinkingControl:
    """How the thinking switch reaches ``model`` (see the module docstring)."""
    provider = ModelName(str(model)).api
    if provider == "hf":
        return "hf_enable_thinking" if hasattr(model.api, "enable_thinking") else "none"
    if provider in CHAT_TEMPLATE_KWARGS_PROVIDERS:
        return "chat_template_kwargs"
    return "none"


def effective_config(model: Model) -> GenerateConfig:
    """The generate config in force for ``model`` in this sample (model, task and eval level)."""
    try:
        # Private: Inspect has no public accessor for the task/eval-level GenerateConfig inside
        # a solver; solvers that generate outside ``generate()`` or extend its extra_body must
        # honour it (temperature, top_p, max_tokens, the user's --extra-body).
        from inspect_ai.model._generate_config import active_generate_config

        return model.config.merge(active_generate_config())
    except ImportError:
        return model.config


def with_chat_template_kwargs(extra_body: dict[str, Any] | None, thinking: bool) -> dict[str, Any]:
    """``extra_body`` with ``chat_template_kwargs.enable_thinking`` set, keeping what was there."""
    body = dict(extra_body or {})
    kwargs = dict(body.get("chat_template_kwargs") or {})
    kwargs["enable_thinking"] = thinking
    body["chat_template_kwargs"] = kwargs
    return body


def _conflict(flag: str, asked: Any, thinking: bool) -> ThinkingConflictError:
    return ThinkingConflictError(
        f"{flag}={str(asked).lower()} contradicts -T thinking={str(thinking).lower()} (the task "
        f"switches thinking itself): use -T thinking={str(not thinking).lower()} instead of {flag}"
    )


def _hf_template(api: Any) -> str:
    template = getattr(api, "chat_template", None)
    if not isinstance(template, str):
        template = getattr(getattr(api, "tokenizer", None), "chat_template", None)
    return template if isinstance(template, str) else ""


def thinking_conflict(
    model: Model, thinking: bool, config: GenerateConfig
) -> ThinkingConflictError | None:
    """Whether ``model``'s own settings ask for the opposite of the task's ``thinking``.

    Args:
        model: The model under test.
        thinking: The task's ``-T thinking``.
        config: The generate config in force (its ``extra_body``: ``--extra-body``).

    Returns:
        The error naming the flag that contradicts, or None.

    """
    control = thinking_control(model)
    if control == "hf_enable_thinking":
        asked = model.model_args.get("enable_thinking")
        flag = "-M enable_thinking"
    elif control == "chat_template_kwargs":
        kwargs = (config.extra_body or {}).get("chat_template_kwargs") or {}
        asked = kwargs.get("enable_thinking") if isinstance(kwargs, dict) else None
        flag = "--extra-body chat_template_kwargs.enable_thinking"
    else:
        return None
    if asked is not None and bool(asked) != thinking:
        return _conflict(flag, asked, thinking)
    return None


def apply_thinking(model: Model, thinking: bool) -> dict[str, Any]:
    """Switch ``model``'s chat-template thinking on or off; return what was done, for the log.

    Raises:
        ThinkingConflictError: ``-M enable_thinking`` or ``--extra-body``'s
            ``chat_template_kwargs.enable_thinking`` asks for the opposite of ``thinking``.

    """
    control = thinking_control(model)
    record: dict[str, Any] = {"enabled": thinking, "control": control}
    conflict = thinking_conflict(model, thinking, effective_config(model))
    if conflict is not None:
        raise conflict
    if control == "hf_enable_thinking":
        # No public way: the hf provider reads enable_thinking only as a model arg at load time
        # and no GenerateConfig field reaches its chat template. Setting the loaded provider's
        # attribute (the same one -M enable_thinking sets) avoids loading the weights twice.
        # It is per model, not per request: tasks sharing one loaded model share the setting.
        model.api.enable_thinking = thinking  # type: ignore[attr-defined]
        record["template_reads_enable_thinking"] = "enable_thinking" in _hf_template(model.api)
    elif control == "chat_template_kwargs":
        record["template_reads_enable_thinking"] = None  # rendered by the server
    elif ModelName(str(model)).api == "hf" and str(model) not in _warned:
        _warned.add(str(model))
        logger.warning(
            f"{model}: this Inspect's hf provider has no enable_thinking attribute; answers are "
            "generated with the chat template's default (pass -M enable_thinking=false)"
        )
    return record


def renders_template_in_process(model: Model) -> bool:
    """Whether ``model``'s provider renders the chat template here (``hf/``: its ``hf_chat``)."""
    return ModelName(str(model)).api == "hf" and callable(getattr(model.api, "hf_chat", None))


def template_opens_think(model: Model, messages: list[ChatMessage]) -> bool | None:
    """Whether ``model``'s generation prompt for ``messages`` ends inside an open ``<think>``.

    Known only where the template is rendered in-process (:func:`renders_template_in_process`),
    rendered as the provider renders it before generating; None elsewhere.
    """
    if not renders_template_in_process(model):
        return None
    prompt = model.api.hf_chat(messages, [])  # type: ignore[attr-defined]
    return isinstance(prompt, str) and prompt.rstrip().endswith("<think>")


def mark_think_opened(output: ModelOutput, opened: bool) -> None:
    """Record in ``output.metadata`` whether its text starts inside a prompt-opened ``<think>``."""
    output.metadata = {**(output.metadata or {}), THINK_OPENED_KEY: opened}


def think_opened_by_prompt(output: ModelOutput | None) -> bool | None:
    """What ``output`` records under :data:`THINK_OPENED_KEY` (None: not recorded)."""
    value = (output.metadata or {}).get(THINK_OPENED_KEY) if output is not None else None
    return value if isinstance(value, bool) else None


def split_output(output: ModelOutput | None) -> ThinkSplit:
    """``output``'s text split into reasoning and answer.

    As :func:`inspect_cite.text.think.split_think` splits it.
    """
    text = output.completion if output is not None else ""
    return split_think(text or "", prompt_opened=think_opened_by_prompt(output))


def set_answer_text(output: ModelOutput, text: str) -> None:
    """Make ``text``, an answer a solver rewrote (no reasoning), ``output``'s text."""
    if not output.empty:
        output.message.text = text
    output.completion = text
    mark_think_opened(output, False)


def _has_reasoning(output: ModelOutput) -> bool:
    content = output.message.content if output.choices else None
    return isinstance(content, list) and any(isinstance(c, ContentReasoning) for c in content)


def ended_while_thinking(output: ModelOutput | None) -> bool:
    """Whether generation stopped inside the model's thinking, leaving no answer.

    True for text whose reasoning never closes (:func:`split_output`: templates that think
    inline, e.g. Qwen3 through ``hf/``, or that open ``<think>`` in the prompt), and for an
    output whose reasoning came back apart from the text (a server's reasoning parser, API
    reasoning models) with no answer text and the token limit reached.
    """
    if output is None or not output.choices:
        return False
    split = split_output(output)
    if split.unfinished:
        return True
    return (
        output.stop_reason == "max_tokens" and not split.answer.strip() and _has_reasoning(output)
    )


def no_answer_reason(output: ModelOutput | None) -> str | None:
    """Why a sample's output holds no answer to score, or None when it holds one.

    No answer: generation ended inside thinking, or was not attempted (a raw prompt that
    leaves no tokens under ``max_length``, :mod:`inspect_cite.generation.raw_prompt`).
    """
    not_generated = no_generation_reason(output)
    if not_generated is not None:
        return not_generated
    return NO_ANSWER_THINKING if ended_while_thinking(output) else None
