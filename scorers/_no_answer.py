"""The score of a sample that cannot be scored, shared by every scorer: nan, with the reason.

A sample whose output holds no answer, or that lacks the gold field a key needs, is not
scored.

The rule (:func:`inspect_cite.generation.thinking.no_answer_reason`): an output that ended inside
the model's thinking, or a generation that was not attempted (a raw prompt longer than
``max_length``), has no answer. Such a sample is not scored: every key is nan, the reason is in
``Score.metadata["reason"]`` and the explanation starts with "**Not scored:**", so it never counts
as a zero.
"""

import math
from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from inspect_cite.generation.thinking import NO_ANSWER_THINKING, no_answer_reason
from inspect_cite.text.markdown import literal

_HINT = (
    "The output holds only unfinished reasoning (stop reason `{stop}`). With "
    "`-T thinking=true` raise `-T thinking_tokens`; `-T thinking=false` (the default) has the "
    "model answer without thinking."
)


def unscored_score(
    keys: Iterable[str],
    reason: str,
    answer: str = "",
    metadata: dict[str, Any] | None = None,
    hint: str = "",
) -> Score:
    """The score of a sample that cannot be scored: every key nan, never a zero.

    Args:
        keys: The scorer's value keys (all present, each nan).
        reason: Why, for ``Score.metadata["reason"]`` and the explanation ("**Not scored:**").
        answer: What the scorer read from the output.
        metadata: More score metadata the scorer's metrics read (e.g. weights).
        hint: A paragraph after the reason (what to change).

    """
    explanation = f"**Not scored:** {literal(reason)}" + (f".\n\n{hint}" if hint else "")
    return Score(
        value=dict.fromkeys(keys, math.nan),
        answer=answer,
        explanation=explanation,
        metadata={**(metadata or {}), "reason": reason},
    )


def no_answer_score(
    state: TaskState, keys: Iterable[str], metadata: dict[str, Any] | None = None
) -> Score | None:
    """The nan score of a sample without an answer, or None when the output holds one.

    Args:
        state: The sample.
        keys: The scorer's value keys (all present, each nan).
        metadata: More score metadata the scorer's metrics read (e.g. weights).

    """
    reason = no_answer_reason(state.output)
    if reason is None:
        return None
    stop = state.output.stop_reason if state.output and state.output.choices else "unknown"
    # The thinking budget is the fix only when thinking ran out of it.
    hint = _HINT.format(stop=stop) if reason == NO_ANSWER_THINKING else ""
    return unscored_score(keys, reason, metadata=metadata, hint=hint)
