"""An LLM as the NLI judge, through Inspect's model API (any provider)."""

import hashlib
import re
from typing import Any

import anyio
from inspect_ai.model import GenerateConfig, Model, ModelName

from inspect_cite.generation.structured_outputs import forwards_extra_body, with_structured_outputs
from inspect_cite.generation.thinking import template_opens_think
from inspect_cite.nli.base import NLIError, NLIResult, Pair
from inspect_cite.nli.fingerprint import HUB_LOADERS, FileDigest, llm_fingerprint
from inspect_cite.text.think import strip_think

NLI_PROMPT = """\
Premise:
{premise}

Hypothesis:
{hypothesis}

Does the premise entail the hypothesis, that is, is everything the hypothesis states supported \
by the premise alone? Answer with one word: yes or no."""

NLI_RETRY_PROMPT = "Answer with exactly one word: yes or no."

JUDGE_MAX_TOKENS = 16
"""New tokens of a judge's reply where this process renders the prompt or a server constrains
the reply: "yes" or "no" takes a few (one that must think gets :data:`JUDGE_THINKING_TOKENS`)."""

JUDGE_THINKING_TOKENS = 1024
"""New tokens of an ``hf/`` judge whose chat template opens ``<think>``: room to think, then
answer (the reply is read after its reasoning)."""

SAMPLING_PROVIDERS = ("hf", "nnterp")
"""Inspect providers that sample unless the model was loaded with ``do_sample=false``: they
reject temperature 0 (transformers), so the judge asks them for greedy decoding as top-k 1."""

_LEADING = re.compile(r"^\W*(yes|no)\b")
_ANY = re.compile(r"\b(yes|no)\b")


def parse_yes_no(reply: str) -> bool | None:
    """``True`` for yes, ``False`` for no, ``None`` when the reply says neither or both.

    Reasoning blocks and markdown emphasis are ignored; a leading yes/no wins, otherwise the
    reply must contain only one of the two words.
    """
    text = strip_think(reply).lower()
    text = re.sub(r"[*_`#>]", "", text).strip()
    m = _LEADING.match(text)
    if m:
        return m.group(1) == "yes"
    found = set(_ANY.findall(text))
    if len(found) == 1:
        return found.pop() == "yes"
    return None


def judge_config(model: Model) -> GenerateConfig:
    """The ``GenerateConfig`` of a judge's reply: greedy, in the form ``model``'s provider takes.

    Every provider but the sampling ones (:data:`SAMPLING_PROVIDERS`) takes temperature 0.
    Those sample with the model's loading-time ``do_sample`` and reject temperature 0, so
    they get top-k 1 (the most likely token, as greedy decoding picks) at temperature 1,
    which also overrides a temperature 0 the eval may set for its own model. One loaded
    with ``do_sample=false`` decodes greedily whatever is asked, and is asked nothing.
    """
    if ModelName(str(model)).api not in SAMPLING_PROVIDERS:
        return GenerateConfig(temperature=0.0)
    if getattr(model.api, "do_sample", True) is False:
        return GenerateConfig()
    return GenerateConfig(temperature=1.0, top_k=1)


def judge_max_tokens(model: Model, messages: list[Any]) -> int | None:
    """The new tokens a judge's reply may take (None: the provider's default).

    A local model (``hf/``, ``nnterp/``) generating in this process, and a server whose reply
    is constrained to yes/no (``vllm/``, ``openai-api/``), get :data:`JUDGE_MAX_TOKENS`; an
    ``hf/`` model whose chat template opens ``<think>`` gets :data:`JUDGE_THINKING_TOKENS`.
    An API model keeps its provider's default: a reasoning model spends its budget on
    reasoning first, and a cap that cuts it gives no answer at all.
    """
    if forwards_extra_body(model):
        return JUDGE_MAX_TOKENS
    if ModelName(str(model)).api not in SAMPLING_PROVIDERS:
        return None
    return JUDGE_THINKING_TOKENS if template_opens_think(model, messages) else JUDGE_MAX_TOKENS


class ModelNLI:
    """Asks an Inspect model whether the premise entails the hypothesis.

    On ``vllm/`` and ``openai-api/`` models the reply is also constrained to ``yes``/``no``
    (``structured_outputs`` choice); every reply is parsed either way. A pair takes at most
    ``max_retries + 1`` generations, each of at most :func:`judge_max_tokens` new tokens; a
    pair still unanswered then is not retried by the cache's retries (it was asked again
    already).

    Args:
        target: A model name (``provider/model``, contains "/") or a model role (e.g.
            ``grader``, bound with ``--model-role grader=...``), resolved at each call.
        max_retries: Follow-up questions after a reply that is neither yes nor no; a pair
            still unanswered then fails with ``NLIError`` (never counted as "no").
        model: A ready ``Model`` to use instead of resolving ``target`` (tests, notebooks).

    """

    def __init__(self, target: str, max_retries: int = 2, model: Any = None) -> None:
        self.target = target
        self.max_retries = max_retries
        self._model = model
        self._prompt_hash = hashlib.sha256(
            (NLI_PROMPT + NLI_RETRY_PROMPT).encode("utf-8")
        ).hexdigest()[:8]

    def model(self) -> Any:
        """The Inspect model (a role is looked up in the running eval's roles)."""
        if self._model is not None:
            return self._model
        from inspect_ai.model import get_model

        if "/" in self.target:
            return get_model(self.target)
        return get_model(role=self.target, required=True)

    @property
    def identity(self) -> str:
        """``model:<resolved model>`` plus the prompt's hash (roles resolve to models)."""
        return f"model:{self.model()}#{self._prompt_hash}"

    def fingerprint(self, digest: FileDigest) -> str:
        """What decides the resolved model's replies beyond its name (the disk cache key).

        Local weights by content, a hub id by revision, an API model by its name and base URL
        (:func:`inspect_cite.nli.fingerprint.llm_fingerprint`).
        """
        model = self.model()
        provider = ModelName(str(model)).api
        # A server a provider starts itself gets a new port each run: not part of the key.
        base_url = model.explicit_base_url if provider in HUB_LOADERS else model.api.base_url
        return llm_fingerprint(provider, model.name, model.model_args, base_url, digest)

    async def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Decide the pairs concurrently (Inspect limits connections per provider)."""
        results: list[NLIResult | Exception] = [NLIError("not run")] * len(pairs)
        model = self.model()

        async def one(i: int, pair: Pair) -> None:
            try:
                results[i] = await self._ask(model, pair)
            except NLIError as e:
                results[i] = e

        async with anyio.create_task_group() as tg:
            for i, pair in enumerate(pairs):
                tg.start_soon(one, i, pair)
        return results

    async def _ask(self, model: Any, pair: Pair) -> NLIResult:
        from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

        messages: list[Any] = [
            ChatMessageUser(content=NLI_PROMPT.format(premise=pair[0], hypothesis=pair[1]))
        ]
        config = judge_config(model)
        config.max_tokens = judge_max_tokens(model, messages)
        if forwards_extra_body(model):
            config.extra_body = with_structured_outputs(
                model.config.extra_body, choice=["yes", "no"]
            )
        replies: list[str] = []
        for attempt in range(self.max_retries + 1):
            output = await model.generate(messages, config=config)
            reply = output.completion
            replies.append(reply)
            verdict = parse_yes_no(reply)
            if verdict is not None:
                return NLIResult(verdict)
            if attempt < self.max_retries:
                messages += [
                    ChatMessageAssistant(content=reply),
                    ChatMessageUser(content=NLI_RETRY_PROMPT),
                ]
        shown = "; ".join(repr(r[:200]) for r in replies)
        # Asked again already: the cache's retries would ask the same questions again.
        raise NLIError(
            f"model:{self.target} gave no yes/no answer after {len(replies)} tries: {shown}",
            retryable=False,
        )
