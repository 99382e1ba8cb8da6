"""TRUST-SCORE's ExpertQA: expert questions answered from documents, or refused."""

from typing import Any

from inspect_ai import Task, task

from alce_tasks.options import TRUST_NOT_READ, AlceOptions, AlceTaskError
from alce_tasks.task import alce_task
from inspect_cite.benchmarks.alce import DATASET_OPTIONS
from inspect_cite.options.cli_values import accept_cli_values, yaml_text
from inspect_cite.options.forwarding import forwards_to


@task
@accept_cli_values("-T")
@forwards_to(
    AlceOptions,
    # TRUST-SCORE's own data and prompt: no ALCE retriever, prompt variant or run.py option,
    # and no HELMET length or tokenizer (HELMET runs ASQA and QAMPARI). `trust` is its own.
    omit=tuple(
        dict.fromkeys(
            (
                "retriever",
                "prompt",
                "context",
                "nocite",
                "tokenizer",
                *TRUST_NOT_READ,
                *DATASET_OPTIONS,
            )
        )
    ),
)
def expertqa(trust: bool = True, **options: Any) -> Task:
    """TRUST-SCORE's ExpertQA (grounded refusals, trust-eval 0.1.5's metrics).

    The authors' Trust-Score data (ExpertQA's questions, documents marked per gold claim, some
    questions unanswerable from them) with their refusal-instructed prompt, scored by
    ``trust_score`` (refusals, calibrated claim correctness, citations); docs/alce.md,
    "Grounded refusals".

    Example::

        inspect eval alce_tasks/expertqa --model hf/Qwen/Qwen3-8B -T nli=true

    Args:
        trust: Always true: ExpertQA is TRUST-SCORE's alone (``-T trust=true``, as on ALCE's
            tasks, is accepted and changes nothing; false is refused).
        **options: The options of ALCE's tasks that apply: defined and documented at
            :class:`alce_tasks.options.AlceOptions` (listed below).

    """
    if trust is not True:
        raise AlceTaskError(
            f"-T trust={yaml_text(trust)}: alce_tasks/expertqa is TRUST-SCORE's ExpertQA, always a "
            "TRUST-SCORE run (ALCE has no ExpertQA); drop it"
        )
    return alce_task(dataset="expertqa", retriever="gtr", trust=True, **options)
