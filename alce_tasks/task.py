"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from alce_tasks.data import (
    ALCE_DATA_HUB,
    AlceDataError,
    Retriever,
    alce_data_path,
    eval_file_name,
    load_items,
    record_to_sample,
)
from inspect_cite import __version__
from inspect_cite.alce_prompts import (
    AlceDatasetName,
    AlcePromptBuilder,
    PromptFile,
    PromptVariant,
    UseShorter,
    load_prompt_file,
    prompt_provenance,
)
from inspect_cite.errors import PreflightError
from inspect_cite.http_client import redact_text
from inspect_cite.hub_files import check_dataset_path, dataset_file
from inspect_cite.preflight import (
    active_model_name,
    check_model,
    check_native_citations,
    check_nli,
)
from inspect_cite.retrieval import GTR_RETRIEVER, check_retriever
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.mauve import mauve as mauve_scorer
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from solvers import (
    alce_closedbook,
    alce_inlinesearch,
    alce_interact,
    alce_postcite,
    alce_rerank,
    alce_snippet,
    alce_summ,
    alce_vanilla,
    constrained_citations,
)
from solvers.agent import agent_citations
from solvers.native import NATIVE_FIX, native_citations

# Bump when a change to data handling, prompts or scoring can move the numbers.
ALCE_TASK_VERSION = 1

TaskPrompt = Literal["default", "light_inst", "closedbook", "sum_or_ext"]
"""The ALCE prompt variants a task's ``prompt`` parameter accepts."""

Strategy = Literal[
    "vanilla",
    "closedbook",
    "summ",
    "snippet",
    "oracle",
    "rerank",
    "postcite",
    "interact",
    "inlinesearch",
    "prompt",
    "constrained",
    "posthoc",
    "native",
    "agent",
]
"""The names of :data:`STRATEGIES` (its docstring says what each means)."""


@dataclass(frozen=True)
class StrategySettings:
    """The task parameters a strategy's solver is built with."""

    ndoc: int
    shot: int
    seed: int
    nli: str
    prompt_file: str | None
    retrieval_model: str
    thinking: bool

    @classmethod
    def pick(cls, parameters: Mapping[str, Any]) -> "StrategySettings":
        """The settings, taken by name from the task's parameters.

        Args:
            parameters: The task's parameters by name (others are ignored).

        """
        return cls(**{field.name: parameters[field.name] for field in fields(cls)})


@dataclass(frozen=True)
class AlceStrategy:
    """How one ALCE strategy generates answers, and what the task prepares for it.

    Attributes:
        solver: Builds the strategy's solver from the task's settings.
        ndoc: Documents shown per question by default (the paper's settings for ChatGPT).
        prompt: The prompt file variant the solver reads itself, lazily, once it knows the
            dataset (the task fetches it before the run); None: the solver sends the task's.
        task_prompt: Whether the task builds the sample's prompt (`prompt`'s variant with
            `ndoc` documents, the sample input). When False the solver builds its own prompt
            from the question and documents, so the task does not build one (the sample input
            is the question): each sample's prompt is built once.
        pool: Whether the solver chooses among the item's whole retrieval list itself: the
            sample carries every retrieved document in ``metadata["docs"]``.
        retrieval: Whether the solver retrieves documents with `retrieval_model`.
        oracle: Whether the strategy reads ALCE's reranked oracle file.
        reads_prompt_file: Whether the solver reads the task's `prompt_file` (instead of the
            official file of its `prompt` variant).

    """

    solver: Callable[[StrategySettings], Solver]
    ndoc: int = 5
    prompt: PromptVariant | None = None
    task_prompt: bool = True
    pool: bool = False
    retrieval: bool = False
    oracle: bool = False
    reads_prompt_file: bool = True


def _vanilla(s: StrategySettings) -> Solver:
    return alce_vanilla(thinking=s.thinking)


def _selecting(factory: Callable[..., Solver]) -> Callable[[StrategySettings], Solver]:
    # SUMM, SNIPPET and INTERACT select up to ndoc documents from the pool with their prompt.
    return lambda s: factory(
        ndoc=s.ndoc, shot=s.shot, seed=s.seed, prompt_file=s.prompt_file, thinking=s.thinking
    )


def _own_prompt(
    solver: Callable[[StrategySettings], Solver], prompt: PromptVariant, **row: Any
) -> AlceStrategy:
    # A solver that builds its own prompt from the question and its pool of documents.
    return AlceStrategy(solver, prompt=prompt, task_prompt=False, pool=True, **row)


STRATEGIES: dict[Strategy, AlceStrategy] = {
    "vanilla": AlceStrategy(_vanilla),
    "closedbook": AlceStrategy(
        lambda s: alce_closedbook(
            shot=s.shot, seed=s.seed, prompt_file=s.prompt_file, thinking=s.thinking
        ),
        ndoc=0,
        prompt="closedbook",
        task_prompt=False,
    ),
    "summ": _own_prompt(_selecting(alce_summ), "sum_or_ext", ndoc=10),
    "snippet": _own_prompt(_selecting(alce_snippet), "sum_or_ext", ndoc=10),
    "oracle": AlceStrategy(_vanilla, oracle=True),
    "rerank": AlceStrategy(lambda s: alce_rerank(n=4, nli=s.nli, thinking=s.thinking)),
    "postcite": _own_prompt(
        lambda s: alce_postcite(
            base="closedbook", retriever=s.retrieval_model, thinking=s.thinking
        ),
        "closedbook",
        retrieval=True,
        # The closed-book base reads the official (or INSPECT_CITE_ALCE_PROMPT_DIR's) file.
        reads_prompt_file=False,
    ),
    "interact": _own_prompt(_selecting(alce_interact), "interact_doc_id", ndoc=10),
    "inlinesearch": _own_prompt(
        lambda s: alce_inlinesearch(
            shot=s.shot,
            seed=s.seed,
            prompt_file=s.prompt_file,
            retriever=s.retrieval_model,
            thinking=s.thinking,
        ),
        "interact_search",
        retrieval=True,
    ),
    "prompt": AlceStrategy(_vanilla),
    "constrained": AlceStrategy(
        lambda s: constrained_citations(format="alce", thinking=s.thinking)
    ),
    "posthoc": AlceStrategy(
        lambda s: alce_postcite(base="vanilla", retriever=s.retrieval_model, thinking=s.thinking),
        retrieval=True,
    ),
    # The solver sends the shown documents as documents (no demonstrations): its own prompt.
    "native": AlceStrategy(
        lambda s: native_citations(format="alce", thinking=s.thinking), task_prompt=False
    ),
    # The tools search the item's whole retrieval list.
    "agent": AlceStrategy(
        lambda s: agent_citations(format="alce", thinking=s.thinking),
        task_prompt=False,
        pool=True,
    ),
}
"""ALCE's strategies, one row each: the one place the task reads a strategy's needs from.

ALCE's baselines (paper, Section 4) plus the FullCite strategy names: `prompt` = VANILLA,
`constrained` = VANILLA's prompt under a ``[1]``..``[ndoc]`` grammar, and `posthoc` = ALCE's
POSTCITE after VANILLA (each uncited statement cited with its most similar shown document).
`native` sends the shown documents as documents and writes the provider's own citations as
``[n]``; `agent` shows none and gives the model ``search``/``read`` tools over the item's
retrieval list (docs/native.md).
On the FullCite tasks `posthoc` means something else: Jaccard alignment of snippets
(``fullcite_tasks.task``).
"""

# ALCE's defaults for ChatGPT in the paper: temperature 0.5, top_p 1.0, at most 300 new tokens.
ALCE_GENERATE_CONFIG = GenerateConfig(temperature=0.5, top_p=1.0, max_tokens=300)


class AlceTaskError(PreflightError, ValueError):
    """An ALCE task was given parameters it cannot run with."""


def alce_dataset(
    dataset: AlceDatasetName,
    retriever: Retriever,
    oracle: bool,
    ndoc: int,
    shot: int,
    seed: int,
    prompt: PromptVariant,
    use_shorter: UseShorter | None,
    dataset_path: str | None,
    prompt_file: str | None,
    pool: bool = False,
    build_prompts: bool = True,
) -> tuple[MemoryDataset, dict[str, Any]]:
    """Load ALCE items, build every prompt, and describe what was loaded for the log.

    With ``pool`` a sample keeps the item's whole retrieval list; without ``build_prompts``
    its input is the question (its solver builds the prompt).
    """
    if prompt == "sum_or_ext" and use_shorter is None:
        use_shorter = "summary"
    if prompt != "sum_or_ext" and use_shorter is not None:
        raise AlceTaskError(
            f"-T use_shorter={use_shorter}: use_shorter={use_shorter!r} needs "
            f"prompt=sum_or_ext, got prompt={prompt!r}"
        )

    def pinned() -> tuple[Path, dict[str, Any]]:
        # retriever/oracle choose among the pinned files; a local dataset_path is taken as given.
        name = eval_file_name(dataset, retriever, oracle)
        return alce_data_path(name), ALCE_DATA_HUB.provenance(name)

    data_path, data_info = dataset_file(dataset_path, pinned, AlceDataError)
    items = load_items(data_path, dataset)

    pf = load_prompt_file(dataset, prompt, prompt_file=prompt_file)
    builder = AlcePromptBuilder(pf, shot=shot, ndoc=ndoc, seed=seed, use_shorter=use_shorter)
    samples = [
        record_to_sample(
            item,
            i,
            dataset,
            builder.build(item) if build_prompts else item["question"],
            item["docs"] if pool else builder.docs(item),
        )
        for i, item in enumerate(items)
    ]
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        for i, s in enumerate(samples):
            s.id = f"{s.id}-{i}"
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "alce",
        "dataset": dataset,
        "data": data_info,
        "prompt_file": prompt_provenance(dataset, prompt, prompt_file=prompt_file),
        "parameters": {
            "retriever": retriever,
            "oracle": oracle,
            "ndoc": ndoc,
            "shot": shot,
            "seed": seed,
            "prompt": prompt,
            "use_shorter": use_shorter,
            "demo_ids": builder.demo_ids,
        },
    }
    return MemoryDataset(samples, name=f"alce_{dataset}", location=str(data_path)), info


def strategy_solver(strategy: Strategy, settings: StrategySettings) -> Solver:
    """The solver that implements a strategy, with the task's settings."""
    return STRATEGIES[strategy].solver(settings)


def unknown_strategy(strategy: str) -> AlceTaskError:
    """The error for a strategy name that is not one of ``Strategy``."""
    return AlceTaskError(
        f"-T strategy={strategy}: unknown strategy; use one of {', '.join(get_args(Strategy))}"
    )


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
            :data:`STRATEGIES`: 5; the paper's 10 for `summ`, `snippet` and `interact`, 0 for
            `closedbook`).
        shot: Number of demonstrations, drawn from the prompt file with `seed` as run.py does.
        seed: Seed for the demonstration draw (`np.random.seed` + `np.random.choice`).
        prompt: ALCE prompt variant (`closedbook` shows no documents; `sum_or_ext` shows
            each document's summary or extraction, see `use_shorter`).
        use_shorter: With `prompt=sum_or_ext`: `summary` (default) or `extraction`.
        dataset_path: An ALCE-format JSON list to use instead of the pinned download.
        prompt_file: An ALCE-format prompt file to use instead of the official one.
        nli: NLI model judging citations, one of the spec forms listed in
            :mod:`inspect_cite.nli` (default `true`: ALCE's T5-11B TRUE model, needs a GPU
            with ~23 GB). Decisions are cached on disk when `INSPECT_CITE_NLI_CACHE` names a
            SQLite file.
        strategy: How answers are generated, one of :data:`STRATEGIES`: ALCE's baselines
            `vanilla`, `closedbook`, `summ`, `snippet`, `oracle`, `rerank`, `postcite`,
            `interact`, `inlinesearch`, or the FullCite names `prompt` (= vanilla),
            `constrained` (vanilla's prompt under a grammar allowing only [1]..[ndoc] after
            statements) and `posthoc` (ALCE's POSTCITE after vanilla); `native` (the provider's
            own document citations, written as [n]: anthropic/ models) and `agent` (the model
            finds documents with search and read tools; see docs/native.md).
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

    """
    # The arguments as given: the solver's settings are picked from them, and the log's
    # metadata records them (with the values resolved below, and nli redacted).
    given = {name: value for name, value in locals().items() if name != "dataset"}
    config = thinking_generate_config(ALCE_GENERATE_CONFIG, thinking, thinking_tokens)
    if strategy not in get_args(Strategy):
        raise unknown_strategy(strategy)
    for name, value in (("ndoc", ndoc), ("shot", shot)):
        if value is not None and value < 0:
            raise AlceTaskError(f"-T {name}={value}: must be 0 or more")
    if prompt not in get_args(TaskPrompt):
        raise AlceTaskError(
            f"-T prompt={prompt}: unknown prompt variant; use one of "
            f"{', '.join(get_args(TaskPrompt))} (or -T prompt_file=FILE for your own)"
        )
    if qa and dataset != "asqa":
        raise AlceTaskError("-T qa=true needs ASQA's qa_pairs (eval.py computes QA only for ASQA)")
    if isinstance(mauve_seeds, bool) or not isinstance(mauve_seeds, int) or mauve_seeds < 1:
        raise AlceTaskError(f"-T mauve_seeds={mauve_seeds}: must be a whole number of at least 1")
    if mauve and dataset == "qampari":
        raise AlceTaskError("-T mauve=true: eval.py does not compute MAUVE for QAMPARI lists")
    # The user's own files first (instant, and a typo is the likeliest problem), then the
    # models, then the pinned data and prompts (a 451 MB download on first use).
    if dataset_path is not None:
        check_dataset_path(dataset_path, AlceDataError)
    if prompt_file is not None:
        PromptFile.load(prompt_file)
    preflight_models(
        strategy, nli, retrieval_model, qa_model if qa else None, mauve_model if mauve else None
    )
    spec = STRATEGIES[strategy]
    oracle = oracle or spec.oracle
    if ndoc is None:
        ndoc = spec.ndoc
    variant: PromptVariant = prompt
    if not spec.pool and spec.prompt is not None and prompt == "default":
        # The task shows (and logs) the documents and prompt file of the solver's variant.
        variant = spec.prompt
    ds, info = alce_dataset(
        dataset,
        retriever,
        oracle,
        ndoc,
        shot,
        seed,
        variant,
        use_shorter,
        dataset_path,
        # A strategy with its own prompt variant reads prompt_file itself.
        prompt_file if spec.prompt is None else None,
        pool=spec.pool,
        build_prompts=spec.task_prompt,
    )
    if spec.prompt is not None:
        # The strategy's solver reads its prompt file only once it sees a sample: read (and
        # fetch) it now, so that a missing or unreachable file stops the run here.
        # (A -T prompt_file it reads instead was loaded above.)
        if prompt_file is None or not spec.reads_prompt_file:
            load_prompt_file(dataset, spec.prompt)
    info["parameters"] = {
        **given,
        # The dataset's values win: ndoc and oracle as the strategy resolved them, demo_ids.
        **info["parameters"],
        # Only the log's copy: the solver needs the spec with its credentials.
        "nli": redact_text(nli),
        "max_tokens": config.max_tokens,
    }
    scorers: list[Scorer] = [alce_correctness(dataset), citation_nli(nli=nli, dataset=dataset)]
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
        StrategySettings.pick({**given, "ndoc": ndoc}),
    )
    return Task(
        dataset=ds,
        solver=solver,
        scorer=scorers,
        config=config,
        version=ALCE_TASK_VERSION,
        metadata=info,
    )
