"""The FullCite annotation step as a task: annotate evidence spans with the evaluated model.

See :mod:`solvers.span_annotation` for the prompt, the checks on each span and the cache.
"""

from inspect_ai import Task, task

from fullcite_tasks.data.expertqa import DEFAULT_SYSTEM, ExpertqaSystem
from fullcite_tasks.task import fullcite_records, records_dataset
from inspect_cite.benchmarks.fullcite import FullciteSource
from inspect_cite.options.cli_values import accept_cli_values
from scorers.span_agreement import span_agreement
from solvers.span_annotation import span_annotator


@task
@accept_cli_values("-T")
def annotate_spans(
    dataset: FullciteSource = "bioasq",
    dataset_path: str | None = None,
    abstracts_path: str | None = None,
    spans_path: str | None = None,
    system: ExpertqaSystem = DEFAULT_SYSTEM,
    ndoc: int = 5,
    output_path: str | None = None,
    attempts: int = 3,
) -> Task:
    r"""Annotate atomic verbatim evidence spans with the evaluated model (the FullCite step).

    On BioASQ the annotations are compared with BioASQ's gold snippets (ROUGE-L, the paper's
    check: > 90% for GPT-5.4-mini). On ASQA/ExpertQA they are compared with ``spans_path``
    when given, else only counted. The spans are cached where ``fullcite_tasks/asqa`` and
    ``fullcite_tasks/expertqa`` find them when run with ``--model-role annotator=<same
    model>``; ``output_path`` also writes them to a spans file for ``-T spans_path=``.

    Example::

        inspect eval fullcite_tasks/annotate_spans --model openai/gpt-5.4-mini \\
            -T dataset=bioasq -T dataset_path=BioASQ-training13b.json -T ndoc=5

    Args:
        dataset: ``bioasq``, ``asqa`` or ``expertqa``.
        dataset_path: Local data file (required for BioASQ, optional otherwise).
        abstracts_path: BioASQ: JSON file PMID -> {title, abstract} instead of NCBI.
        spans_path: ASQA/ExpertQA: reference spans to compare with.
        system: ExpertQA: whose answer's evidence passages are the documents.
        ndoc: Documents per question.
        output_path: Also write the spans to this JSONL file.
        attempts: Tries per document before its annotation is reported as failed.

    """
    records, info = fullcite_records(
        dataset,
        dataset_path,
        ndoc,
        abstracts_path=abstracts_path,
        spans_path=spans_path,
        system=system,
    )
    return Task(
        dataset=records_dataset(records, f"annotate_spans_{dataset}", "retrieval", 0),
        solver=span_annotator(
            info["data_key"],
            model_role=None,
            set_gold=False,
            output_path=output_path,
            attempts=attempts,
        ),
        scorer=span_agreement(),
        version=1,
        metadata=info | {"output_path": output_path},
    )
