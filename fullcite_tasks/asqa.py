"""FullCite on ASQA: ambiguous factoid questions answered from Wikipedia passages."""

from typing import Literal

from inspect_ai import Task, task

from fullcite_tasks.task import fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL


@task
@accept_cli_values("-T")
def asqa(
    dataset_path: str | None = None,
    spans_path: str | None = None,
    ndoc: int = 5,
    doc_order: Literal["retrieval", "shuffled", "reversed"] = "retrieval",
    seed: int = 42,
    strategy: Literal["prompt", "constrained", "posthoc"] = "prompt",
    similarity_model: str | None = DEFAULT_SIMILARITY_MODEL,
    judge: bool = False,
    attribution: bool = False,
    nli: str = "true",
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    r"""FullCite on ASQA: cite a Wikipedia passage and a verbatim snippet after every claim.

    Questions and the top ``ndoc`` GTR passages come from ALCE's ASQA file (pinned download,
    shared with ``alce_tasks/asqa``); doc ids are slugified Wikipedia titles. Gold spans come
    from ``spans_path``; without it, every sample's documents are annotated first by the
    ``annotator`` model role and cached (see ``fullcite_tasks/annotate_spans``).

    Example::

        inspect eval fullcite_tasks/asqa --model hf/Qwen/Qwen3-8B \\
            -T spans_path=asqa_spans.jsonl -T strategy=constrained

    Args:
        dataset_path: An ALCE-format ASQA JSON file instead of the pinned download.
        spans_path: Gold spans, JSON Lines of ``{"sample_id", "doc_id", "span"}``.
        ndoc: Number of context passages per question.
        doc_order: Order shown: ``retrieval``, ``shuffled`` (per sample, from ``seed``) or
            ``reversed``; to measure primacy bias.
        seed: Seed of the ``shuffled`` order.
        strategy: ``prompt``, ``constrained`` or ``posthoc``.
        similarity_model: sentence-transformers model for claim-snippet similarity (name or
            local path); ``null`` to skip that scorer.
        judge: Also run the LLM judge (needs ``--model-role grader=<model>``).
        attribution: Also judge whether each claim's cited snippet and document entail it
            (``claim_support``: NLI per claim).
        nli: NLI spec for ``attribution``, as ALCE's ``-T nli``: ``true`` (T5-11B, needs a
            GPU with ~23 GB), ``classifier:<dir>``, ``python:<module>:<fn>``, ... (README).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            ``enable_thinking`` templates; default off). An answer cut inside ``<think>`` is
            scored nan ("no answer").
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.

    """
    return fullcite_task(
        "asqa",
        dataset_path,
        ndoc,
        doc_order,
        seed,
        strategy,
        similarity_model,
        judge,
        attribution=attribution,
        nli=nli,
        thinking=thinking,
        thinking_tokens=thinking_tokens,
        spans_path=spans_path,
    )
