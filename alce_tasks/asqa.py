"""ALCE ASQA: long-form answers to ambiguous factoid questions, cited with [n]."""

from typing import Any

from inspect_ai import Task, task

from alce_tasks.options import AlceOptions
from alce_tasks.task import alce_task
from inspect_cite.benchmarks.alce import WikipediaRetriever, other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(AlceOptions, omit=other_options("asqa"))
def asqa(retriever: WikipediaRetriever = "gtr", **options: Any) -> Task:
    """ALCE ASQA with ALCE's prompts, data and scoring.

    Example::

        inspect eval alce_tasks/asqa --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

    Args:
        retriever: Which retrieval results to read: `gtr` (GTR-large, the paper's) or `dpr`.
        **options: The options every ALCE task shares, ASQA's own ``qa`` and ``mauve``
            (shared with ELI5); defined and documented at :class:`alce_tasks.options.AlceOptions`.

    """
    return alce_task(dataset="asqa", retriever=retriever, **options)
