"""LongBench-Cite: long-document QA in English and Chinese, citing numbered sentence chunks."""

from collections import Counter
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from inspect_cite import __version__
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.errors import Refusals
from inspect_cite.hub_files import dataset_file
from inspect_cite.longcite.datasets import DATASETS
from inspect_cite.longcite.files import LongciteDataError, longbench_cite_data
from inspect_cite.longcite.prompts import citation_prompts, correctness_prompts, one_shot_prompt
from inspect_cite.preflight import check_role, check_sampling, check_thinking_switch
from inspect_cite.task_options import TaskOptionError, recorded_options, unique_sample_ids
from inspect_cite.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from longcite_tasks.data import item_samples, read_items
from scorers.longcite_citation import GLM4_TOKENIZER, longcite_citation
from scorers.longcite_correctness import longcite_correctness
from solvers.longcite_one_shot import longcite_one_shot

# Bump when a change to data handling, prompts or scoring can move the numbers.
LONGBENCH_CITE_TASK_VERSION = 1

# pred_one_shot.py: temperature 1, up to 1024 new tokens.
LONGBENCH_CITE_GENERATE_CONFIG = GenerateConfig(max_tokens=1024, temperature=1.0)


class LongciteTaskError(TaskOptionError):
    """LongBench-Cite was given options it cannot run with."""


def _dataset_names(datasets: str | list[str] | None) -> list[str] | None:
    if datasets is None:
        return None
    names = datasets.split(",") if isinstance(datasets, str) else list(datasets)
    names = [str(n).strip() for n in names if str(n).strip()]
    unknown = [n for n in names if n not in DATASETS]
    if unknown or not names:
        given = ",".join(names) if names else repr(datasets)
        raise LongciteTaskError(
            f"-T datasets={given}: unknown dataset {', '.join(unknown) or '(none given)'}; "
            f"use some of {', '.join(DATASETS)}"
        )
    return names


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


@task
@accept_cli_values("-T")
def longbench_cite(
    dataset_path: str | None = None,
    datasets: str | list[str] | None = None,
    prompt_file: str | None = None,
    correctness: bool = True,
    strict: bool = False,
    tokenizer: str | None = GLM4_TOKENIZER,
    trust_remote_code: bool = False,
    thinking: bool = False,
    thinking_tokens: int = DEFAULT_THINKING_TOKENS,
) -> Task:
    r"""LongBench-Cite (Zhang et al., 2024) as LongCite's one-shot prompt and scripts run it.

    Each question's document is cut into sentence chunks ``<C0>``, ``<C1>``, ... as LongCite
    cuts it; the model answers in ``<statement>...<cite>[a-b]</cite></statement>`` blocks,
    scored for citation recall, precision, F1 and length and for correctness by the
    ``grader`` model role (LongCite used GPT-4o), as LongCite's ``auto_scorer.py`` and
    ``eval_correct.py`` score them (docs/longcite.md).

    Example::

        inspect eval longcite_tasks/longbench_cite --model openai/gpt-4o \
            --model-role grader=openai/gpt-4o -T datasets=hotpotqa,dureader

    Args:
        dataset_path: A local copy of LongBench-Cite's data (``LongBench-Cite.json``)
            instead of the pinned download.
        datasets: Keep only these datasets (``longbench-chat``, ``multifieldqa_en``,
            ``multifieldqa_zh``, ``hotpotqa``, ``dureader``, ``gov_report``; a list or
            comma-separated); all by default.
        prompt_file: A one-shot prompt of one's own (``<<context>>`` and ``<<question>>``
            slots) instead of LongCite's ``one_shot_prompt.txt``.
        correctness: Also grade the answer's correctness (``eval_correct.py``).
        strict: Correct LongCite's scoring defects instead of matching its numbers
            (docs/longcite.md).
        tokenizer: The tokenizer counting ``citation_length`` (LongCite:
            ``THUDM/glm-4-9b-chat``); ``null`` skips it.
        trust_remote_code: Let that tokenizer run code from its repository (GLM-4's needs it;
            without it ``citation_length`` is nan with that reason).
        thinking: Generate answers with the chat template's thinking on (default off;
            ``max_tokens`` grows by ``thinking_tokens``, see ``inspect_cite.thinking``).
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.

    """
    given = dict(locals())
    names = _dataset_names(datasets)
    config = thinking_generate_config(LONGBENCH_CITE_GENERATE_CONFIG, thinking, thinking_tokens)
    check_sampling(config)
    check_thinking_switch(thinking, config)
    refusals = Refusals()
    loaded = solver = None
    scorers: list[Scorer] = []
    with refusals.check():
        loaded = _load(dataset_path, names)
    with refusals.check():
        solver = longcite_one_shot(prompt_file=prompt_file, thinking=thinking)
    with refusals.check():
        check_role(
            ["grader"],
            what="longcite_tasks/longbench_cite",
            fix="Pass --model-role grader=<model> (LongCite used gpt-4o-2024-05-13)",
        )
    with refusals.check():
        scorers.append(
            longcite_citation(
                tokenizer=tokenizer, trust_remote_code=trust_remote_code, strict=strict
            )
        )
    with refusals.check():
        if correctness:
            scorers.append(longcite_correctness(strict=strict))
    refusals.raise_any()
    assert loaded is not None and solver is not None
    dataset, info = loaded
    solvers: list[Solver] = [solver]
    # Where each prompt came from (LongCite's files at the pinned commit, or one's own).
    info["prompts"] = {
        "one_shot": one_shot_prompt(prompt_file).provenance,
        "citation_grader": citation_prompts().provenance,
        **({"correctness_grader": correctness_prompts().provenance} if correctness else {}),
    }
    return Task(
        dataset=dataset,
        solver=solvers,
        scorer=scorers,
        config=config,
        version=LONGBENCH_CITE_TASK_VERSION,
        metadata={
            "inspect_cite_version": __version__,
            "benchmark": "longbench_cite",
            **info,
            "parameters": recorded_options(given, omit=("dataset_path",), datasets=names),
        },
    )
