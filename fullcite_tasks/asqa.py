"""FullCite on ASQA: ambiguous factoid questions answered from Wikipedia passages."""

from typing import Any

from inspect_ai import Task, task

from fullcite_tasks.options import FullciteOptions
from fullcite_tasks.task import fullcite_task
from inspect_cite.benchmarks.fullcite import other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(FullciteOptions, omit=other_options("asqa"))
def asqa(dataset_path: str | None = None, **options: Any) -> Task:
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
        **options: ``spans_path`` and the options every FullCite task shares, defined and
            documented at :class:`fullcite_tasks.options.FullciteOptions` (listed below).

    """
    return fullcite_task(source="asqa", dataset_path=dataset_path, **options)
