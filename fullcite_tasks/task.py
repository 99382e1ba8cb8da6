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

import importlib
import random
from dataclasses import asdict
from logging import getLogger
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from fullcite_tasks.data.expertqa import SYSTEMS
from fullcite_tasks.data.records import FullciteRecord, SourceData
from fullcite_tasks.options import FullciteRun, FullciteTaskError, resolve
from fullcite_tasks.strategies import StrategySettings, strategy_solver
from inspect_cite import __version__
from inspect_cite.benchmarks.fullcite import FULLCITE_SOURCES, FullciteSource, other_options
from inspect_cite.checks.errors import Refusals
from inspect_cite.checks.models import check_model
from inspect_cite.checks.run import check_role
from inspect_cite.downloads.hub_files import file_provenance
from inspect_cite.nli.checked import given_as
from inspect_cite.options.task_options import check_choice, recorded_options, unique_sample_ids
from scorers import epoch_mean
from scorers.citation_bias import citation_bias
from scorers.citation_judge import citation_judge
from scorers.citation_similarity import citation_similarity
from scorers.claim_support import claim_support
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.fullcite_answer import fullcite_answer
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from solvers.span_annotation import ANNOTATOR_ROLES, annotation_cache_path, span_annotator

logger = getLogger(__name__)

# Bump when a change to data handling, prompts or scoring can move the numbers.
FULLCITE_TASK_VERSION = 1

_warned: set[str] = set()


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


def fullcite_scorers(run: FullciteRun) -> list[Scorer]:
    """Doc/Snippet-F1, bias and QA; similarity, judge and NLI claim support on request.

    ``native`` adds the counts of the provider's citations; ``agent`` with ``attribution``
    adds ``source_support`` (its claims against what the tools returned, by the same NLI).
    """
    opts = run.options
    scorers = [
        doc_snippet_f1(),
        citation_bias(max_positions=opts.ndoc),
        fullcite_answer(run.source),
    ]
    if opts.similarity_model:
        scorers.append(citation_similarity(opts.similarity_model))
    if opts.judge:
        scorers.append(citation_judge())
    if run.attribution:
        scorers.append(claim_support(nli=run.nli, diagnose=opts.diagnose))
        if opts.strategy == "agent":
            scorers.append(source_support(nli=run.nli))
    if opts.strategy == "native":
        scorers.append(native_counts())
    return scorers


def annotation_step(source: str, data_key: str) -> Solver:
    """The span annotator a run without gold spans starts with (warned about once per data)."""
    if data_key not in _warned:
        _warned.add(data_key)
        logger.warning(
            f"fullcite_tasks/{source}: no gold evidence spans given (-T spans_path), so each "
            "sample's documents are annotated first by the 'annotator' model role "
            "(--model-role annotator=<model>; the paper used GPT-5.4-mini) and cached in "
            f"{annotation_cache_path(data_key, '<annotator>').parent}; pass that file as "
            "-T spans_path to pin them"
        )
    return span_annotator(data_key)


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
    check_choice("dataset", source, FullciteSource, error=FullciteTaskError)
    if ndoc < 1:
        raise FullciteTaskError(f"-T ndoc must be at least 1, got {ndoc}")
    from inspect_cite.evidence.gold_spans import check_spans_file, load_spans_file

    row = FULLCITE_SOURCES[source]  # type: ignore[index]
    if "system" in row.options:
        # Also the systems ExpertqaSystem leaves out (gpt4, bing_chat: evidence without passages).
        check_choice("system", system, (*SYSTEMS, "any"), error=FullciteTaskError)
    spans = load_spans_file(spans_path) if spans_path else None
    # The dataset's loader (its registry row), imported on use: ASQA pulls in ALCE's data
    # module, BioASQ the PubMed client.
    module, _, function = row.loader.partition(":")
    own = {"abstracts_path": abstracts_path, "question_types": question_types, "system": system}
    loaded: SourceData = getattr(importlib.import_module(module), function)(
        dataset_path, ndoc, spans=spans, **{k: v for k, v in own.items() if k in row.options}
    )
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


def fullcite_task(source: FullciteSource, **options: Any) -> Task:
    """Build a FullCite task; each @task function fixes the dataset and its own options.

    The options are :class:`fullcite_tasks.options.FullciteOptions` (defined and documented
    there, once); the data and every model the run needs are checked together, so one message
    lists all that is missing (as on ALCE), not one problem per try.

    Args:
        source: The dataset (``bioasq``, ``asqa``, ``expertqa``).
        **options: :class:`fullcite_tasks.options.FullciteOptions`.

    """
    run = resolve(source, options)
    opts = run.options
    refusals = Refusals()
    loaded = None
    with refusals.check(passing=(FullciteTaskError,)):
        loaded = fullcite_records(source, opts.dataset_path, opts.ndoc, **opts.data_options())
    with refusals.check():
        if opts.similarity_model:
            check_model(
                opts.similarity_model,
                flag="-T similarity_model",
                kind="sentence-transformers",
                fix="Pass a local sentence-transformers folder: -T similarity_model=DIR, or "
                "-T similarity_model=null to skip claim-snippet similarity",
            )
    with refusals.check():
        if opts.judge:
            check_role(
                ["grader"],
                what="-T judge=true",
                fix="Pass --model-role grader=<model>, or drop -T judge=true",
            )
    scorers: list[Scorer] = []
    with refusals.check(), given_as("-T nli"):
        # Each scorer checks its judge as it is built (claim_support's, with attribution).
        scorers = fullcite_scorers(run)
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
    solver = [strategy_solver(opts.strategy, StrategySettings(thinking=opts.thinking))]
    if needs_annotation:
        solver.insert(0, annotation_step(source, info["data_key"]))
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "fullcite",
        "source": source,
        **info,
        "parameters": recorded_options(
            asdict(opts),
            # The dataset is the task; its file is described under "data".
            omit=("dataset_path", *other_options(source)),
            **run.recorded(),
        ),
    }
    return Task(
        dataset=records_dataset(records, f"fullcite_{source}", opts.doc_order, opts.seed),
        solver=solver,
        scorer=scorers,
        config=run.config,
        version=FULLCITE_TASK_VERSION,
        # Epochs reduce as Inspect's mean, keeping each epoch's judged shares (-S calibration).
        epochs=Epochs(1, epoch_mean()),
        metadata=info,
    )
