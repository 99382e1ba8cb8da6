"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer

from alce_tasks.configs import (
    CONFIG_PARAMETERS,
    ConfigSettings,
    apply_config,
    config_settings,
    generate_overrides,
)
from alce_tasks.data import (
    ALCE_DATA_HUB,
    AlceDataError,
    Retriever,
    alce_data_path,
    eval_file_name,
    load_items,
    local_alce_data,
    record_to_sample,
)
from alce_tasks.strategies import STRATEGIES, Strategy, StrategySettings, strategy_solver
from inspect_cite import __version__
from inspect_cite.alce.prompts import (
    AlceDatasetName,
    AlcePromptBuilder,
    PromptFile,
    PromptVariant,
    UseShorter,
    load_prompt_file,
    prompt_provenance,
    quick_test_ids,
)
from inspect_cite.alce.run_configs import load_alce_config
from inspect_cite.errors import Refusals
from inspect_cite.forwarding import given_arguments
from inspect_cite.hub_files import check_dataset_path, dataset_file
from inspect_cite.nli.checked import check_nli
from inspect_cite.preflight import (
    active_model_name,
    check_model,
    check_native_citations,
    check_sampling,
    check_thinking_switch,
    eval_generate_config,
    eval_model,
)
from inspect_cite.prompts import ALCE_SYSTEM_MESSAGE
from inspect_cite.raw_prompt import check_raw_prompt
from inspect_cite.retrieval import GTR_RETRIEVER, check_retriever
from inspect_cite.task_options import (
    TaskOptionError,
    check_choice,
    recorded_options,
    unique_sample_ids,
)
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from scorers import epoch_mean
from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.mauve import mauve as mauve_scorer
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from solvers import alce_raw_prompt
from solvers.alce_interactive import INTERACT_USE_SHORTER
from solvers.native import NATIVE_FIX

# Bump when a change to data handling, prompts or scoring can move the numbers.
ALCE_TASK_VERSION = 1

TaskPrompt = Literal["default", "light_inst", "closedbook", "sum_or_ext"]
"""The ALCE prompt variants a task's ``prompt`` parameter accepts."""

# ALCE's defaults for ChatGPT in the paper: temperature 0.5, top_p 1.0, at most 300 new tokens.
ALCE_GENERATE_CONFIG = GenerateConfig(temperature=0.5, top_p=1.0, max_tokens=300)


class AlceTaskError(TaskOptionError):
    """An ALCE task was given parameters it cannot run with."""


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
            items = load_items(dataset_path, dataset)
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
    dataset: AlceDatasetName,
    inputs: AlceInputs,
    *,
    data_name: str | None,
    retriever: Retriever,
    oracle: bool,
    ndoc: int,
    seed: int,
    shot: int,
    prompt: PromptVariant,
    prompt_file: str | None,
    use_shorter: UseShorter | None,
    dataset_path: str | None,
    pool: bool = False,
    build_prompts: bool = True,
    ndoc_in_demo: int | None = None,
    quick_test: int | None = None,
) -> tuple[MemoryDataset, dict[str, Any]]:
    """The samples, and what was loaded for the log.

    The pinned data is downloaded here when it was not on this machine. The prompts are built
    from ``inputs.prompt_file`` (the file of ``prompt``, or ``prompt_file`` when given): by
    the task or, without ``build_prompts``, by the strategy's solver (the sample input is then
    the question). With ``pool`` a sample keeps the item's whole retrieval list.
    ``quick_test`` keeps the items run.py's ``--quick_test`` draws.
    """

    def pinned() -> tuple[Path, dict[str, Any]]:
        assert data_name is not None  # called only without a dataset_path
        return alce_data_path(data_name), ALCE_DATA_HUB.provenance(data_name)

    data_path, data_info = dataset_file(dataset_path, pinned, AlceDataError)
    items = inputs.items if inputs.items is not None else load_items(data_path, dataset)
    pf = inputs.prompt_file
    builder = AlcePromptBuilder(
        pf, shot=shot, ndoc=ndoc, seed=seed, use_shorter=use_shorter, ndoc_in_demo=ndoc_in_demo
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
            builder.build(items[i]) if build_prompts else items[i]["question"],
            items[i]["docs"] if pool else builder.docs(items[i]),
        )
        for i in indices
    ]
    samples = unique_sample_ids(samples)
    source = prompt_provenance(dataset, prompt, prompt_file=prompt_file)
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "alce",
        "dataset": dataset,
        "data": data_info,
        "prompt_file": source,
        "parameters": {
            "retriever": retriever,
            "oracle": oracle,
            "ndoc": ndoc,
            "shot": shot,
            "seed": seed,
            "prompt": prompt,
            "prompt_file_read": source,
            "use_shorter": use_shorter,
            "ndoc_in_demo": ndoc_in_demo,
            "demo_ids": builder.demo_ids,
        },
    }
    return MemoryDataset(samples, name=f"alce_{dataset}", location=str(data_path)), info


def explicit_arguments(given: Mapping[str, Any]) -> set[str]:
    """The task arguments the user gave (each overrides a config's value).

    Through the @task functions these are exactly the ``-T`` values given
    (:func:`inspect_cite.forwarding.given_arguments`); for a direct call of
    :func:`alce_task`, the arguments that differ from its defaults (``retriever`` is then
    the config's).
    """
    names = given_arguments()
    if names is not None:
        return set(names)
    defaults = {p.name: p.default for p in inspect.signature(alce_task).parameters.values()}
    return {k for k, v in given.items() if k in defaults and v != defaults[k] and k != "retriever"}


def resolve_use_shorter(
    strategy: Strategy, dataset: AlceDatasetName, use_shorter: UseShorter | None, ndoc: int
) -> UseShorter | None:
    """The ``use_shorter`` a strategy shows its documents with, or a one-line refusal.

    SUMM and SNIPPET fix it; INTERACT defaults to the paper's pairing per dataset;
    INLINESEARCH shows summaries only of the documents in its prompt; the closed-book
    strategies show none. For the others the task's prompt decides (:func:`alce_dataset`).
    """
    fixed: dict[str, UseShorter] = {"summ": "summary", "snippet": "extraction"}
    if strategy in fixed:
        if use_shorter not in (None, fixed[strategy]):
            other = "snippet" if strategy == "summ" else "summ"
            raise AlceTaskError(
                f"-T use_shorter={use_shorter}: strategy={strategy} shows each document's "
                f"{fixed[strategy]}; use strategy={other}"
            )
        return fixed[strategy]
    if strategy == "interact":
        return use_shorter or INTERACT_USE_SHORTER[dataset]
    if use_shorter is not None and (STRATEGIES[strategy].prompt == "closedbook" or ndoc == 0):
        raise AlceTaskError(
            f"-T use_shorter={use_shorter}: strategy={strategy} with ndoc={ndoc} shows no "
            "documents in the prompt"
        )
    return use_shorter


def check_run_py_options(
    strategy: Strategy,
    *,
    prompt: str,
    ndoc: int | None,
    chat: bool,
    thinking: bool,
    max_length: int | None,
    no_doc_in_demo: bool,
    ndoc_in_demo: int | None,
    retrieve_in_all_docs: bool | None,
    force_cite_show: bool | None,
) -> None:
    """Refuse, with one line naming the flag, a value the strategy would not use.

    Raises:
        AlceTaskError: For a prompt variant or document count the strategy's solver does not
            read, run.py's interactive options outside its interactive modes, demonstration
            documents without documents to show, ``max_length`` in chat mode, ``chat=false``
            with a strategy run.py does not have or with thinking, or a model that cannot be
            sent a raw prompt (known when Inspect builds the task for a model).

    """
    spec = STRATEGIES[strategy]
    closed_book = spec.prompt == "closedbook"
    if spec.prompt is not None and prompt not in ("default", spec.prompt):
        raise AlceTaskError(
            f"-T prompt={prompt}: strategy={strategy} reads ALCE's {spec.prompt} prompt "
            "(-T prompt_file=FILE for your own)"
        )
    if closed_book and ndoc not in (None, 0):
        raise AlceTaskError(f"-T ndoc={ndoc}: strategy={strategy} shows no documents")
    if no_doc_in_demo and ndoc_in_demo is not None:
        raise AlceTaskError(
            f"-T ndoc_in_demo={ndoc_in_demo}: -T no_doc_in_demo=true already shows none"
        )
    if (no_doc_in_demo or ndoc_in_demo is not None) and (closed_book or prompt == "closedbook"):
        flag = "no_doc_in_demo=true" if no_doc_in_demo else f"ndoc_in_demo={ndoc_in_demo}"
        raise AlceTaskError(f"-T {flag}: the closed-book prompt shows no documents")
    if retrieve_in_all_docs and spec.run_py != "search":
        raise AlceTaskError(
            f"-T retrieve_in_all_docs=true: only strategy=inlinesearch searches, not {strategy}"
        )
    if force_cite_show and spec.run_py not in ("doc_id", "search"):
        raise AlceTaskError(
            "-T force_cite_show=true: only the interactive strategies (interact, "
            f"inlinesearch) show documents after the prompt, not {strategy}"
        )
    if chat:
        if max_length is not None:
            raise AlceTaskError(
                f"-T max_length={max_length}: caps raw-prompt generation only (-T chat=false)"
            )
        return
    if spec.run_py is None:
        raise AlceTaskError(
            f"-T chat=false: sends run.py's raw prompts, and strategy={strategy} is not one of "
            "run.py's modes (vanilla, oracle, closedbook, summ, snippet, interact, inlinesearch)"
        )
    if thinking:
        raise AlceTaskError(
            "-T thinking=true: a raw prompt (-T chat=false) has no chat template to think in"
        )
    model = eval_model()
    if model is not None:
        check_raw_prompt(model)


def preflight_models(
    strategy: Strategy,
    nli: str,
    retrieval_model: str,
    qa_model: str | None,
    mauve_model: str | None,
) -> None:
    """Refuse, before any generation, a model the task will need that cannot be loaded here."""
    check_nli(nli, flag="-T nli")
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
            named = re.match(r"-T (\w+)=", str(e))
            explicit = given_arguments()
            if config is None or named is None:
                raise
            if named[1] in (set(kwargs) if explicit is None else set(explicit)):
                raise
            raise AlceTaskError(f"-T config={config} sets {str(e).removeprefix('-T ')}") from e

    return build_task


@_config_values_named
def alce_task(
    dataset: AlceDatasetName,
    *,
    retriever: Retriever,
    oracle: bool = False,
    ndoc: int | None = None,
    shot: int = 2,
    seed: int = 42,
    prompt: TaskPrompt = "default",
    use_shorter: UseShorter | None = None,
    dataset_path: str | None = None,
    prompt_file: str | None = None,
    nli: str = "true",
    strategy: Strategy = "vanilla",
    retrieval_model: str = GTR_RETRIEVER,
    qa: bool = False,
    qa_model: str = "gaotianyu1350/roberta-large-squad",
    mauve: bool = False,
    mauve_model: str = "gpt2-large",
    mauve_seeds: int = 1,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
    config: str | None = None,
    chat: bool = True,
    max_length: int | None = None,
    no_doc_in_demo: bool = False,
    ndoc_in_demo: int | None = None,
    quick_test: int | None = None,
    retrieve_in_all_docs: bool | None = None,
    force_cite_show: bool | None = None,
    diagnose: bool = False,
) -> Task:
    """Build an ALCE task; the @task functions fix the dataset and its own options.

    Scorers: correctness and NLI citation recall/precision; ELI5 adds claim coverage; ASQA adds
    QA accuracy with ``qa``; ASQA and ELI5 add MAUVE with ``mauve``.

    The parameters every ALCE task shares are defined and documented here, once: each @task
    declares only its ``retriever`` and takes the rest from this signature
    (:func:`inspect_cite.forwarding.forwards_to`), less ``qa`` and ``mauve`` where eval.py does
    not compute them.

    Args:
        dataset: Which ALCE dataset.
        retriever: Which retrieval results to read (per dataset: see its task).
        oracle: Use ALCE's reranked oracle file (5 documents chosen for maximal answer recall).
        ndoc: Documents shown per question and per demonstration (default: the strategy's,
            :data:`alce_tasks.strategies.STRATEGIES`: 5; the paper's 10 for `summ`, `snippet`
            and `interact`, 0 for `closedbook`).
        shot: Number of demonstrations, drawn from the prompt file with `seed` as run.py does.
        seed: Seed for the demonstration draw (`np.random.seed` + `np.random.choice`).
        prompt: ALCE prompt variant (`closedbook` shows no documents; `sum_or_ext` shows
            each document's summary or extraction, see `use_shorter`).
        use_shorter: Show documents' `summary` or `extraction`: with `prompt=sum_or_ext`
            (default `summary`), `interact` (default: the paper's pairing, ASQA summary,
            QAMPARI and ELI5 extraction) and `inlinesearch` with `ndoc` > 0; fixed by `summ`
            (summary) and `snippet` (extraction).
        dataset_path: An ALCE-format JSON list to use instead of the pinned download.
        prompt_file: An ALCE-format prompt file to use instead of the official one.
        nli: NLI model judging citations, one of the spec forms listed in
            :mod:`inspect_cite.nli` (default `true`: ALCE's T5-11B TRUE model, needs a GPU
            with ~23 GB). Decisions are cached on disk when `INSPECT_CITE_NLI_CACHE` names a
            SQLite file.
        strategy: How answers are generated, one of
            :data:`alce_tasks.strategies.STRATEGIES`: ALCE's baselines `vanilla`,
            `closedbook`, `summ`, `snippet`, `oracle`, `rerank`, `postcite`, `interact`,
            `inlinesearch`, or the FullCite names `prompt` (= vanilla), `constrained`
            (vanilla's prompt under a grammar allowing only [1]..[ndoc] after statements) and
            `posthoc` (ALCE's POSTCITE after vanilla); `native` (the provider's own document
            citations, written as [n]: anthropic/ models) and `agent` (the model finds
            documents with search and read tools; see docs/native.md).
        qa: Add eval.py's QA accuracy (QA-EM, QA-F1, QA-Hit): an extractive QA model
            answers each disambiguated question from the output (ASQA only).
        qa_model: The QA model (hub id or local dir; eval.py's by default).
        mauve: Add MAUVE fluency (x100), as eval.py's `--mauve` (ASQA and ELI5).
        mauve_model: Causal LM whose features MAUVE compares (hub id or local dir).
        mauve_seeds: k-means seeds to report MAUVE's spread over (1 = ALCE's).
        retrieval_model: sentence-transformers model (hub id or local dir) with which
            `postcite`, `posthoc` and `inlinesearch` find documents (the paper: GTR-large).
        thinking: Generate answers with the chat template's thinking on (Qwen3 and other
            `enable_thinking` templates; default off, so that the answer gets ALCE's 300
            tokens). An answer cut inside `<think>` is scored nan ("no answer").
        thinking_tokens: With `thinking`, tokens added to `max_tokens` for the thinking.
        config: One of ALCE's 78 run configurations by name (`configs/<name>.yaml`, e.g.
            `asqa_turbo_shot2_ndoc5_gtr_default`) or the path of a YAML file in their format:
            sets every parameter (and the temperature, top_p and max_tokens) as run.py reads
            it; a parameter or generate flag given explicitly overrides the config's value,
            and the log's metadata `config.overrides` says so.
        chat: Send ALCE's prompt as a chat message after ALCE's system message (run.py's
            OpenAI chat models); false sends run.py's raw prompt (its open models): no chat
            template, no system message, generation stopped at a newline and capped by
            `max_length` (:mod:`inspect_cite.raw_prompt` says how per provider).
        max_length: With `chat=false`, run.py's `--max_length`: each generation gets at most
            `max_length` - prompt tokens (default: the model's context length).
        no_doc_in_demo: Show no documents in the demonstrations (run.py's `--no_doc_in_demo`).
        ndoc_in_demo: Documents shown per demonstration (run.py's `--fewer_doc_in_demo
            --ndoc_in_demo N`; default `ndoc`).
        quick_test: Run the N items run.py's `--quick_test N` draws (after the
            demonstrations, from the same seeded stream).
        retrieve_in_all_docs: `inlinesearch`: search every retrieved document (default, the
            paper's) or, false, only the `ndoc` of the prompt (run.py's default).
        force_cite_show: `interact`, `inlinesearch`: replace each output's citations by the
            documents shown last (default: true for `inlinesearch`, the paper's; false for
            `interact`).
        diagnose: Also classify every statement as `supported`, `misattributed`,
            `unsupported` or `uncited` (`citation_nli`'s `diagnose`; one more NLI pair per
            unsupported statement and document it does not cite).

    """
    # The arguments as given: the solver's settings are picked from them, and the log's
    # metadata records them (with the values resolved below, and nli redacted).
    given = {name: value for name, value in locals().items() if name != "dataset"}
    settings: ConfigSettings | None = None
    overrides: dict[str, Any] = {}
    if config is not None:
        settings = config_settings(load_alce_config(config), dataset)
        given, overrides = apply_config(settings, given, explicit_arguments(given))
        (
            retriever,
            oracle,
            dataset_path,
            strategy,
            ndoc,
            shot,
            seed,
            prompt,
            prompt_file,
            use_shorter,
            no_doc_in_demo,
            ndoc_in_demo,
            quick_test,
            chat,
            max_length,
            retrieve_in_all_docs,
            force_cite_show,
            retrieval_model,
        ) = (given[name] for name in CONFIG_PARAMETERS)
    generate_config = ALCE_GENERATE_CONFIG
    if settings is not None:
        generate_config = generate_config.merge(GenerateConfig(**settings.generate))
    generate_config = thinking_generate_config(generate_config, thinking, thinking_tokens)
    check_sampling(generate_config)
    check_thinking_switch(thinking, generate_config)
    check_choice("strategy", strategy, Strategy, error=AlceTaskError)
    for name, value in (("ndoc", ndoc), ("shot", shot), ("ndoc_in_demo", ndoc_in_demo)):
        if value is not None and value < 0:
            raise AlceTaskError(f"-T {name}={value}: must be 0 or more")
    for name, value in (("quick_test", quick_test), ("max_length", max_length)):
        if value is not None and value < 1:
            raise AlceTaskError(f"-T {name}={value}: must be 1 or more")
    check_choice(
        "prompt",
        prompt,
        TaskPrompt,
        what="prompt variant",
        hint=" (or -T prompt_file=FILE for your own)",
        error=AlceTaskError,
    )
    if qa and dataset != "asqa":
        raise AlceTaskError("-T qa=true needs ASQA's qa_pairs (eval.py computes QA only for ASQA)")
    if isinstance(mauve_seeds, bool) or not isinstance(mauve_seeds, int) or mauve_seeds < 1:
        raise AlceTaskError(f"-T mauve_seeds={mauve_seeds}: must be a whole number of at least 1")
    if mauve and dataset == "qampari":
        raise AlceTaskError("-T mauve=true: eval.py does not compute MAUVE for QAMPARI lists")
    spec = STRATEGIES[strategy]
    check_run_py_options(
        strategy,
        prompt=prompt,
        ndoc=ndoc,
        chat=chat,
        thinking=thinking,
        max_length=max_length,
        no_doc_in_demo=no_doc_in_demo,
        ndoc_in_demo=ndoc_in_demo,
        retrieve_in_all_docs=retrieve_in_all_docs,
        force_cite_show=force_cite_show,
    )
    oracle = oracle or spec.oracle
    if ndoc is None:
        ndoc = spec.ndoc
    # The variant whose file the samples' prompts are built from, by the task or the solver.
    variant: PromptVariant = spec.prompt or prompt
    use_shorter = resolve_use_shorter(strategy, dataset, use_shorter, ndoc)
    if variant == "sum_or_ext" and use_shorter is None:
        use_shorter = "summary"
    if variant != "sum_or_ext" and use_shorter is not None and spec.task_prompt:
        raise AlceTaskError(
            f"-T use_shorter={use_shorter}: use_shorter={use_shorter!r} needs "
            f"prompt=sum_or_ext, got prompt={variant!r}"
        )
    demo_docs = 0 if no_doc_in_demo else ndoc_in_demo
    # retriever and oracle choose among the pinned files; a local dataset_path is taken as given.
    data_name = eval_file_name(dataset, retriever, oracle) if dataset_path is None else None
    # Every file and model the run needs, all problems in one message; the pinned data (a
    # 451 MB download on first use) is fetched by alce_dataset once nothing else is missing.
    inputs = check_inputs(
        dataset,
        data_name=data_name,
        variant=variant,
        shot=shot,
        dataset_path=dataset_path,
        prompt_file=prompt_file,
        models=lambda: preflight_models(
            strategy,
            nli,
            retrieval_model,
            qa_model if qa else None,
            mauve_model if mauve else None,
        ),
    )
    ds, info = alce_dataset(
        dataset,
        inputs,
        data_name=data_name,
        retriever=retriever,
        oracle=oracle,
        ndoc=ndoc,
        seed=seed,
        shot=shot,
        prompt=variant,
        prompt_file=prompt_file,
        use_shorter=use_shorter,
        dataset_path=dataset_path,
        pool=spec.pool,
        build_prompts=spec.task_prompt,
        ndoc_in_demo=demo_docs,
        quick_test=quick_test,
    )
    interactive = spec.run_py in ("doc_id", "search")
    resolved = {
        "ndoc": ndoc,
        "oracle": oracle,
        "use_shorter": use_shorter,
        "chat": chat,
        "retrieve_in_all_docs": (
            (retrieve_in_all_docs is not False) if spec.run_py == "search" else False
        ),
        "force_cite_show": (
            bool(force_cite_show if force_cite_show is not None else spec.run_py == "search")
            if interactive
            else False
        ),
    }
    info["parameters"] = recorded_options(
        given,
        # The dataset's values win: the prompt file read, the demonstrations drawn.
        **{**resolved, **info["parameters"]},
        config=settings.record["name"] if settings is not None else None,
        max_tokens=generate_config.max_tokens,
    )
    info["config"] = None
    if settings is not None:
        overrides |= generate_overrides(settings, eval_generate_config())
        info["config"] = {**settings.record, "overrides": overrides}
    scorers: list[Scorer] = [
        alce_correctness(dataset),
        citation_nli(nli=nli, dataset=dataset, diagnose=diagnose),
    ]
    if dataset == "eli5":
        scorers.append(claim_coverage(nli=nli))
    if qa:
        scorers.append(alce_qa(qa_model=qa_model))
    if mauve:
        scorers.append(mauve_scorer(mauve_model=mauve_model, mauve_seeds=mauve_seeds))
    if strategy == "native":
        scorers.append(native_counts())
    if strategy == "agent":
        scorers.append(source_support(nli=nli))
    solver = strategy_solver(
        strategy,
        StrategySettings.pick(
            {
                **given,
                **resolved,
                "ndoc_in_demo": demo_docs,
                "system_message": ALCE_SYSTEM_MESSAGE if chat else None,
            }
        ),
    )
    if not chat:
        solver = alce_raw_prompt(solver, max_length=max_length)
    return Task(
        dataset=ds,
        solver=solver,
        scorer=scorers,
        config=generate_config,
        version=ALCE_TASK_VERSION,
        # Epochs reduce as Inspect's mean, keeping each epoch's judged shares (-S calibration).
        epochs=Epochs(1, epoch_mean()),
        metadata=info,
    )
