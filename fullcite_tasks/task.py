"""The shared body of the FullCite tasks: records -> samples, strategy solver, scorers, metadata.

Sample contract (every FullCite sample):

- ``input``: the question; ``target``: the reference answer(s).
- ``metadata["docs"]``: ``[{"id", "title", "text", "retrieval_rank"}]`` in the order shown to
  the model (``retrieval_rank`` is the 1-based rank before ``doc_order`` was applied).
- ``metadata["gold_spans"]``: ``[{"doc_id", "span"}]``; ``metadata["gold_spans_status"]``:
  ``bioasq`` (located snippets), ``given`` (spans file), ``missing`` (to be annotated by the
  span annotator, which then sets ``annotated``).
- ``metadata["source"]`` (``bioasq``/``asqa``/``expertqa``), ``question``, ``question_type``,
  ``reference_answers``, plus the dataset's own fields (``exact_answer``, ``qa_pairs``, ...).

``metadata["dataset"]`` is deliberately not set: it marks ALCE samples (ids ``1..n``, ALCE
answer format) for solvers that support both.
"""

import random
from logging import getLogger
from typing import Any, Literal

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from fullcite_tasks.data.expertqa import DEFAULT_SYSTEM, ExpertqaSystem
from fullcite_tasks.data.records import FullciteRecord, SourceData
from fullcite_tasks.strategies import Strategy, StrategySettings, strategy_solver
from inspect_cite import __version__
from inspect_cite.errors import PreflightError, Refusals
from inspect_cite.hub_files import file_provenance
from inspect_cite.nli.checked import check_nli, nli_spec
from inspect_cite.preflight import (
    active_model_name,
    check_model,
    check_native_citations,
    check_role,
    check_sampling,
    check_thinking_switch,
)
from inspect_cite.task_options import (
    TaskOptionError,
    check_choice,
    check_seed,
    recorded_options,
    unique_sample_ids,
)
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from scorers.citation_bias import citation_bias
from scorers.citation_judge import citation_judge
from scorers.citation_similarity import DEFAULT_SIMILARITY_MODEL, citation_similarity
from scorers.claim_support import claim_support
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.fullcite_answer import fullcite_answer
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from solvers.native import NATIVE_FIX
from solvers.span_annotation import ANNOTATOR_ROLES, annotation_cache_path, span_annotator

logger = getLogger(__name__)

# Bump when a change to data handling, prompts or scoring can move the numbers.
FULLCITE_TASK_VERSION = 1

Source = Literal["bioasq", "asqa", "expertqa"]
# Each dataset's own options: its task offers these and not the other datasets'.
DATA_OPTIONS: dict[str, tuple[str, ...]] = {
    "bioasq": ("abstracts_path", "question_types"),
    "asqa": ("spans_path",),
    "expertqa": ("system", "spans_path"),
}


def other_data_options(source: str) -> tuple[str, ...]:
    """The other datasets' own options, which ``source``'s task does not offer."""
    own = DATA_OPTIONS[source]
    return tuple(sorted({name for names in DATA_OPTIONS.values() for name in names} - set(own)))


DocOrder = Literal["retrieval", "shuffled", "reversed"]

# Snippets are verbatim copies, so FullCite answers run longer than plain ones.
FULLCITE_GENERATE_CONFIG = GenerateConfig(max_tokens=2048)

_warned: set[str] = set()


class FullciteTaskError(TaskOptionError):
    """A FullCite task was given parameters it cannot run with."""


def order_docs(
    docs: list[dict[str, Any]], doc_order: str, seed: int, sample_id: str
) -> list[dict[str, Any]]:
    """Documents in the order shown, each with its ``retrieval_rank``.

    ``shuffled`` draws one permutation per sample from ``seed`` and the sample id, so the
    order of a sample does not depend on which other samples run (``--limit``, ``--sample-id``).
    """
    ranked = [dict(d, retrieval_rank=i + 1) for i, d in enumerate(docs)]
    if doc_order == "reversed":
        return ranked[::-1]
    if doc_order == "shuffled":
        random.Random(f"{seed}:{sample_id}").shuffle(ranked)
    return ranked


def record_to_sample(record: FullciteRecord, doc_order: str, seed: int) -> Sample:
    """A FullCite record as an Inspect sample (see the module docstring for the contract)."""
    status = record.extra.get("gold_spans_status", "given")
    metadata: dict[str, Any] = {
        **{k: v for k, v in record.extra.items() if k != "gold_spans_status"},
        "source": record.source,
        "question": record.question,
        "question_type": record.question_type,
        "docs": order_docs(record.docs, doc_order, seed, record.id),
        "gold_spans": [dict(g) for g in record.gold_spans],
        "gold_spans_status": status,
        "reference_answers": record.reference_answers,
    }
    return Sample(
        id=record.id,
        input=record.question,
        target=record.reference_answers or "",
        metadata=metadata,
    )


def records_dataset(
    records: list[FullciteRecord], name: str, doc_order: str, seed: int
) -> MemoryDataset:
    """Samples of all records (duplicate ids get ``-<index>`` appended)."""
    if not records:
        raise FullciteTaskError(f"{name}: no samples to run (see the counts in the error above)")
    samples = unique_sample_ids(record_to_sample(r, doc_order, seed) for r in records)
    return MemoryDataset(samples, name=name)


def fullcite_scorers(
    source: Source,
    ndoc: int,
    similarity_model: str | None,
    judge: bool,
    *,
    attribution: bool = False,
    nli: str = "true",
    diagnose: bool = False,
    strategy: str = "prompt",
) -> list[Scorer]:
    """Doc/Snippet-F1, bias and QA; similarity, judge and NLI claim support on request.

    ``native`` adds the counts of the provider's citations; ``agent`` with ``attribution``
    adds ``source_support`` (its claims against what the tools returned, by the same NLI).
    """
    scorers = [
        doc_snippet_f1(),
        citation_bias(max_positions=ndoc),
        fullcite_answer(source),
    ]
    if similarity_model:
        scorers.append(citation_similarity(similarity_model))
    if judge:
        scorers.append(citation_judge())
    if attribution:
        scorers.append(claim_support(nli=nli, diagnose=diagnose))
        if strategy == "agent":
            scorers.append(source_support(nli=nli))
    if strategy == "native":
        scorers.append(native_counts())
    return scorers


def fullcite_records(
    source: str,
    dataset_path: str | None,
    ndoc: int,
    *,
    abstracts_path: str | None = None,
    spans_path: str | None = None,
    system: str = "rr_gs_gpt4",
    question_types: str | list[str] | None = None,
) -> tuple[list[FullciteRecord], dict[str, Any]]:
    """Load a FullCite dataset as records, and describe what was loaded for the log.

    Each source has its loader in ``fullcite_tasks/data/<source>.py``; options of another
    source are ignored. The description has ``data`` (file, revision, checksum),
    ``gold_spans`` (where they come from), ``counts`` and ``data_key`` (names the data in the
    span-annotation cache).
    """
    check_choice("dataset", source, Source, error=FullciteTaskError)
    if ndoc < 1:
        raise FullciteTaskError(f"-T ndoc must be at least 1, got {ndoc}")
    from inspect_cite.gold_spans import check_spans_file, load_spans_file

    spans = load_spans_file(spans_path) if spans_path else None
    # Imported on use: ASQA pulls in ALCE's data module, BioASQ the PubMed client.
    loaded: SourceData
    if source == "bioasq":
        from fullcite_tasks.data.bioasq import bioasq_source

        loaded = bioasq_source(
            dataset_path, ndoc, abstracts_path=abstracts_path, question_types=question_types
        )
    elif source == "asqa":
        from fullcite_tasks.data.asqa import asqa_source

        loaded = asqa_source(dataset_path, ndoc, spans)
    else:
        from fullcite_tasks.data.expertqa import SYSTEMS, expertqa_source

        # Also the systems ExpertqaSystem leaves out (gpt4, bing_chat: evidence without passages).
        check_choice("system", system, (*SYSTEMS, "any"), error=FullciteTaskError)
        loaded = expertqa_source(dataset_path, ndoc, spans, system)
    if spans_path and loaded.span_documents is not None:
        check_spans_file(spans_path, loaded.span_documents)
    if not loaded.records:
        raise FullciteTaskError(f"fullcite {source}: no usable samples (counts: {loaded.counts})")
    if loaded.gold_source is not None:
        gold_info: dict[str, Any] = {"source": loaded.gold_source}
    else:
        gold_info = file_provenance(spans_path) if spans_path else {}
        gold_info["source"] = (
            "spans file" if spans_path else "annotated by the annotator model role"
        )
        gold_info["samples_missing_spans"] = sum(
            r.extra.get("gold_spans_status") == "missing" for r in loaded.records
        )
    info = {
        "data": loaded.data,
        "gold_spans": gold_info,
        "counts": loaded.counts,
        "data_key": f"{source}-{str(loaded.data.get('sha256', 'unknown'))[:16]}",
    }
    return loaded.records, info


def fullcite_task(
    source: Source,
    *,
    dataset_path: str | None,
    abstracts_path: str | None = None,
    system: ExpertqaSystem = DEFAULT_SYSTEM,
    spans_path: str | None = None,
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
    diagnose: bool = False,
) -> Task:
    """Build a FullCite task; each @task function fixes the dataset and its own options.

    The FullCite tasks' options are defined and documented here, once: each @task declares
    its ``dataset_path`` and takes the rest from this signature
    (:func:`inspect_cite.forwarding.forwards_to`), less the other datasets' own options
    (:data:`DATA_OPTIONS`).

    Args:
        source: The dataset (``bioasq``, ``asqa``, ``expertqa``).
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
            ``thinking_tokens``, see ``inspect_cite.thinking``). An answer cut inside
            ``<think>`` is scored nan ("no answer").
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.
        diagnose: Also classify every claim as ``supported``, ``misattributed``,
            ``unsupported`` or ``uncited`` (``claim_support``'s ``diagnose``); turns
            ``attribution`` on, since the classes build on its verdicts.

    """
    # The arguments as given: the log's metadata records them (with the values resolved below).
    given = dict(locals())
    data_args: dict[str, Any] = {
        "abstracts_path": abstracts_path,
        "system": system,
        "spans_path": spans_path,
        "question_types": question_types,
    }
    check_choice("doc_order", doc_order, DocOrder, what="document order", error=FullciteTaskError)
    check_seed(seed, error=FullciteTaskError)
    check_choice("strategy", strategy, Strategy, error=FullciteTaskError)
    if strategy == "native":
        check_native_citations(active_model_name(), what="-T strategy=native", fix=NATIVE_FIX)
    # Its syntax now, before any data is read; its model below, only where it is used.
    try:
        nli = nli_spec(nli, flag="-T nli")
    except PreflightError as e:
        # A -T value this task cannot take, as every other one (a ValueError for Python callers).
        raise FullciteTaskError(str(e)) from e
    # The classes are claim_support's verdicts taken further: asking for them asks for it.
    attribution = attribution or diagnose
    config = thinking_generate_config(FULLCITE_GENERATE_CONFIG, thinking, thinking_tokens)
    check_sampling(config)
    check_thinking_switch(thinking, config)
    # The data and every model the run needs are checked together: one message lists all
    # that is missing (as on ALCE), not one problem per try.
    refusals = Refusals()
    loaded = None
    with refusals.check(passing=(FullciteTaskError,)):
        loaded = fullcite_records(source, dataset_path, ndoc, **data_args)
    with refusals.check():
        if similarity_model:
            check_model(
                similarity_model,
                flag="-T similarity_model",
                kind="sentence-transformers",
                fix="Pass a local sentence-transformers folder: -T similarity_model=DIR, or "
                "-T similarity_model=null to skip claim-snippet similarity",
            )
    with refusals.check():
        if judge:
            check_role(
                ["grader"],
                what="-T judge=true",
                fix="Pass --model-role grader=<model>, or drop -T judge=true",
            )
    with refusals.check():
        if attribution:
            check_nli(nli, flag="-T nli")
    needs_annotation = loaded is not None and any(
        r.extra.get("gold_spans_status") == "missing" for r in loaded[0]
    )
    with refusals.check():
        if needs_annotation:
            check_role(
                ANNOTATOR_ROLES,
                what=f"fullcite_tasks/{source} without -T spans_path (spans are annotated first)",
                fix="Pass --model-role annotator=<model> (the paper used GPT-5.4-mini), or "
                "-T spans_path=<spans JSONL>",
            )
    refusals.raise_any()
    assert loaded is not None
    records, info = loaded
    solver: list[Solver] = [strategy_solver(strategy, StrategySettings(thinking=thinking))]
    if needs_annotation:
        key = info["data_key"]
        if key not in _warned:
            _warned.add(key)
            logger.warning(
                f"fullcite_tasks/{source}: no gold evidence spans given (-T spans_path), so each "
                "sample's documents are annotated first by the 'annotator' model role "
                "(--model-role annotator=<model>; the paper used GPT-5.4-mini) and cached in "
                f"{annotation_cache_path(key, '<annotator>').parent}; pass that file as "
                "-T spans_path to pin them"
            )
        solver.insert(0, span_annotator(key))
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "fullcite",
        "source": source,
        **info,
        "parameters": recorded_options(
            given,
            # The dataset is the task; its file is described under "data".
            omit=("source", "dataset_path", *other_data_options(source)),
            nli=nli,
            attribution=attribution,
            max_tokens=config.max_tokens,
        ),
    }
    return Task(
        dataset=records_dataset(records, f"fullcite_{source}", doc_order, seed),
        solver=solver,
        scorer=fullcite_scorers(
            source,
            ndoc,
            similarity_model,
            judge,
            attribution=attribution,
            nli=nli,
            diagnose=diagnose,
            strategy=strategy,
        ),
        config=config,
        version=FULLCITE_TASK_VERSION,
        metadata=info,
    )
