"""The LongBench-Cite task builder: data, the one-shot solver and LongCite's scorers."""

from collections import Counter
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from inspect_cite import __version__
from inspect_cite.checks.errors import Refusals
from inspect_cite.checks.run import check_role
from inspect_cite.downloads.hub_files import dataset_file
from inspect_cite.longcite.files import LongciteDataError, longbench_cite_data
from inspect_cite.longcite.prompts import citation_prompts, correctness_prompts, one_shot_prompt
from inspect_cite.longcite.tokenizer import check_tokenizer
from inspect_cite.options.task_options import recorded_options, unique_sample_ids
from longcite_tasks.data import item_samples, read_items
from longcite_tasks.options import resolve
from scorers import epoch_mean
from scorers.longcite_citation import longcite_citation
from scorers.longcite_correctness import longcite_correctness
from solvers.longcite_one_shot import longcite_one_shot

# Bump when a change to data handling, prompts or scoring can move the numbers.
LONGBENCH_CITE_TASK_VERSION = 2


def _load(
    dataset_path: str | None, names: list[str] | None
) -> tuple[MemoryDataset, dict[str, Any]]:
    path, provenance = dataset_file(dataset_path, longbench_cite_data, LongciteDataError)
    items = read_items(path)
    if names is not None:
        items = [item for item in items if item["dataset"] in names]
    if not items:
        raise LongciteDataError(
            f"{path}: no items to run"
            + (f" of the datasets {', '.join(names)} (-T datasets)" if names else "")
        )
    samples = unique_sample_ids(item_samples(items))
    counts = dict(Counter(str(item["dataset"]) for item in items))
    return MemoryDataset(samples, name="longbench_cite"), {"data": provenance, "counts": counts}


def longcite_task(**given: Any) -> Task:
    """Build LongBench-Cite's task from its options (``LongciteOptions``).

    The options are checked first (one line naming the flag); then the data, the prompt
    files, the grader role and the scorers' models are checked together, in one refusal,
    before any sample is generated.
    """
    refusals = Refusals()
    run = resolve(given, refusals)
    options = run.options
    loaded = solver = None
    scorers: list[Scorer] = []
    with refusals.check():
        loaded = _load(options.dataset_path, run.datasets)
    with refusals.check():
        solver = longcite_one_shot(prompt_file=options.prompt_file, thinking=options.thinking)
    with refusals.check():
        check_role(
            ["grader"],
            what="longcite_tasks/longbench_cite",
            fix="Pass --model-role grader=<model> (LongCite used gpt-4o-2024-05-13)",
            # LongCite's scripts ask the grader at temperature 0 first (scorers/longcite_*).
            temperature=0.0,
        )
    with refusals.check():
        check_tokenizer(options.tokenizer)
    with refusals.check():
        scorers.append(
            longcite_citation(
                tokenizer=options.tokenizer,
                trust_remote_code=options.trust_remote_code,
                strict=options.strict,
            )
        )
    with refusals.check():
        if options.correctness:
            scorers.append(longcite_correctness(strict=options.strict))
    refusals.raise_any()
    assert loaded is not None and solver is not None
    dataset, info = loaded
    solvers: list[Solver] = [solver]
    # Where each prompt came from (LongCite's files at the pinned commit, or one's own).
    info["prompts"] = {
        "one_shot": one_shot_prompt(options.prompt_file).provenance,
        "citation_grader": citation_prompts().provenance,
        **({"correctness_grader": correctness_prompts().provenance} if options.correctness else {}),
    }
    return Task(
        dataset=dataset,
        solver=solvers,
        scorer=scorers,
        config=run.config,
        # --epochs N: each key the mean over epochs, citation_length over their citations.
        epochs=Epochs(1, epoch_mean()),
        version=LONGBENCH_CITE_TASK_VERSION,
        metadata={
            "inspect_cite_version": __version__,
            "benchmark": "longbench_cite",
            **info,
            "parameters": recorded_options(given, omit=("dataset_path",), datasets=run.datasets),
        },
    )
