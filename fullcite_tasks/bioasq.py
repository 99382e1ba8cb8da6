"""FullCite on BioASQ task b: biomedical questions answered from PubMed abstracts."""

from typing import Literal

from inspect_ai import Task, task

from fullcite_tasks.task import fullcite_task
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL


@task
@accept_cli_values("-T")
def bioasq(
    dataset_path: str | None = None,
    abstracts_path: str | None = None,
    ndoc: int = 5,
    doc_order: Literal["retrieval", "shuffled", "reversed"] = "retrieval",
    seed: int = 42,
    strategy: Literal["prompt", "constrained", "posthoc"] = "prompt",
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

    Args:
        dataset_path: A BioASQ task-b JSON file (``{"questions": [...]}``), required.
        abstracts_path: JSON file PMID -> {"title", "abstract"} to use instead of NCBI.
        ndoc: Number of context documents per question.
        doc_order: Order shown: ``retrieval`` (BioASQ's), ``shuffled`` (per sample, from
            ``seed``) or ``reversed``; to measure primacy bias.
        seed: Seed of the ``shuffled`` order.
        strategy: ``prompt`` (instructions only), ``constrained`` (grammar-constrained
            decoding) or ``posthoc`` (snippets aligned to the documents afterwards).
        question_types: Keep only these types (``yesno``, ``factoid``, ``list``, ``summary``;
            a list or comma-separated); all by default.
        similarity_model: sentence-transformers model for claim-snippet similarity (name or
            local path); ``null`` to skip that scorer.
        judge: Also run the LLM judge (needs ``--model-role grader=<model>``).
        attribution: Also judge whether each claim's cited snippet and document entail it
            (``claim_support``: NLI per claim).
        nli: NLI spec for ``attribution``, as ALCE's ``-T nli``: ``true`` (T5-11B, needs a
            GPU with ~23 GB), ``classifier:<dir>``, ``python:<module>:<fn>``, ... (README).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            ``enable_thinking`` templates; default off). An answer cut inside ``<think>`` is
            scored nan ("no answer").
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.

    """
    return fullcite_task(
        "bioasq",
        dataset_path,
        ndoc,
        doc_order,
        seed,
        strategy,
        similarity_model,
        judge,
        attribution=attribution,
        nli=nli,
        thinking=thinking,
        thinking_tokens=thinking_tokens,
        abstracts_path=abstracts_path,
        question_types=question_types,
    )
