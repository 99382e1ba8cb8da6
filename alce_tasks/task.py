"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from alce_tasks.data import (
    ALCE_DATA_REPO,
    ALCE_DATA_REVISION,
    AlceDataError,
    Retriever,
    alce_data_path,
    eval_file_name,
    load_items,
    record_to_sample,
)
from inspect_cite import __version__
from inspect_cite.alce_prompts import (
    ALCE_PROMPT_COMMIT,
    PROMPT_SHA256,
    AlceDatasetName,
    AlcePromptBuilder,
    PromptFile,
    PromptVariant,
    UseShorter,
    alce_prompt_path,
    prompt_dir_override,
    prompt_name,
)
from inspect_cite.download import sha256_file
from inspect_cite.errors import PreflightError
from inspect_cite.http_client import redact_text
from inspect_cite.preflight import check_model, check_nli
from inspect_cite.retrieval import GTR_RETRIEVER, check_retriever
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from scorers.mauve import mauve as mauve_scorer
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

# Bump when a change to data handling, prompts or scoring can move the numbers.
ALCE_TASK_VERSION = 1

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
]
"""ALCE's baselines (paper, Section 4) plus the FullCite strategy names (prompt = vanilla,
constrained = vanilla's prompt under a [1]..[ndoc] grammar, posthoc = POSTCITE after vanilla)."""

# Default number of documents per strategy (the paper's settings for ChatGPT).
STRATEGY_NDOC: dict[str, int] = {"summ": 10, "snippet": 10, "interact": 10, "closedbook": 0}

# Strategies whose solver chooses among the item's retrieved documents itself: the sample
# carries the whole retrieval list in metadata["docs"] and the solver narrows it.
POOL_STRATEGIES = ("summ", "snippet", "interact", "inlinesearch", "postcite")

# Strategies whose solver retrieves documents with `retrieval_model`.
RETRIEVAL_STRATEGIES = ("postcite", "posthoc", "inlinesearch")

# The prompt file each strategy's own solver reads (lazily, once it knows the dataset).
SOLVER_PROMPTS: dict[str, PromptVariant] = {
    "closedbook": "closedbook",
    "summ": "sum_or_ext",
    "snippet": "sum_or_ext",
    "interact": "interact_doc_id",
    "inlinesearch": "interact_search",
    "postcite": "closedbook",
}

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
) -> tuple[MemoryDataset, dict[str, Any]]:
    """Load ALCE items, build every prompt, and describe what was loaded for the log."""
    if prompt == "sum_or_ext" and use_shorter is None:
        use_shorter = "summary"
    if prompt != "sum_or_ext" and use_shorter is not None:
        raise AlceTaskError(
            f"-T use_shorter={use_shorter}: use_shorter={use_shorter!r} needs "
            f"prompt=sum_or_ext, got prompt={prompt!r}"
        )

    if dataset_path is not None:
        data_path = Path(dataset_path)
        data_info: dict[str, Any] = {"path": str(data_path)}
    else:
        name = eval_file_name(dataset, retriever, oracle)
        data_path = alce_data_path(name)
        data_info = {"repo": ALCE_DATA_REPO, "revision": ALCE_DATA_REVISION, "file": name}
    check_dataset_path(data_path)
    items = load_items(data_path, dataset)
    data_info["sha256"] = sha256_file(data_path)

    if prompt_file is not None:
        pf = PromptFile.load(prompt_file)
        prompt_info: dict[str, Any] = {
            "path": prompt_file,
            "sha256": sha256_file(Path(prompt_file)),
        }
    else:
        name = prompt_name(dataset, prompt)
        path = alce_prompt_path(name)
        pf = PromptFile.load(path)
        if prompt_dir_override() is not None:
            prompt_info = {"path": str(path), "sha256": sha256_file(path)}
        else:
            prompt_info = {
                "commit": ALCE_PROMPT_COMMIT,
                "file": f"prompts/{name}.json",
                "sha256": PROMPT_SHA256[name],
            }

    builder = AlcePromptBuilder(pf, shot=shot, ndoc=ndoc, seed=seed, use_shorter=use_shorter)
    samples = [
        record_to_sample(
            item, i, dataset, builder.build(item), item["docs"] if pool else builder.docs(item)
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
        "prompt_file": prompt_info,
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


def strategy_solver(
    strategy: Strategy,
    ndoc: int,
    shot: int,
    seed: int,
    nli: str,
    prompt_file: str | None,
    retrieval_model: str = GTR_RETRIEVER,
    thinking: bool = False,
) -> Solver:
    """The solver that implements a strategy, with the task's settings."""
    match strategy:
        case "vanilla" | "prompt" | "oracle":
            return alce_vanilla(thinking=thinking)
        case "closedbook":
            return alce_closedbook(shot=shot, seed=seed, prompt_file=prompt_file, thinking=thinking)
        case "summ":
            return alce_summ(
                ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file, thinking=thinking
            )
        case "snippet":
            return alce_snippet(
                ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file, thinking=thinking
            )
        case "rerank":
            return alce_rerank(n=4, nli=nli, thinking=thinking)
        case "postcite":
            return alce_postcite(base="closedbook", retriever=retrieval_model, thinking=thinking)
        case "posthoc":
            return alce_postcite(base="vanilla", retriever=retrieval_model, thinking=thinking)
        case "interact":
            return alce_interact(
                ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file, thinking=thinking
            )
        case "inlinesearch":
            return alce_inlinesearch(
                shot=shot,
                seed=seed,
                prompt_file=prompt_file,
                retriever=retrieval_model,
                thinking=thinking,
            )
        case "constrained":
            return constrained_citations(format="alce", thinking=thinking)
    raise unknown_strategy(strategy)


def check_dataset_path(path: str | Path) -> None:
    """Refuse a dataset file that does not exist, naming the flag."""
    if not Path(path).exists():
        raise AlceDataError(f"dataset file {path} does not exist (-T dataset_path)")


def unknown_strategy(strategy: str) -> AlceTaskError:
    """The error for a strategy name that is not one of ``Strategy``."""
    return AlceTaskError(
        f"-T strategy={strategy}: unknown strategy; use one of {', '.join(get_args(Strategy))}"
    )


def preflight_models(
    strategy: str,
    nli: str,
    retrieval_model: str,
    qa_model: str | None,
    mauve_model: str | None,
) -> None:
    """Refuse, before any generation, a model the task will need that cannot be loaded here."""
    check_nli(nli, flag="-T nli")
    if strategy in RETRIEVAL_STRATEGIES:
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
    retriever: Retriever,
    oracle: bool,
    ndoc: int | None,
    shot: int,
    seed: int,
    prompt: PromptVariant,
    use_shorter: UseShorter | None,
    dataset_path: str | None,
    prompt_file: str | None,
    nli: str = "true",
    strategy: Strategy = "vanilla",
    qa: bool = False,
    qa_model: str = "gaotianyu1350/roberta-large-squad",
    mauve: bool = False,
    mauve_model: str = "gpt2-large",
    mauve_seeds: int = 1,
    retrieval_model: str = GTR_RETRIEVER,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    """Build an ALCE task; the @task functions only fix the dataset and document parameters.

    Scorers: correctness and NLI citation recall/precision; ELI5 adds claim coverage; ASQA adds
    QA accuracy with ``qa``; ASQA and ELI5 add MAUVE with ``mauve``. Answers are generated
    with chat-template thinking off unless ``thinking`` (then ``max_tokens`` grows by
    ``thinking_tokens``; see ``inspect_cite.thinking``).
    """
    config = thinking_generate_config(ALCE_GENERATE_CONFIG, thinking, thinking_tokens)
    if strategy not in get_args(Strategy):
        raise unknown_strategy(strategy)
    if qa and dataset != "asqa":
        raise AlceTaskError("-T qa=true needs ASQA's qa_pairs (eval.py computes QA only for ASQA)")
    if mauve and dataset == "qampari":
        raise AlceTaskError("-T mauve=true: eval.py does not compute MAUVE for QAMPARI lists")
    # The user's own files first (instant, and a typo is the likeliest problem), then the
    # models, then the pinned data and prompts (a 451 MB download on first use).
    if dataset_path is not None:
        check_dataset_path(dataset_path)
    if prompt_file is not None:
        PromptFile.load(prompt_file)
    preflight_models(
        strategy, nli, retrieval_model, qa_model if qa else None, mauve_model if mauve else None
    )
    if strategy == "oracle":
        oracle = True
    if ndoc is None:
        ndoc = STRATEGY_NDOC.get(strategy, 5)
    if strategy == "closedbook" and prompt == "default":
        prompt = "closedbook"
    pool = strategy in POOL_STRATEGIES
    ds, info = alce_dataset(
        dataset,
        retriever,
        oracle,
        ndoc,
        shot,
        seed,
        prompt,
        use_shorter,
        dataset_path,
        # Pool strategies build their own prompts; the task's builder still shows vanilla's.
        prompt_file if not pool and strategy != "closedbook" else None,
        pool=pool,
    )
    variant = SOLVER_PROMPTS.get(strategy)
    if variant is not None:
        # The strategy's solver reads its prompt file only once it sees a sample: read (and
        # fetch) it now, so that a missing or unreachable file stops the run here.
        if prompt_file is not None and strategy != "postcite":
            PromptFile.load(prompt_file)
        else:
            alce_prompt_path(prompt_name(dataset, variant))
    info["parameters"].update(
        nli=redact_text(nli),
        strategy=strategy,
        qa=qa,
        mauve=mauve,
        mauve_model=mauve_model,
        thinking=thinking,
        thinking_tokens=thinking_tokens,
        max_tokens=config.max_tokens,
    )
    scorers: list[Scorer] = [alce_correctness(dataset), citation_nli(nli=nli, dataset=dataset)]
    if dataset == "eli5":
        scorers.append(claim_coverage(nli=nli))
    if qa:
        scorers.append(alce_qa(qa_model=qa_model))
    if mauve:
        scorers.append(mauve_scorer(mauve_model=mauve_model, mauve_seeds=mauve_seeds))
    solver = strategy_solver(
        strategy, ndoc, shot, seed, nli, prompt_file, retrieval_model, thinking=thinking
    )
    return Task(
        dataset=ds,
        solver=solver,
        scorer=scorers,
        config=config,
        version=ALCE_TASK_VERSION,
        metadata=info,
    )
