"""FullCite on BioASQ task b: biomedical questions answered from PubMed abstracts."""

from inspect_ai import Task, task

from fullcite_tasks.task import DocOrder, Strategy, fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL


@task
@accept_cli_values("-T")
def bioasq(  # noqa: D417 (the shared options are documented once, in fullcite_task)
    dataset_path: str | None = None,
    abstracts_path: str | None = None,
    ndoc: int = 5,
    doc_order: DocOrder = "retrieval",
    seed: int = 42,
    strategy: Strategy = "prompt",
    question_types: str | list[str] | None = None,
    similarity_model: str | None = DEFAULT_SIMILARITY_MODEL,
    judge: bool = False,
    attribution: bool = False,
    nli: str = "true",
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    r"""FullCite on BioASQ: cite a PMID and a verbatim abstract snippet after every claim.

    The context is the title and abstract of up to ``ndoc`` of the question's PubMed
    documents (in BioASQ's order, skipping ones without an abstract); doc ids are PMIDs. Gold
    spans are the question's BioASQ snippets located in those abstracts. BioASQ needs a free
    registration (participants-area.bioasq.org); abstracts are fetched from NCBI E-utilities
    (cached; set ``NCBI_API_KEY`` for 10 requests/s) unless ``abstracts_path`` is given.

    Example::

        inspect eval fullcite_tasks/bioasq --model hf/Qwen/Qwen3-8B \\
            -T dataset_path=BioASQ-training13b.json -T strategy=posthoc -T question_types=yesno

    The options every FullCite task shares (``ndoc``, ``doc_order``, ``seed``, ``strategy``,
    ``similarity_model``, ``judge``, ``attribution``, ``nli``, ``thinking``,
    ``thinking_tokens``) are documented once, in :func:`fullcite_tasks.task.fullcite_task`.

    Args:
        dataset_path: A BioASQ task-b JSON file (``{"questions": [...]}``), required.
        abstracts_path: JSON file PMID -> {"title", "abstract"} to use instead of NCBI.
        question_types: Keep only these types (``yesno``, ``factoid``, ``list``, ``summary``;
            a list or comma-separated); all by default.

    """
    # Every parameter goes to the builder by keyword, as given.
    return fullcite_task(source="bioasq", **locals())
