"""The options every FullCite task takes, defined and documented once, checked into one object.

Each @task (``fullcite_tasks/bioasq.py``, ...) declares its ``dataset_path`` and takes the rest
from :class:`FullciteOptions` (:func:`inspect_cite.options.forwarding.forwards_to`), less the
other datasets' own options (:func:`inspect_cite.benchmarks.fullcite.other_options`).
:func:`resolve` checks what can be checked without data or models and returns the
:class:`FullciteRun` the builder reads; the data and models are checked together after it,
in one refusal.
"""

from dataclasses import asdict, dataclass
from typing import Any, Literal

from inspect_ai.model import GenerateConfig

from fullcite_tasks.data.expertqa import DEFAULT_SYSTEM, ExpertqaSystem
from fullcite_tasks.strategies import Strategy
from inspect_cite.benchmarks.fullcite import FULLCITE_SOURCES, FullciteSource
from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.run import (
    active_model_name,
    check_native_citations,
    check_sampling,
    check_thinking_switch,
)
from inspect_cite.generation.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from inspect_cite.nli.checked import nli_spec
from inspect_cite.options.task_options import TaskOptionError, check_choice, check_seed
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL
from solvers.native import NATIVE_FIX

DocOrder = Literal["retrieval", "shuffled", "reversed"]
"""The order the documents are shown in (``-T doc_order``)."""

# Snippets are verbatim copies, so FullCite answers run longer than plain ones.
FULLCITE_GENERATE_CONFIG = GenerateConfig(max_tokens=2048)


class FullciteTaskError(TaskOptionError):
    """A FullCite task was given parameters it cannot run with."""


@dataclass(frozen=True)
class FullciteOptions:
    """The FullCite tasks' options (each task offers its own dataset's and the shared ones).

    Args:
        dataset_path: A local data file instead of the pinned download (required for BioASQ).
        abstracts_path: BioASQ: a JSON file PMID -> {"title", "abstract"} to use instead of
            NCBI.
        system: ExpertQA: keep questions answered by this system (its evidence passages are
            the documents): ``rr_gs_gpt4`` (retrieve-and-read over Google results, default),
            ``rr_sphere_gpt4``, ``post_hoc_gs_gpt4``, ``post_hoc_sphere_gpt4``, or ``any``.
        spans_path: ASQA, ExpertQA: gold spans, JSON Lines of
            ``{"sample_id", "doc_id", "span"}`` (ExpertQA sample ids are line numbers of the
            data file, from 0); without it, every sample's documents are annotated first by
            the ``annotator`` model role and cached.
        ndoc: Number of context documents per question.
        doc_order: Order shown: ``retrieval`` (the dataset's order: GTR rank, BioASQ's order,
            ExpertQA's bracket number), ``shuffled`` (per sample, from ``seed``) or
            ``reversed``; to measure primacy bias.
        seed: Seed of the ``shuffled`` order.
        strategy: ``prompt`` (instructions only), ``constrained`` (grammar-constrained
            decoding), ``posthoc`` (FullCite's posthoc: snippets aligned to the documents
            afterwards by word-set Jaccard; on ALCE tasks ``posthoc`` means ALCE's POSTCITE),
            ``native`` (the documents go to the model as documents and the provider's own
            citations become FullCite citations: ``anthropic/`` models) or ``agent`` (no
            documents in the prompt: the model finds them with ``search`` and ``read``
            tools; citations of documents no tool returned are invalid). See docs/native.md.
        question_types: BioASQ: keep only these types (``yesno``, ``factoid``, ``list``,
            ``summary``; a list or comma-separated); all by default.
        similarity_model: sentence-transformers model for claim-snippet similarity (name or
            local path); ``null`` to skip that scorer.
        judge: Also run the LLM judge (needs ``--model-role grader=<model>``).
        attribution: Also judge whether each claim's cited snippet and document entail it
            (``claim_support``: NLI per claim).
        nli: NLI spec for ``attribution``, as ALCE's ``-T nli``: ``true`` (T5-11B, needs a
            GPU with ~23 GB), ``classifier:<dir>``, ``python:<module>:<fn>``, ... (README).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            ``enable_thinking`` templates; default off; ``max_tokens`` grows by
            ``thinking_tokens``, see ``inspect_cite.generation.thinking``). An answer cut inside
            ``<think>`` is scored nan ("no answer").
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.
        diagnose: Also classify every claim as ``supported``, ``misattributed``,
            ``unsupported`` or ``uncited`` (``claim_support``'s ``diagnose``); turns
            ``attribution`` on, since the classes build on its verdicts.

    """

    dataset_path: str | None
    abstracts_path: str | None = None
    system: ExpertqaSystem = DEFAULT_SYSTEM
    spans_path: str | None = None
    ndoc: int = 5
    doc_order: DocOrder = "retrieval"
    seed: int = 42
    strategy: Strategy = "prompt"
    question_types: str | list[str] | None = None
    similarity_model: str | None = DEFAULT_SIMILARITY_MODEL
    judge: bool = False
    attribution: bool = False
    nli: str = "true"
    thinking: bool = False
    thinking_tokens: int = DEFAULT_THINKING_TOKENS
    diagnose: bool = False

    def data_options(self) -> dict[str, Any]:
        """The options only some datasets take, by name (each loader reads its own)."""
        return {
            "abstracts_path": self.abstracts_path,
            "system": self.system,
            "spans_path": self.spans_path,
            "question_types": self.question_types,
        }


@dataclass(frozen=True)
class FullciteRun:
    """A FullCite task's options, checked, with what the builder resolved from them.

    Attributes:
        source: The dataset.
        options: The options as given (the log records them).
        nli: The NLI spec as a spec (its syntax checked).
        attribution: Whether ``claim_support`` runs (``diagnose`` turns it on).
        config: The generate config (thinking's extra tokens included).

    """

    source: FullciteSource
    options: FullciteOptions
    nli: str
    attribution: bool
    config: GenerateConfig

    def recorded(self) -> dict[str, Any]:
        """The values the log records beside the options as given."""
        return {
            "nli": self.nli,
            "attribution": self.attribution,
            "max_tokens": self.config.max_tokens,
        }


def resolve(source: FullciteSource, given: dict[str, Any]) -> FullciteRun:
    """The checked options of a FullCite task (refused with one line naming the flag).

    Args:
        source: The dataset.
        given: The task's arguments as given (every option of :class:`FullciteOptions`).

    Raises:
        FullciteTaskError: A value the task cannot run with.
        PreflightError: A model that cannot give native citations, or sampling and thinking
            settings that contradict the task.

    """
    check_choice("dataset", source, FullciteSource, error=FullciteTaskError)
    options = FullciteOptions(**given)
    check_choice(
        "doc_order", options.doc_order, DocOrder, what="document order", error=FullciteTaskError
    )
    check_seed(options.seed, error=FullciteTaskError)
    check_choice("strategy", options.strategy, Strategy, error=FullciteTaskError)
    if options.strategy == "native":
        check_native_citations(active_model_name(), what="-T strategy=native", fix=NATIVE_FIX)
    # Its syntax now, before any data is read; its model later, only where it is used.
    try:
        nli = nli_spec(options.nli, flag="-T nli")
    except PreflightError as e:
        # A -T value this task cannot take, as every other one (a ValueError for Python callers).
        raise FullciteTaskError(str(e)) from e
    config = thinking_generate_config(
        FULLCITE_GENERATE_CONFIG, options.thinking, options.thinking_tokens
    )
    check_sampling(config)
    check_thinking_switch(options.thinking, config)
    # The classes are claim_support's verdicts taken further: asking for them asks for it.
    attribution = options.attribution or options.diagnose
    return FullciteRun(source, options, nli, attribution, config)


def given_options(options: FullciteOptions) -> dict[str, Any]:
    """The options by name, in their order (what the log's parameters start from)."""
    return asdict(options)


__all__ = [
    "FULLCITE_SOURCES",
    "DocOrder",
    "FullciteOptions",
    "FullciteRun",
    "FullciteTaskError",
    "resolve",
]
