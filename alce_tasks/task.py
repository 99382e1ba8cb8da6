"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Scorer

from alce_tasks.data import record_to_sample
from alce_tasks.helmet import helmet_task
from alce_tasks.options import AlceRun, AlceTaskError, AlceTaskErrors, resolve
from alce_tasks.run_task import run_task
from alce_tasks.strategies import STRATEGIES
from alce_tasks.trust import trust_task
from alce_tasks.trust_data import trust_file_problem
from inspect_cite import __version__
from inspect_cite.alce.data import (
    ALCE_DATA_HUB,
    AlceDataError,
    alce_data_path,
    load_items,
    local_alce_data,
)
from inspect_cite.alce.prompts import (
    AlceDatasetName,
    AlcePromptBuilder,
    PromptFile,
    PromptVariant,
    load_prompt_file,
    prompt_provenance,
    quick_test_ids,
)
from inspect_cite.alce.run_configs import (
    generate_overrides,
)
from inspect_cite.benchmarks.alce import ALCE_DATASETS
from inspect_cite.benchmarks.trust import TrustDatasetName
from inspect_cite.checks.errors import PreflightError, Refusals
from inspect_cite.checks.models import check_model
from inspect_cite.checks.run import (
    active_model_name,
    check_native_citations,
    eval_generate_config,
)
from inspect_cite.downloads.hub_files import check_dataset_path, dataset_file
from inspect_cite.models.retrieval import check_retriever
from inspect_cite.nli.checked import given_as
from inspect_cite.options.forwarding import given_arguments
from inspect_cite.options.task_options import (
    recorded_options,
    unique_sample_ids,
)
from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.mauve import mauve as mauve_scorer
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from solvers.native import NATIVE_FIX

# Bump when a change to data handling, prompts or scoring can move the numbers.
ALCE_TASK_VERSION = 1


@dataclass(frozen=True)
class AlceInputs:
    """What an ALCE task reads from disk, checked before anything is generated or downloaded.

    Attributes:
        items: The validated items, or None when the pinned data is still to be downloaded.
        prompt_file: The prompt file the task builds prompts (or logs demonstrations) from.

    """

    items: list[dict[str, Any]] | None
    prompt_file: PromptFile


def check_inputs(
    dataset: AlceDatasetName,
    *,
    data_name: str | None,
    variant: PromptVariant,
    shot: int,
    dataset_path: str | None,
    prompt_file: str | None,
    models: Callable[[], None],
) -> AlceInputs:
    """Check every file and model an ALCE run needs, and refuse with all the problems at once.

    An offline run learns in one message everything it lacks (the data, the prompt file, its
    fields, too few demonstrations for ``-T shot``, the models), not one problem per try.
    Nothing is downloaded here but the prompt file (a few kB): pinned data that is not cached
    is a problem only when the hub cannot be reached; it is downloaded once everything else
    passed (:func:`alce_data_path`).

    Args:
        dataset: The ALCE dataset.
        data_name: The pinned eval file (None when ``dataset_path`` is given).
        variant: The prompt variant whose file the run reads (the task to build prompts, or
            the strategy's solver).
        shot: Demonstrations per prompt (``-T shot``).
        dataset_path: The user's data file (``-T dataset_path``).
        prompt_file: The user's prompt file (``-T prompt_file``), read instead of the variant's.
        models: Checks the models the run needs (:func:`preflight_models`).

    Raises:
        PreflightError: One problem as it is; several as :class:`PreflightErrors`.

    """
    refusals = Refusals()
    items = None
    with refusals.check():
        if dataset_path is not None:
            check_dataset_path(dataset_path, AlceDataError)
            try:
                items = load_items(dataset_path, dataset)
            except AlceDataError as e:
                # A Trust-Score file without -T trust=true: one line, not a problem per record.
                if (problem := trust_file_problem(dataset_path, dataset)) is not None:
                    raise AlceDataError(problem) from e
                raise
        elif data_name is not None and (local := local_alce_data(data_name)) is not None:
            items = load_items(local, dataset)
    task_file: PromptFile | None = None
    with refusals.check():
        task_file = load_prompt_file(
            dataset, variant, prompt_file=prompt_file, shot=shot, shot_flag="-T shot"
        )
    with refusals.check():
        models()
    refusals.raise_any()
    assert task_file is not None
    return AlceInputs(items, task_file)


def alce_dataset(
    dataset: AlceDatasetName, inputs: AlceInputs, run: AlceRun
) -> tuple[MemoryDataset, dict[str, Any]]:
    """The samples, and what was loaded for the log.

    The pinned data is downloaded here when it was not on this machine. The prompts are built
    from ``inputs.prompt_file`` (the file of the run's variant, or ``prompt_file`` when given):
    by the task (into ``metadata["alce_prompt"]``, which the solver sends) or, when the strategy's
    solver builds its own, by the solver. The sample input is the question either way, so that
    Inspect's sample list shows it. A strategy that chooses among the item's whole retrieval list
    gets all of it. ``quick_test`` keeps the items run.py's ``--quick_test`` draws.
    """
    o, spec = run.options, run.spec
    data_name, dataset_path, quick_test = run.data_name, o.dataset_path, o.quick_test
    ndoc, seed, shot, use_shorter = o.ndoc, o.seed, o.shot, o.use_shorter
    assert ndoc is not None  # resolved

    def pinned() -> tuple[Path, dict[str, Any]]:
        assert data_name is not None  # called only without a dataset_path
        return alce_data_path(data_name), ALCE_DATA_HUB.provenance(data_name)

    data_path, data_info = dataset_file(dataset_path, pinned, AlceDataError)
    items = inputs.items if inputs.items is not None else load_items(data_path, dataset)
    pf = inputs.prompt_file
    builder = AlcePromptBuilder(
        pf, shot=shot, ndoc=ndoc, seed=seed, use_shorter=use_shorter, ndoc_in_demo=run.demo_docs
    )
    indices = list(range(len(items)))
    if quick_test is not None:
        try:
            indices = quick_test_ids(len(pf.demos), shot, seed, len(items), quick_test)
        except ValueError as e:
            raise AlceTaskError(f"-T quick_test={quick_test}: {e} ({data_path})") from e
    samples = [
        record_to_sample(
            items[i],
            i,
            dataset,
            builder.build(items[i]) if spec.task_prompt else items[i]["question"],
            items[i]["docs"] if spec.pool else builder.docs(items[i]),
            question_input=True,
        )
        for i in indices
    ]
    samples = unique_sample_ids(samples)
    source = prompt_provenance(dataset, run.variant, prompt_file=o.prompt_file)
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "alce",
        "dataset": dataset,
        "data": data_info,
        "prompt_file": source,
        "parameters": {
            "retriever": o.retriever,
            "oracle": o.oracle,
            "ndoc": ndoc,
            "shot": shot,
            "seed": seed,
            "prompt": run.variant,
            "prompt_file_read": source,
            "use_shorter": use_shorter,
            "ndoc_in_demo": run.demo_docs,
            "demo_ids": builder.demo_ids,
        },
    }
    return MemoryDataset(samples, name=f"alce_{dataset}", location=str(data_path)), info


def preflight_models(run: AlceRun, scorers: list[Scorer]) -> None:
    """Build the scorers, and refuse a model the task will need that cannot be loaded here.

    The scorers check their own judge (``-T nli``, named so) as they are built; the other
    models are checked here, before any generation.
    """
    o = run.options
    strategy, retrieval_model = o.strategy, o.retrieval_model
    qa_model = o.qa_model if o.qa else None
    mauve_model = o.mauve_model if o.mauve else None
    with given_as("-T nli"):
        scorers.extend(alce_scorers(run))
    if strategy == "native":
        check_native_citations(active_model_name(), what="-T strategy=native", fix=NATIVE_FIX)
    if STRATEGIES[strategy].retrieval:
        check_retriever(retrieval_model, flag="-T retrieval_model")
    if qa_model is not None:
        check_model(
            qa_model,
            flag="-T qa_model",
            kind="question-answering",
            fix="Pass a local extractive QA model folder: -T qa_model=DIR, or drop -T qa=true",
        )
    if mauve_model is not None:
        check_model(
            mauve_model,
            flag="-T mauve_model",
            kind="any",
            fix="Pass a local causal LM folder: -T mauve_model=DIR, or drop -T mauve=true",
        )


def alce_scorers(run: AlceRun) -> list[Scorer]:
    """The dataset's scorers (its registry row), and those the options and strategy add."""
    o = run.options
    row = ALCE_DATASETS[run.dataset]
    # Citation recall first: Inspect shows a run's first score (citation_rec) as its headline.
    scorers: list[Scorer] = [
        citation_nli(nli=o.nli, dataset=run.dataset, diagnose=o.diagnose),
        alce_correctness(run.dataset),
    ]
    if "claim_coverage" in row.scorers:
        scorers.append(claim_coverage(nli=o.nli))
    if o.qa:
        scorers.append(alce_qa(qa_model=o.qa_model))
    if o.mauve:
        scorers.append(mauve_scorer(mauve_model=o.mauve_model, mauve_seeds=o.mauve_seeds))
    if o.strategy == "native":
        scorers.append(native_counts())
    if o.strategy == "agent":
        scorers.append(source_support(nli=o.nli))
    return scorers


def _config_values_named(build: Callable[..., Task]) -> Callable[..., Task]:
    """Refusals of a value the user did not give name the ``-T config`` that set it.

    ``-T ndoc=-3: must be 0 or more`` reads as the user's flag; when ``ndoc`` came from the
    config, the message says ``-T config=FILE sets ndoc=-3: must be 0 or more``.
    """

    @functools.wraps(build)
    def build_task(*args: Any, **kwargs: Any) -> Task:
        try:
            return build(*args, **kwargs)
        except AlceTaskError as e:
            config = kwargs.get("config")
            if config is None:
                raise
            explicit = given_arguments()
            given = set(kwargs) if explicit is None else set(explicit)

            def named(error: PreflightError) -> PreflightError:
                flag = re.match(r"-T (\w+)=", str(error))
                if flag is None or flag[1] in given:
                    return error
                return AlceTaskError(f"-T config={config} sets {str(error).removeprefix('-T ')}")

            if isinstance(e, AlceTaskErrors):
                raise AlceTaskErrors([named(error) for error in e.errors]) from e
            if (error := named(e)) is e:
                raise
            raise error from e

    return build_task


@_config_values_named
def alce_task(dataset: AlceDatasetName | TrustDatasetName, **options: Any) -> Task:
    """Build an ALCE task; the @task functions fix the dataset and its own options.

    Scorers: correctness and NLI citation recall/precision; ELI5 adds claim coverage; ASQA adds
    QA accuracy with ``qa``; ASQA and ELI5 add MAUVE with ``mauve`` (the dataset's row,
    :data:`inspect_cite.benchmarks.alce.ALCE_DATASETS`). The options are
    :class:`alce_tasks.options.AlceOptions` (defined and documented there, once).

    Args:
        dataset: Which ALCE dataset.
        **options: :class:`alce_tasks.options.AlceOptions`.

    """
    run = resolve(dataset, options)
    if run.options.trust:
        return trust_task(run)
    if run.options.context is not None:
        return helmet_task(run)
    dataset = run.dataset
    o = run.options
    scorers: list[Scorer] = []
    # Every file and model the run needs, all problems in one message; the pinned data (a
    # 451 MB download on first use) is fetched by alce_dataset once nothing else is missing.
    inputs = check_inputs(
        dataset,
        data_name=run.data_name,
        variant=run.variant,
        shot=o.shot,
        dataset_path=o.dataset_path,
        prompt_file=o.prompt_file,
        models=lambda: preflight_models(run, scorers),
    )
    ds, info = alce_dataset(dataset, inputs, run)
    settings = run.settings
    info["parameters"] = recorded_options(
        run.given,
        # The dataset's values win: the prompt file read, the demonstrations drawn.
        **{**run.resolved, **info["parameters"]},
        config=settings.record["name"] if settings is not None else None,
        max_tokens=run.generate_config.max_tokens,
    )
    info["config"] = None
    if settings is not None:
        overrides = run.overrides | generate_overrides(settings, eval_generate_config())
        info["config"] = {**settings.record, "overrides": overrides}
    return run_task(run, dataset=ds, scorers=scorers, version=ALCE_TASK_VERSION, metadata=info)
