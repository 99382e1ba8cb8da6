"""FullCite on BioASQ task b: biomedical questions answered from PubMed abstracts."""

from typing import Any

from inspect_ai import Task, task

from fullcite_tasks.options import FullciteOptions
from fullcite_tasks.task import fullcite_task
from inspect_cite.benchmarks.fullcite import other_options
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(FullciteOptions, omit=other_options("bioasq"))
def bioasq(dataset_path: str | None = None, **options: Any) -> Task:
    r"""FullCite on BioASQ: cite a PMID and a verbatim abstract snippet after every claim.

    The context is the title and abstract of up to ``ndoc`` of the question's PubMed
    documents (in BioASQ's order, skipping ones without an abstract); doc ids are PMIDs. Gold
    spans are the question's BioASQ snippets located in those abstracts. BioASQ needs a free
    registration (participants-area.bioasq.org); abstracts are fetched from NCBI E-utilities
    (cached; set ``NCBI_API_KEY`` for 10 requests/s) unless ``abstracts_path`` is given.

    Example::

        inspect eval fullcite_tasks/bioasq --model hf/Qwen/Qwen3-8B \\
            -T dataset_path=BioASQ-training13b.json -T strategy=posthoc -T question_types=yesno

    Args:
        dataset_path: A BioASQ task-b JSON file (``{"questions": [...]}``), required.
        **options: ``abstracts_path``, ``question_types`` and the options every FullCite task
            shares, defined and documented at :class:`fullcite_tasks.options.FullciteOptions`
            (listed below).

    """
    return fullcite_task(source="bioasq", dataset_path=dataset_path, **options)
