"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from alce_tasks.data import (
    ALCE_DATA_REPO,
    ALCE_DATA_REVISION,
    AlceDataError,
    AlceDatasetName,
    Retriever,
    alce_data_path,
    eval_file_name,
    load_items,
    record_to_sample,
)
from alce_tasks.prompts import (
    ALCE_PROMPT_COMMIT,
    PROMPT_SHA256,
    AlcePromptBuilder,
    PromptFile,
    PromptVariant,
    UseShorter,
    alce_prompt_path,
    prompt_dir_override,
    prompt_name,
)
from inspect_cite import __version__
from inspect_cite.download import sha256_file
from inspect_cite.retrieval import GTR_RETRIEVER
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

# ALCE's defaults for ChatGPT in the paper: temperature 0.5, top_p 1.0, at most 300 new tokens.
ALCE_GENERATE_CONFIG = GenerateConfig(temperature=0.5, top_p=1.0, max_tokens=300)


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
        raise ValueError(
            f"use_shorter={use_shorter!r} needs prompt=sum_or_ext, got prompt={prompt!r}"
        )

    if dataset_path is not None:
        data_path = Path(dataset_path)
        data_info: dict[str, Any] = {"path": str(data_path)}
    else:
        name = eval_file_name(dataset, retriever, oracle)
        data_path = alce_data_path(name)
        data_info = {"repo": ALCE_DATA_REPO, "revision": ALCE_DATA_REVISION, "file": name}
    if not data_path.exists():
        raise AlceDataError(f"dataset file {data_path} does not exist (-T dataset_path)")
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
    items = load_items(data_path, dataset)
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
) -> Solver:
    """The solver that implements a strategy, with the task's settings."""
    match strategy:
        case "vanilla" | "prompt" | "oracle":
            return alce_vanilla()
        case "closedbook":
            return alce_closedbook(shot=shot, seed=seed, prompt_file=prompt_file)
        case "summ":
            return alce_summ(ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file)
        case "snippet":
            return alce_snippet(ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file)
        case "rerank":
            return alce_rerank(n=4, nli=nli)
        case "postcite":
            return alce_postcite(base="closedbook", retriever=retrieval_model)
        case "posthoc":
            return alce_postcite(base="vanilla", retriever=retrieval_model)
        case "interact":
            return alce_interact(ndoc=ndoc, shot=shot, seed=seed, prompt_file=prompt_file)
        case "inlinesearch":
            return alce_inlinesearch(
                shot=shot, seed=seed, prompt_file=prompt_file, retriever=retrieval_model
            )
        case "constrained":
            return constrained_citations(format="alce")
    raise ValueError(f"unknown strategy {strategy!r}")


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
) -> Task:
    """Build an ALCE task; the @task functions only fix the dataset and document parameters.

    Scorers: correctness and NLI citation recall/precision; ELI5 adds claim coverage; ASQA adds
    QA accuracy with ``qa``; ASQA and ELI5 add MAUVE with ``mauve``.
    """
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
    info["parameters"].update(
        nli=nli, strategy=strategy, qa=qa, mauve=mauve, mauve_model=mauve_model
    )
    scorers: list[Scorer] = [alce_correctness(dataset), citation_nli(nli=nli, dataset=dataset)]
    if dataset == "eli5":
        scorers.append(claim_coverage(nli=nli))
    if qa:
        if dataset != "asqa":
            raise ValueError("qa=true needs ASQA's qa_pairs (eval.py computes QA only for ASQA)")
        scorers.append(alce_qa(qa_model=qa_model))
    if mauve:
        if dataset == "qampari":
            raise ValueError("mauve=true: eval.py does not compute MAUVE for QAMPARI lists")
        scorers.append(mauve_scorer(mauve_model=mauve_model, mauve_seeds=mauve_seeds))
    solver = strategy_solver(strategy, ndoc, shot, seed, nli, prompt_file, retrieval_model)
    return Task(
        dataset=ds,
        solver=solver,
        scorer=scorers,
        config=ALCE_GENERATE_CONFIG,
        version=ALCE_TASK_VERSION,
        metadata=info,
    )
