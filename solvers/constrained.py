"""FullCite constrained decoding: the citation grammar is enforced while the model generates.

Backends, chosen from the model's provider (``backend="auto"``):

- ``hf``: Inspect's ``hf/`` provider. The solver generates on the provider's loaded model and
  tokenizer with a logits processor that masks tokens the grammar forbids
  (:mod:`solvers.constrained_hf`), applying the chat template as the provider does, and
  appends a normal ``ModelOutput`` (state.output, an assistant message, a model event).
- ``extra_body``: ``vllm/`` and ``openai-api/`` (OpenAI-compatible servers). The grammar is sent
  as ``extra_body={"structured_outputs": {"grammar": <lark>}}`` (vLLM >= 0.12 with the guidance
  backend). A server that ignores it answers unconstrained; validation catches that.
- ``unconstrained``: any other provider. The model generates freely; the answer is validated
  and retried. The sample's metadata says decoding was unconstrained and a warning is logged
  once per run; ``strict=True`` makes this an error instead.

Every attempt is validated (:func:`validate_fullcite` / :func:`validate_alce`). An invalid
answer is retried up to ``retries`` times at increasing temperature, each retry replacing the
previous attempt's assistant message. ``state.metadata["constrained"]`` records the format,
backend, whether decoding was constrained, and each attempt's temperature and problems.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from logging import getLogger
from typing import Any, Literal, cast, get_args

import anyio
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Model,
    ModelName,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE, AlceDatasetName
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations import parse_citations
from inspect_cite.citations.alce import (
    ids_problem,
    last_marker_end,
    marker_problems,
    markers,
    strip_markers,
)
from inspect_cite.evidence.documents import Document, doc_texts, get_docs
from inspect_cite.evidence.record import EvidenceFormat, record_evidence
from inspect_cite.generation.structured_outputs import forwards_extra_body, with_structured_outputs
from inspect_cite.generation.thinking import (
    THINK_OPENED_KEY,
    effective_config,
    set_answer_text,
    split_output,
)
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to
from inspect_cite.text.sentences import sent_tokenize
from inspect_cite.text.verbatim import find_verbatim
from solvers.alce_prompting import check_vanilla_prompts, use_alce_prompt, vanilla_prompts
from solvers.grammar import AnswerLimits, alce_grammar, fullcite_grammar
from solvers.prompted import (
    FULLCITE_DOCUMENT,
    FULLCITE_PROMPT,
    check_templates,
    set_fullcite_prompt,
)
from solvers.thinking import thinking_generate

logger = getLogger(__name__)

AnswerFormat = Literal["auto", "fullcite", "alce"]
Backend = Literal["auto", "hf", "extra_body", "unconstrained"]

# ALCE samples carry metadata["dataset"] naming one of these.
ALCE_DATASETS = get_args(AlceDatasetName)
# Temperature the first retry starts from when none is configured (the providers' default).
DEFAULT_BASE_TEMPERATURE = 1.0

_warned_unconstrained: set[str] = set()


class ConstrainedDecodingError(RuntimeError):
    """Constrained decoding was required (``strict=True``) but the provider cannot do it."""


def answer_format(metadata: dict[str, Any] | None, format: AnswerFormat = "auto") -> EvidenceFormat:
    """``"alce"`` for ALCE samples (``metadata["dataset"]`` asqa/qampari/eli5) under ``auto``."""
    if format != "auto":
        if format not in ("fullcite", "alce"):
            raise ArgumentError(f"format must be auto, fullcite or alce, got {format!r}")
        return cast(EvidenceFormat, format)
    dataset = (metadata or {}).get("dataset")
    return "alce" if isinstance(dataset, str) and dataset.lower() in ALCE_DATASETS else "fullcite"


def detect_backend(model: Model) -> str:
    """The constrained-decoding backend for a model: ``hf``, ``extra_body`` or ``unconstrained``."""
    provider = ModelName(str(model)).api
    if provider == "hf" and hasattr(model.api, "model") and hasattr(model.api, "tokenizer"):
        return "hf"
    if forwards_extra_body(model):
        return "extra_body"
    return "unconstrained"


def validate_fullcite(text: str, docs: Sequence[Document]) -> list[str]:
    """Why ``text`` is not a complete, valid FullCite answer ([] when it is).

    Valid: it parses without problems, has at least one citation, every sentence ends with
    citations (no uncited sentence), every doc id is a context document, and every snippet is a
    non-empty verbatim substring of the document it cites (up to Unicode canonical equivalence,
    :func:`inspect_cite.text.verbatim.find_verbatim`).
    """
    texts = doc_texts(docs)
    parsed = parse_citations(text, doc_ids=texts)
    reasons = [f"{p.kind}: {p.message}" for p in parsed.problems]
    if not parsed.citations:
        reasons.append("no citation")
    elif parsed.uncited:
        # As the grammar: every sentence ends with its citations.
        reasons.append(f"a sentence without citation: {parsed.uncited[0][:60]!r}")
    for c in parsed.citations:
        if c.doc_id in texts and c.snippet and find_verbatim(c.snippet, texts[c.doc_id]) is None:
            reasons.append(f"snippet is not verbatim in document {c.doc_id}: {c.snippet[:60]!r}")
    return reasons


# A statement with content: a letter or digit besides its markers.
_WORD = re.compile(r"\w")


def validate_alce(text: str, doc_ids: Sequence[str]) -> list[str]:
    """Why ``text`` is not a valid ALCE-format answer ([] when it is).

    Valid: at least one marker, each ``[1]``..``[n]`` for the n shown documents (ids ``"1"``..
    ``"n"``), no other brackets, every marker follows a statement
    (:func:`inspect_cite.citations.alce.marker_problems`), and every statement (a sentence, as
    eval.py splits the answer) holds a marker.

    Raises:
        ValueError: The ids are not the positions ``"1"``..``"n"`` that markers cite.

    """
    problem = ids_problem(doc_ids)
    if problem is not None:
        raise ValueError(problem)
    reasons = marker_problems(text, len(doc_ids))
    if "no citation" not in reasons:
        uncited = [
            sentence
            for sentence in sent_tokenize(text)
            if _WORD.search(strip_markers(sentence))
            and not any(marker.closed for marker in markers(sentence))
        ]
        if uncited:
            reasons.append(f"a statement without citation: {uncited[0][:60]!r}")
    return reasons


def trim_to_last_citation(answer: str, fmt: str) -> str:
    """``answer`` cut just after its last complete citation ("" when it has none)."""
    if fmt == "alce":
        return answer[: last_marker_end(answer)]
    parsed = parse_citations(answer)
    broken = {(p.start, p.end) for p in parsed.problems if p.kind in ("unbalanced", "nested")}
    complete = [c for c in parsed.citations if (c.start, c.end) not in broken]
    return answer[: complete[-1].end] if complete else ""


def claim_chars_for_budget(max_claim_chars: int, max_tokens: int | None) -> int:
    """The claim length bound in the grammar.

    ``max_claim_chars``, capped at one character per token of the ``max_tokens`` budget (at
    least 16): a token carries a few characters, so a claim then takes a fraction of the
    budget and its citation (markup, id, snippet) still fits.
    """
    if max_tokens is None or max_tokens <= 0:
        return max_claim_chars
    return min(max_claim_chars, max(16, max_tokens))


def _max_tokens(model: Model, config: GenerateConfig) -> int | None:
    if config.max_tokens is not None:
        return config.max_tokens
    try:
        return model.api.max_tokens()
    except Exception:  # a provider without a default: no cap
        return None


@solver
@accept_cli_values("-S")
# The answer limits are the grammar's (AnswerLimits), in the order the signature always had.
@forwards_to(
    AnswerLimits,
    order="format strict retries temperature_step backend max_claims max_claim_chars "
    "max_citations trim_truncated template document_template system_message thinking "
    "prompt_file",
)
def constrained_citations(
    format: AnswerFormat = "auto",
    strict: bool = False,
    retries: int = 3,
    temperature_step: float = 0.3,
    backend: Backend = "auto",
    trim_truncated: bool = True,
    template: str = FULLCITE_PROMPT,
    document_template: str = FULLCITE_DOCUMENT,
    system_message: str | None = None,
    thinking: bool = False,
    prompt_file: str | None = None,
    **limits: Any,
) -> Solver:
    """FullCite constrained decoding with validation and retries.

    FullCite format: the prompt is the FullCite prompt (as ``prompted_citations``) and the
    grammar allows claims each followed by ``{doc_id: <id>, snippet: <verbatim words of that
    document>}``. ALCE format (ALCE samples under ``format="auto"``): the sample's own ALCE
    prompt is kept (a sample of one's own task gets VANILLA's, as ``alce_vanilla`` builds it)
    and the grammar allows statements each followed by ``[1]``..``[ndoc]``.

    Args:
        format: ``auto`` (ALCE for ALCE samples, else FullCite), ``fullcite`` or ``alce``.
        strict: Fail instead of generating unconstrained when the provider cannot enforce the
            grammar (``-S strict=true``).
        retries: Retries after an invalid answer (the paper: 3).
        temperature_step: Each retry raises the temperature by this much over the configured
            one (1.0 when none is configured). Retries sample even where the first attempt
            decoded greedily, since a greedy retry would repeat the failure.
        backend: ``auto`` (from the provider), or force ``hf``, ``extra_body`` or
            ``unconstrained``.
        trim_truncated: When generation stops at ``max_tokens``, cut the answer after its
            last complete citation (under a grammar, everything up to there is a complete
            answer) before validating; the attempt records ``trimmed``.
        template: FullCite prompt, with ``{documents}`` and ``{question}`` fields.
        document_template: One document, with ``{number}``, ``{id}``, ``{title}``, ``{text}``.
        system_message: A system message to add when the sample has none (ALCE format:
            ALCE's system message when this is None).
        thinking: Generate with the chat template's thinking on (off by default). A grammar
            applied from the first token leaves no room for ``<think>``: the model answers
            directly unless the server applies the grammar after reasoning (vLLM's
            ``--reasoning-parser``).
        prompt_file: ALCE format: an ALCE-format prompt file for the samples of one's own
            task, instead of the official file of their dataset (with ``format="alce"``,
            checked when the solver is built).
        **limits: ``max_claims``, ``max_claim_chars``, ``max_citations``: the grammar's
            :class:`solvers.grammar.AnswerLimits` (listed below); ``max_claim_chars`` is
            capped at one per token of ``max_tokens`` so that a claim and its citation fit in
            the budget.

    """
    answer_format(None, format)  # reject a bad value now, not per sample
    if backend not in ("auto", "hf", "extra_body", "unconstrained"):
        raise ArgumentError(
            f"backend must be auto, hf, extra_body or unconstrained, got {backend!r}"
        )
    if retries < 0:
        raise ArgumentError(f"retries must be >= 0, got {retries}")
    check_templates(template, document_template)
    answer_limits = AnswerLimits(**limits)

    alce_prompts = vanilla_prompts(system_message or ALCE_SYSTEM_MESSAGE, prompt_file=prompt_file)
    if format == "alce" or prompt_file is not None:
        check_vanilla_prompts(alce_prompts)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        fmt = answer_format(state.metadata, format)
        if fmt == "alce":
            # Before the documents are read: a sample of one's own task gets them numbered.
            use_alce_prompt(state, alce_prompts)
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        record_evidence(state.metadata, format=fmt, via="prompt")
        model = get_model()
        chosen = detect_backend(model) if backend == "auto" else backend
        if chosen == "unconstrained":
            _refuse_or_warn(model, strict)
        config = effective_config(model)
        claim_chars = claim_chars_for_budget(
            answer_limits.max_claim_chars, _max_tokens(model, config)
        )
        sample_limits = replace(answer_limits, max_claim_chars=claim_chars)
        if fmt == "fullcite":
            set_fullcite_prompt(state, template, document_template, system_message)
            grammar = fullcite_grammar(docs, limits=sample_limits)
        else:
            ids = [d["id"] for d in docs]
            grammar = alce_grammar(ids, limits=sample_limits)

        base = config.temperature if config.temperature is not None else DEFAULT_BASE_TEMPERATURE
        attempts: list[dict[str, Any]] = []
        for attempt in range(retries + 1):
            temperature = None if attempt == 0 else base + temperature_step * attempt
            if attempt > 0 and state.messages and state.messages[-1].role == "assistant":
                state.messages.pop()  # the invalid previous attempt
            if chosen == "hf":
                output = await _hf_generate(model, state.messages, grammar, config, temperature)
                state.output = output
                state.messages.append(output.message)
            else:
                kwargs: dict[str, Any] = {}
                if temperature is not None:
                    kwargs["temperature"] = temperature
                if chosen == "extra_body":
                    kwargs["extra_body"] = with_structured_outputs(
                        config.extra_body, grammar=grammar
                    )
                state = await generate(state, **kwargs)
            answer = split_output(state.output).answer.strip()
            trimmed = False
            if (
                trim_truncated
                and not state.output.empty
                and state.output.stop_reason == "max_tokens"
            ):
                cut = trim_to_last_citation(answer, fmt)
                if cut and cut != answer:
                    answer, trimmed = cut, True
                    set_answer_text(state.output, answer)
            reasons = (
                validate_fullcite(answer, docs)
                if fmt == "fullcite"
                else validate_alce(answer, [d["id"] for d in docs])
            )
            attempts.append(
                {
                    "temperature": temperature if temperature is not None else config.temperature,
                    "valid": not reasons,
                    "problems": reasons,
                    "stop_reason": state.output.stop_reason if not state.output.empty else None,
                    "trimmed": trimmed,
                }
            )
            if not reasons:
                break
        state.metadata["constrained"] = {
            "format": fmt,
            "backend": chosen,
            "decoding": "unconstrained" if chosen == "unconstrained" else "constrained",
            "valid": attempts[-1]["valid"],
            "attempts": attempts,
            "grammar_chars": len(grammar),
            "max_claim_chars": claim_chars,
        }
        return state

    return solve


def _refuse_or_warn(model: Model, strict: bool) -> None:
    name = str(model)
    if strict:
        raise ConstrainedDecodingError(
            f"constrained_citations: provider of {name} cannot enforce a grammar (supported: "
            "hf/, vllm/, openai-api/); run with strict=false to generate unconstrained with "
            "validation and retries"
        )
    if name not in _warned_unconstrained:
        _warned_unconstrained.add(name)
        logger.warning(
            f"constrained_citations: {name} cannot enforce the citation grammar; generating "
            "unconstrained, validating and retrying (recorded as decoding=unconstrained in "
            "sample metadata; -S strict=true makes this an error)"
        )


def _hf_chat(api: Any, messages: list[ChatMessage]) -> str:
    hf_chat = getattr(api, "hf_chat", None)
    if callable(hf_chat):
        # The provider's own chat formatting (template, thinking flag, message conversion).
        return str(hf_chat(messages, []))
    return str(
        api.tokenizer.apply_chat_template(
            [{"role": m.role, "content": m.text} for m in messages],
            add_generation_prompt=True,
            tokenize=False,
        )
    )


async def _hf_generate(
    model: Model,
    messages: list[ChatMessage],
    grammar: str,
    config: GenerateConfig,
    temperature: float | None,
) -> ModelOutput:
    from solvers.constrained_hf import generate_constrained

    api: Any = model.api
    prompt = _hf_chat(api, messages)
    max_tokens = config.max_tokens or api.max_tokens() or 1024
    do_sample = bool(getattr(api, "do_sample", True)) if temperature is None else True
    used_temperature = temperature if temperature is not None else config.temperature
    result = await anyio.to_thread.run_sync(
        lambda: generate_constrained(
            api.model,
            api.tokenizer,
            prompt,
            grammar,
            max_new_tokens=max_tokens,
            do_sample=do_sample,
            temperature=used_temperature,
            top_p=config.top_p,
            top_k=config.top_k,
            tokenizer_call_args=getattr(api, "tokenizer_call_args", None) or {},
        )
    )
    output = ModelOutput(
        model=api.model_name,
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(
                    content=result.text, model=api.model_name, source="generate"
                ),
                stop_reason="stop" if result.stop_reason == "stop" else "max_tokens",
            )
        ],
        usage=ModelUsage(
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            total_tokens=result.input_tokens + result.output_tokens,
        ),
        time=result.time,
        metadata={
            "grammar_accepting": result.accepting,
            "grammar_error": result.error or None,
            # The grammar holds from the first token: the text is all answer, even where the
            # template opened <think> in the prompt.
            THINK_OPENED_KEY: False,
        },
    )
    _record_model_event(
        model,
        messages,
        config.merge(GenerateConfig(temperature=used_temperature, max_tokens=max_tokens)),
        output,
    )
    return output


def _record_model_event(
    model: Model, messages: list[ChatMessage], config: GenerateConfig, output: ModelOutput
) -> None:
    """Show the constrained generation in the transcript like any model call."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript

    event = ModelEvent(
        model=str(model),
        input=list(messages),
        tools=[],
        tool_choice="none",
        config=config,
        output=output,
    )
    try:
        # Private: Transcript has no public method to add a ModelEvent for a generation made
        # outside Model.generate; fall back to a public info event if that ever changes.
        transcript()._event(event)
    except AttributeError:
        transcript().info(
            {"constrained_generation": output.completion, "model": str(model)},
            source="constrained_citations",
        )
