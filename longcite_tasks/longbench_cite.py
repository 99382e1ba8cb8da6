"""LongBench-Cite: long-document QA in English and Chinese, citing numbered sentence chunks."""

from typing import Any

from inspect_ai import Task, task

from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to
from longcite_tasks.options import LongciteOptions
from longcite_tasks.task import longcite_task


@task
@accept_cli_values("-T")
@forwards_to(LongciteOptions)
def longbench_cite(dataset_path: str | None = None, **options: Any) -> Task:
    r"""LongBench-Cite (Zhang et al., 2024) as LongCite's one-shot prompt and scripts run it.

    Each question's document is cut into sentence chunks ``<C0>``, ``<C1>``, ... as LongCite
    cuts it; the model answers in ``<statement>...<cite>[a-b]</cite></statement>`` blocks,
    scored for citation recall, precision, F1 and length and for correctness by the
    ``grader`` model role (LongCite used GPT-4o), as LongCite's ``auto_scorer.py`` and
    ``eval_correct.py`` score them (docs/longcite.md).

    Example::

        inspect eval longcite_tasks/longbench_cite --model openai/gpt-4o \
            --model-role grader=openai/gpt-4o -T datasets=hotpotqa,dureader

    Args:
        dataset_path: A local copy of LongBench-Cite's data (``LongBench-Cite.json``)
            instead of the pinned download.
        **options: ``datasets``, ``prompt_file``, ``correctness``, ``strict``, ``tokenizer``,
            ``trust_remote_code``, ``thinking``, ``thinking_tokens``: defined and documented at
            :class:`longcite_tasks.options.LongciteOptions` (listed below).

    """
    return longcite_task(dataset_path=dataset_path, **options)
