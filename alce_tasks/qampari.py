"""ALCE QAMPARI: comma-separated lists of entities, each cited with [n]."""

from typing import Any

from inspect_ai import Task, task

from alce_tasks.options import AlceOptions
from alce_tasks.task import alce_task
from inspect_cite.benchmarks.alce import WikipediaRetriever, other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
# QAMPARI is scored on its entity lists: eval.py computes neither QA accuracy nor MAUVE for it.
@forwards_to(AlceOptions, omit=other_options("qampari"))
def qampari(retriever: WikipediaRetriever = "gtr", **options: Any) -> Task:
    """ALCE QAMPARI with ALCE's prompts, data and scoring.

    Example::

        inspect eval alce_tasks/qampari --model hf/Qwen/Qwen3-8B -T ndoc=3 -T prompt=light_inst

    Args:
        retriever: Which retrieval results to read: `gtr` (GTR-large, the paper's) or `dpr`.
        **options: The options every ALCE task shares (no ``qa`` or ``mauve``); defined and
            documented at :class:`alce_tasks.options.AlceOptions`.

    """
    return alce_task(dataset="qampari", retriever=retriever, **options)
