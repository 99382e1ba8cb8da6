"""The LongBench-Cite task's options, defined and documented once, checked into one object.

The @task (``longcite_tasks/longbench_cite.py``) declares its ``dataset_path`` and takes the
rest from :class:`LongciteOptions` (:func:`inspect_cite.options.forwarding.forwards_to`).
:func:`resolve` checks what can be checked without data or models and returns the
:class:`LongciteRun` the builder reads; its problems are kept with those of the data, prompts,
grader and tokenizer, checked after it, for one refusal.
"""

from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig

from inspect_cite.benchmarks.longcite import DATASETS
from inspect_cite.checks.errors import Refusals
from inspect_cite.checks.run import check_sampling, check_thinking_switch
from inspect_cite.generation.thinking import DEFAULT_THINKING_TOKENS, thinking_generate_config
from inspect_cite.options.task_options import TaskOptionError
from scorers.longcite_citation import GLM4_TOKENIZER

# pred_one_shot.py: temperature 1, up to 1024 new tokens.
LONGBENCH_CITE_GENERATE_CONFIG = GenerateConfig(max_tokens=1024, temperature=1.0)


class LongciteTaskError(TaskOptionError):
    """LongBench-Cite was given options it cannot run with."""


@dataclass(frozen=True)
class LongciteOptions:
    """The LongBench-Cite task's options.

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
            ``max_tokens`` grows by ``thinking_tokens``, see ``inspect_cite.generation.thinking``).
        thinking_tokens: With ``thinking``, tokens added to ``max_tokens`` for the thinking.

    """

    dataset_path: str | None = None
    datasets: str | list[str] | None = None
    prompt_file: str | None = None
    correctness: bool = True
    strict: bool = False
    tokenizer: str | None = GLM4_TOKENIZER
    trust_remote_code: bool = False
    thinking: bool = False
    thinking_tokens: int = DEFAULT_THINKING_TOKENS


@dataclass(frozen=True)
class LongciteRun:
    """The task's options, checked, with what the builder resolved from them.

    Attributes:
        options: The options as given (the log records them).
        datasets: The datasets kept (None: all).
        config: The generate config (thinking's extra tokens included).

    """

    options: LongciteOptions
    datasets: list[str] | None
    config: GenerateConfig


def dataset_names(datasets: str | list[str] | None) -> list[str] | None:
    """``-T datasets`` as names of the registry (None: all), refused naming an unknown one."""
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


def resolve(given: dict[str, Any], refusals: Refusals) -> LongciteRun:
    """The checked options of the task; what is wrong with them is kept in ``refusals``.

    A problem here (an unknown ``-T datasets`` name) is reported with the data, tokenizer and
    grader problems the builder finds after, in one message: it must not hide them.

    Args:
        given: The task's options.
        refusals: Collects each problem (a dataset name the registry does not hold, sampling
            and thinking settings that contradict the task); the builder raises them.

    """
    options = LongciteOptions(**given)
    names = None
    with refusals.check():
        names = dataset_names(options.datasets)
    config = thinking_generate_config(
        LONGBENCH_CITE_GENERATE_CONFIG, options.thinking, options.thinking_tokens
    )
    with refusals.check():
        check_sampling(config)
    with refusals.check():
        check_thinking_switch(options.thinking, config)
    return LongciteRun(options, names, config)
