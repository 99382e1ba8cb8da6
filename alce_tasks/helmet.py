"""HELMET's cite ladder for the ALCE tasks: the samples, generate config and scorers of a row.

What ``-T context=8k|16k|32k|64k|128k`` (and ``-T nocite=true``, HELMET's no-citation control)
on ``alce_tasks/asqa`` and ``alce_tasks/qampari`` runs; the settings, files, prompts and scoring
rules are :mod:`inspect_cite.alce.helmet`'s.
"""

from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer

from alce_tasks.data import record_to_sample
from alce_tasks.options import AlceRun
from inspect_cite import __version__
from inspect_cite.alce.helmet import (
    HelmetPromptBuilder,
    HelmetSettings,
    helmet_data_path,
    helmet_items,
    helmet_settings,
    load_helmet_prompt_file,
    read_helmet_items,
)
from inspect_cite.checks.errors import Refusals
from inspect_cite.checks.run import check_sampling
from inspect_cite.generation.thinking import thinking_generate_config
from inspect_cite.nli.checked import given_as
from inspect_cite.options.task_options import recorded_options, unique_sample_ids
from scorers import epoch_mean
from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from solvers.alce import alce_vanilla
from solvers.alce_prompting import task_built_prompts

HELMET_TASK_VERSION = 1

ContextOf = Callable[[HelmetPromptBuilder, Mapping[str, Any], list[int]], str]


def helmet_dataset(
    dataset: str,
    *,
    context: str,
    nocite: bool = False,
    dataset_path: str | None = None,
    prompt_file: str | None = None,
    chat: bool = True,
    context_of: ContextOf | None = None,
) -> tuple[MemoryDataset, dict[str, Any], HelmetSettings]:
    """The samples HELMET runs for one row, what the log records, and the row's settings.

    Each sample's input is HELMET's user message (the raw prompt ending ``Answer:`` with
    ``chat=False``); ``metadata["docs"]`` holds the ``ndoc`` passages shown (ids ``"1"``..),
    ``metadata["helmet"]`` the item's position in the file, its demonstrations and the
    context length.

    Args:
        dataset: ``asqa`` or ``qampari``.
        context: HELMET's input length (``8k`` ... ``128k``).
        nocite: HELMET's no-citation control (its ``alce_nocite`` demonstrations, no shots,
            600 new tokens; scored without citations).
        dataset_path: HELMET's ``<dataset>_eval_gtr_top2000.json`` (or another file in its
            format); default ``$INSPECT_CITE_HELMET_DATA_DIR``.
        prompt_file: A demonstration file of one's own instead of HELMET's.
        chat: Send the user message through the chat template (HELMET's cite configs); False
            sends HELMET's raw prompt.
        context_of: Returns an item's passages, e.g. cut to the model's token budget
            (:func:`inspect_cite.alce.helmet.hf_truncated_context`); default all ``ndoc``.

    Raises:
        HelmetOptionError: For a length or dataset HELMET does not have.
        HelmetDataError: When the data or demonstration file cannot be had or is malformed,
            or an item lacks a field the dataset needs.

    """
    settings = helmet_settings(dataset, context, nocite=nocite)
    if not chat:
        settings = replace(settings, chat_template=False)
    pf, prompt_info = load_helmet_prompt_file(settings, prompt_file)
    path, data_info = helmet_data_path(dataset, dataset_path)
    items = read_helmet_items(path, settings.dataset, max_docs=settings.ndoc)
    chosen = helmet_items(items, pf, settings, context_of=context_of)
    samples = []
    for run in chosen:
        sample = record_to_sample(
            run.item, run.index, settings.dataset, run.prompt, run.item["docs"]
        )
        sample.metadata = {
            **(sample.metadata or {}),
            "helmet": {
                "index": run.index,
                "demo_ids": run.demo_ids,
                "context": settings.context,
                "chat_template": settings.chat_template,
            },
        }
        samples.append(sample)
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "alce",
        "dataset": settings.dataset,
        "data": data_info,
        "prompt_file": prompt_info,
        "helmet": settings.record(),
        "parameters": {
            "context": settings.context,
            "nocite": settings.nocite,
            "ndoc": settings.ndoc,
            "shot": settings.shots,
            "seed": settings.seed,
            "prompt_file_read": prompt_info,
            "chat": settings.chat_template,
        },
    }
    ds = MemoryDataset(
        unique_sample_ids(samples), name=f"alce_{settings.dataset}", location=str(path)
    )
    return ds, info, settings


def helmet_generate_config(settings: HelmetSettings) -> GenerateConfig:
    """HELMET's decoding: greedy (temperature 0, top_p 1), at most ``max_tokens`` new tokens.

    No stop sequence and no system message (the solver sends the user message alone). On
    Inspect's ``hf/`` provider greedy decoding needs ``-M do_sample=false``.
    """
    return GenerateConfig(
        temperature=settings.temperature, top_p=settings.top_p, max_tokens=settings.max_tokens
    )


def helmet_scorers(settings: HelmetSettings, *, nli: str, diagnose: bool = False) -> list[Scorer]:
    """HELMET's scoring of a row: correctness, and citations unless it is the control.

    Both follow HELMET's eval_alce.py (``rules="helmet"``); HELMET computes neither QA
    accuracy nor MAUVE.
    """
    # Citation recall first (Inspect's headline is a run's first score); the no-citation
    # control leads with its correctness.
    scorers = [alce_correctness(settings.dataset, rules="helmet")]
    if not settings.nocite:
        scorers.insert(
            0, citation_nli(nli=nli, dataset=settings.dataset, diagnose=diagnose, rules="helmet")
        )
    return scorers


def helmet_task(run: AlceRun) -> Task:
    """The HELMET task of an ALCE run with ``-T context`` (its data, prompts, solver, scorers).

    The data and demonstration files and the judge are checked together: one message lists
    what is missing. The solver sends HELMET's user message alone (no system message), with
    the model's thinking as ``-T thinking`` says; the log records the row's settings
    (``metadata["helmet"]``) and ``parameters.context``.
    """
    o = run.options
    assert o.context is not None  # a HELMET run
    refusals = Refusals()
    loaded = None
    with refusals.check():
        loaded = helmet_dataset(
            run.dataset,
            context=o.context,
            nocite=o.nocite,
            dataset_path=o.dataset_path,
            prompt_file=o.prompt_file,
        )
    scorers: list[Scorer] = []
    with refusals.check(), given_as("-T nli"):
        row = helmet_settings(run.dataset, o.context, nocite=o.nocite)
        scorers = helmet_scorers(row, nli=o.nli, diagnose=o.diagnose)
    refusals.raise_any()
    assert loaded is not None
    dataset, info, settings = loaded
    config = thinking_generate_config(
        helmet_generate_config(settings), o.thinking, o.thinking_tokens
    )
    check_sampling(config)
    info["parameters"] = recorded_options(
        asdict(o), **info["parameters"], max_tokens=config.max_tokens
    )
    # The samples carry HELMET's prompts: the solver reads no ALCE prompt file.
    with task_built_prompts():
        solver = alce_vanilla(system_message=None, thinking=o.thinking)
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=scorers,
        config=config,
        version=HELMET_TASK_VERSION,
        metadata=info,
        epochs=Epochs(1, epoch_mean()),
    )
