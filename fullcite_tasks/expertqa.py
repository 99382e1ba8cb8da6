"""FullCite on ExpertQA: expert questions from 32 fields, answered from evidence passages."""

from inspect_ai import Task, task

from fullcite_tasks.data.expertqa import DEFAULT_SYSTEM, ExpertqaSystem
from fullcite_tasks.task import DocOrder, Strategy, fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL


@task
@accept_cli_values("-T")
def expertqa(  # noqa: D417 (the shared options are documented once, in fullcite_task)
    dataset_path: str | None = None,
    system: ExpertqaSystem = DEFAULT_SYSTEM,
    spans_path: str | None = None,
    ndoc: int = 5,
    doc_order: DocOrder = "retrieval",
    seed: int = 42,
    strategy: Strategy = "prompt",
    similarity_model: str | None = DEFAULT_SIMILARITY_MODEL,
    judge: bool = False,
    attribution: bool = False,
    nli: str = "true",
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
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

    The options every FullCite task shares (``ndoc``, ``doc_order``, ``seed``, ``strategy``,
    ``similarity_model``, ``judge``, ``attribution``, ``nli``, ``thinking``,
    ``thinking_tokens``) are documented once, in :func:`fullcite_tasks.task.fullcite_task`.

    Args:
        dataset_path: A local ExpertQA JSONL file instead of the pinned download.
        system: Keep questions answered by this system (its evidence passages are the
            documents): ``rr_gs_gpt4`` (retrieve-and-read over Google results, default),
            ``rr_sphere_gpt4``, ``post_hoc_gs_gpt4``, ``post_hoc_sphere_gpt4``, or ``any``.
        spans_path: Gold spans, JSON Lines of ``{"sample_id", "doc_id", "span"}`` (sample
            ids are line numbers of the data file, from 0).

    """
    # Every parameter goes to the builder by keyword, as given.
    return fullcite_task(source="expertqa", **locals())
