"""The shared body of the three ALCE tasks: data, prompts, solver and scorers wired together."""

from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig

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
    official_prompt_path,
    prompt_name,
)
from inspect_cite import __version__
from inspect_cite.download import sha256_file
from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from solvers.alce import alce_vanilla

# Bump when a change to data handling, prompts or scoring can move the numbers.
ALCE_TASK_VERSION = 1

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
        pf = PromptFile.load(official_prompt_path(name))
        prompt_info = {
            "commit": ALCE_PROMPT_COMMIT,
            "file": f"prompts/{name}.json",
            "sha256": PROMPT_SHA256[name],
        }

    builder = AlcePromptBuilder(pf, shot=shot, ndoc=ndoc, seed=seed, use_shorter=use_shorter)
    items = load_items(data_path, dataset)
    samples = [
        record_to_sample(item, i, dataset, builder.build(item), builder.docs(item))
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


def alce_task(
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
    nli: str = "true",
) -> Task:
    """Build an ALCE task; the @task functions only fix the dataset and document parameters.

    Scorers: correctness and NLI citation recall/precision; ELI5 adds claim coverage.
    """
    ds, info = alce_dataset(
        dataset, retriever, oracle, ndoc, shot, seed, prompt, use_shorter, dataset_path, prompt_file
    )
    info["parameters"]["nli"] = nli
    scorers = [alce_correctness(dataset), citation_nli(nli=nli, dataset=dataset)]
    if dataset == "eli5":
        scorers.append(claim_coverage(nli=nli))
    return Task(
        dataset=ds,
        solver=alce_vanilla(),
        scorer=scorers,
        config=ALCE_GENERATE_CONFIG,
        version=ALCE_TASK_VERSION,
        metadata=info,
    )
