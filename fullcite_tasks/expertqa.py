"""FullCite on ExpertQA: expert questions from 32 fields, answered from evidence passages."""

from typing import Any

from inspect_ai import Task, task

from fullcite_tasks.data.expertqa import DEFAULT_SYSTEM, ExpertqaSystem
from fullcite_tasks.task import fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(fullcite_task)
def expertqa(
    dataset_path: str | None = None,
    system: ExpertqaSystem = DEFAULT_SYSTEM,
    spans_path: str | None = None,
    **options: Any,
) -> Task:
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
        system: Keep questions answered by this system (its evidence passages are the
            documents): ``rr_gs_gpt4`` (retrieve-and-read over Google results, default),
            ``rr_sphere_gpt4``, ``post_hoc_gs_gpt4``, ``post_hoc_sphere_gpt4``, or ``any``.
        spans_path: Gold spans, JSON Lines of ``{"sample_id", "doc_id", "span"}`` (sample
            ids are line numbers of the data file, from 0).
        **options: The options every FullCite task shares, defined and documented at
            :func:`fullcite_tasks.task.fullcite_task`.

    """
    return fullcite_task(
        "expertqa",
        dataset_path=dataset_path,
        system=system,
        spans_path=spans_path,
        **options,
    )
