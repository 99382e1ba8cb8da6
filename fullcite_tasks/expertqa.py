"""FullCite on ExpertQA: expert questions from 32 fields, answered from evidence passages."""

from typing import Any

from inspect_ai import Task, task

from fullcite_tasks.options import FullciteOptions
from fullcite_tasks.task import fullcite_task
from inspect_cite.benchmarks.fullcite import other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(FullciteOptions, omit=other_options("expertqa"))
def expertqa(dataset_path: str | None = None, **options: Any) -> Task:
    r"""FullCite on ExpertQA: cite an evidence passage and a verbatim snippet after every claim.

    Each ExpertQA question was answered by one system; the context is the evidence passages
    of that answer (up to ``ndoc``, by their bracket number, which is the doc id). The data is
    ``cmalaviya/expertqa`` (config main) at a pinned revision, verified and cached. Gold spans
    come from ``spans_path``; without it, every sample's documents are annotated first by the
    ``annotator`` model role and cached (see ``fullcite_tasks/annotate_spans``).

    Example::

        inspect eval fullcite_tasks/expertqa --model hf/google/gemma-3-12b-it \\
            -T spans_path=expertqa_spans.jsonl -T strategy=posthoc

    Args:
        dataset_path: A local ExpertQA JSONL file instead of the pinned download.
        **options: ``system``, ``spans_path`` and the options every FullCite task shares,
            defined and documented at :class:`fullcite_tasks.options.FullciteOptions` (listed
            below).

    """
    return fullcite_task(source="expertqa", dataset_path=dataset_path, **options)
