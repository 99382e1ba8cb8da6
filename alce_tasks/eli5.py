"""ALCE ELI5: explanatory answers to Reddit questions, cited with [n]."""

from typing import Any

from inspect_ai import Task, task

from alce_tasks.options import AlceOptions
from alce_tasks.task import alce_task
from inspect_cite.benchmarks.alce import SphereRetriever, other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
# eval.py computes QA accuracy only for ASQA's disambiguated questions.
@forwards_to(AlceOptions, omit=other_options("eli5"))
def eli5(retriever: SphereRetriever = "bm25", **options: Any) -> Task:
    """ALCE ELI5 with ALCE's prompts, data and scoring; adds claim coverage by NLI.

    Example::

        inspect eval alce_tasks/eli5 --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

    Args:
        retriever: Which retrieval results to read: `bm25` over Sphere (the only one ALCE ships).
        **options: The options every ALCE task shares, and ``mauve`` (no ``qa``); defined and
            documented at :class:`alce_tasks.options.AlceOptions`.

    """
    return alce_task(dataset="eli5", retriever=retriever, **options)
