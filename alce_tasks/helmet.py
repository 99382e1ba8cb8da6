"""HELMET's cite ladder for the ALCE tasks: the samples, generate config and scorers of a row.

What ``-T context=8k|16k|32k|64k|128k`` (and ``-T nocite=true``, HELMET's no-citation control)
on ``alce_tasks/asqa`` and ``alce_tasks/qampari`` runs; the settings, files, prompts and scoring
rules are :mod:`inspect_cite.alce.helmet`'s.
"""

import logging
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
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
    HelmetTokenizer,
    helmet_data_path,
    helmet_items,
    helmet_settings,
    helmet_tokenizer,
    hf_truncated_context,
    load_helmet_prompt_file,
    read_helmet_items,
)
from inspect_cite.alce.prompts import PromptFile
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

HELMET_TASK_VERSION = 2
"""2: the passages are cut to the row's token budget, as HELMET cuts them."""

logger = logging.getLogger(__name__)

ContextOf = Callable[[HelmetPromptBuilder, Mapping[str, Any], list[int]], str]


@dataclass(frozen=True)
class HelmetInputs:
    """What a HELMET row reads, each checked: its settings, demonstrations and data.

    Attributes:
        settings: The row.
        prompt_file: The demonstration file.
        prompt_info: Its provenance, for the log.
        path: The data file.
        data_info: Its provenance, for the log.
        items: The data file's items (passages cut to the row's ``ndoc``).

    """

    settings: HelmetSettings
    prompt_file: PromptFile
    prompt_info: dict[str, Any]
    path: Path
    data_info: dict[str, Any]
    items: list[dict[str, Any]]


def check_helmet_inputs(
    dataset: str,
    refusals: Refusals,
    *,
    context: str,
    nocite: bool = False,
    dataset_path: str | None = None,
    prompt_file: str | None = None,
    chat: bool = True,
) -> HelmetInputs | None:
    """Read a row's demonstration and data files, each problem kept in ``refusals``.

    The files are checked independently: a missing demonstration file does not hide a
    missing data file (:class:`inspect_cite.checks.errors.Refusals`).

    Returns:
        The inputs, or None when a check failed (its refusal is in ``refusals``).

    Raises:
        HelmetOptionError: For a length or dataset HELMET does not have.

    """
    settings = helmet_settings(dataset, context, nocite=nocite)
    if not chat:
        settings = replace(settings, chat_template=False)
    demos = data = None
    with refusals.check():
        demos = load_helmet_prompt_file(settings, prompt_file)
    with refusals.check():
        path, data_info = helmet_data_path(dataset, dataset_path)
        data = (path, data_info, read_helmet_items(path, settings.dataset, max_docs=settings.ndoc))
    if demos is None or data is None:
        return None
    return HelmetInputs(
        settings=settings,
        prompt_file=demos[0],
        prompt_info=demos[1],
        path=data[0],
        data_info=data[1],
        items=data[2],
    )


def helmet_samples(
    inputs: HelmetInputs, cut: HelmetTokenizer | None = None
) -> tuple[MemoryDataset, dict[str, Any]]:
    """The samples HELMET runs for one row, and what the log records.

    Each sample's input is HELMET's user message (the raw prompt ending ``Answer:`` without
    a chat template); ``metadata["docs"]`` holds the row's ``ndoc`` passages (ids ``"1"``..),
    ``metadata["helmet"]`` the item's position in the file, its demonstrations, the context
    length and ``passages_shown``: how many passages its prompt showed after HELMET's cut to
    the token budget (``partial_text``: the text shown of the last, when cut inside it). Only
    those are the sample's evidence (:func:`inspect_cite.alce.helmet.helmet_evidence`).

    Args:
        inputs: The row's files (:func:`check_helmet_inputs`).
        cut: The tokenizer the passages are cut with (None: nothing is cut).

    """
    settings = inputs.settings
    tokenizer = None if cut is None else cut.tokenizer
    context_of: ContextOf | None = None
    if tokenizer is not None:

        def context_of(
            builder: HelmetPromptBuilder, item: Mapping[str, Any], ids: list[int]
        ) -> str:
            return hf_truncated_context(tokenizer, builder, item, ids, settings)

    chosen = helmet_items(
        inputs.items,
        inputs.prompt_file,
        settings,
        context_of=context_of,
        bos=getattr(tokenizer, "bos_token", None),
    )
    samples = []
    for run in chosen:
        sample = record_to_sample(
            run.item, run.index, settings.dataset, run.prompt, run.item["docs"]
        )
        shown: dict[str, Any] = {"passages_shown": run.shown.count}
        if run.shown.partial_text is not None:
            shown["partial_text"] = run.shown.partial_text
        sample.metadata = {
            **(sample.metadata or {}),
            "helmet": {
                "index": run.index,
                "demo_ids": run.demo_ids,
                "context": settings.context,
                "chat_template": settings.chat_template,
                **shown,
            },
        }
        samples.append(sample)
    cut_runs = [r for r in chosen if r.shown.count < settings.ndoc or r.shown.partial_text]
    # Counted over the row's questions in the data file: Inspect applies --limit (and
    # --sample-id) after the task is built, so which of them run cannot be known here. The
    # key names say so; each sample's own `passages_shown` is what that sample saw.
    truncation = {
        "tokenizer": None if cut is None else cut.name,
        "not_cut_because": "no tokenizer" if cut is None else cut.reason,
        "budget_tokens": settings.input_max_length - settings.max_tokens,
        "prompts_in_file": len(chosen),
        "prompts_cut_in_file": len(cut_runs) if tokenizer is not None else None,
        "passages_cut_in_file": (
            sum(settings.ndoc - r.shown.count for r in chosen) if tokenizer is not None else None
        ),
        "passages_partly_shown_in_file": sum(r.shown.partial_text is not None for r in chosen),
    }
    if tokenizer is not None:
        logger.info(
            "HELMET %s: %d of the data file's %d prompts over %d tokens of %s; %d passages cut",
            settings.helmet_name,
            truncation["prompts_cut_in_file"],
            len(chosen),
            truncation["budget_tokens"],
            cut.name if cut is not None else None,
            truncation["passages_cut_in_file"],
        )
    info = {
        "inspect_cite_version": __version__,
        "benchmark": "alce",
        "dataset": settings.dataset,
        "data": inputs.data_info,
        "prompt_file": inputs.prompt_info,
        "helmet": {**settings.record(), "truncation": truncation},
        "parameters": {
            "context": settings.context,
            "nocite": settings.nocite,
            "ndoc": settings.ndoc,
            "shot": settings.shots,
            "seed": settings.seed,
            "prompt_file_read": inputs.prompt_info,
            "chat": settings.chat_template,
        },
    }
    ds = MemoryDataset(
        unique_sample_ids(samples), name=f"alce_{settings.dataset}", location=str(inputs.path)
    )
    return ds, info


def helmet_dataset(
    dataset: str,
    *,
    context: str,
    nocite: bool = False,
    dataset_path: str | None = None,
    prompt_file: str | None = None,
    chat: bool = True,
    cut: HelmetTokenizer | None = None,
) -> tuple[MemoryDataset, dict[str, Any], HelmetSettings]:
    """The samples HELMET runs for one row, what the log records, and the row's settings.

    Args:
        dataset: ``asqa`` or ``qampari``.
        context: HELMET's input length (``8k`` ... ``128k``).
        nocite: HELMET's no-citation control (its ``alce_nocite`` demonstrations, no shots,
            600 new tokens; scored without citations).
        dataset_path: HELMET's ``<dataset>_eval_gtr_top2000.json`` (or another file in its
            format: a JSON list, JSON Lines, or ALCE's ``{"data": [...]}``); default
            ``$INSPECT_CITE_HELMET_DATA_DIR``.
        prompt_file: A demonstration file of one's own instead of HELMET's.
        chat: Send the user message through the chat template (HELMET's cite configs); False
            sends HELMET's raw prompt.
        cut: The tokenizer HELMET's cut to the token budget uses
            (:func:`inspect_cite.alce.helmet.helmet_tokenizer`); None cuts nothing.

    Raises:
        HelmetOptionError: For a length or dataset HELMET does not have.
        PreflightError: When the data or demonstration file cannot be had or is malformed
            (both named when both are).

    """
    refusals = Refusals()
    inputs = check_helmet_inputs(
        dataset,
        refusals,
        context=context,
        nocite=nocite,
        dataset_path=dataset_path,
        prompt_file=prompt_file,
        chat=chat,
    )
    refusals.raise_any()
    assert inputs is not None
    ds, info = helmet_samples(inputs, cut)
    return ds, info, inputs.settings


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

    The data and demonstration files, the tokenizer that cuts the passages to the row's token
    budget (``-T tokenizer``, else the model's), the judge and the decoding are checked
    together: one message lists every problem. The solver sends HELMET's user message alone
    (no system message), with the model's thinking as ``-T thinking`` says; the log records
    the row's settings and how many passages the cut removed (``metadata["helmet"]``) and
    ``parameters.context``.
    """
    o = run.options
    assert o.context is not None  # a HELMET run
    refusals = Refusals()
    inputs = check_helmet_inputs(
        run.dataset,
        refusals,
        context=o.context,
        nocite=o.nocite,
        dataset_path=o.dataset_path,
        prompt_file=o.prompt_file,
    )
    row = helmet_settings(run.dataset, o.context, nocite=o.nocite)
    cut = None
    with refusals.check():
        cut = helmet_tokenizer(o.tokenizer, row)
    scorers: list[Scorer] = []
    with refusals.check(), given_as("-T nli"):
        scorers = helmet_scorers(row, nli=o.nli, diagnose=o.diagnose)
    config = thinking_generate_config(helmet_generate_config(row), o.thinking, o.thinking_tokens)
    with refusals.check():
        check_sampling(config)
    refusals.raise_any()
    assert inputs is not None and cut is not None
    dataset, info = helmet_samples(inputs, cut)
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
