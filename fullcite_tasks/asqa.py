"""FullCite on ASQA: ambiguous factoid questions answered from Wikipedia passages."""

from inspect_ai import Task, task

from fullcite_tasks.task import DocOrder, Strategy, fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL


@task
@accept_cli_values("-T")
def asqa(  # noqa: D417 (the shared options are documented once, in fullcite_task)
    dataset_path: str | None = None,
    spans_path: str | None = None,
    ndoc: int = 5,
    doc_order: DocOrder = "retrieval",
    seed: int = 42,
    strategy: Strategy = "prompt",
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

    The options every FullCite task shares (``ndoc``, ``doc_order``, ``seed``, ``strategy``,
    ``similarity_model``, ``judge``, ``attribution``, ``nli``, ``thinking``,
    ``thinking_tokens``) are documented once, in :func:`fullcite_tasks.task.fullcite_task`.

    Args:
        dataset_path: An ALCE-format ASQA JSON file instead of the pinned download.
        spans_path: Gold spans, JSON Lines of ``{"sample_id", "doc_id", "span"}``.

    """
    # Every parameter goes to the builder by keyword, as given.
    return fullcite_task(source="asqa", **locals())
