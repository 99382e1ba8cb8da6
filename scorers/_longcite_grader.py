"""LongCite's grader calls: the ``grader`` model role, asked again until a reply can be read.

LongCite's scripts ask GPT-4o a fixed number of times (``auto_scorer.py``: 5, the first at
temperature 0 and the rest at 1; ``eval_correct.py``: 5, or 2 for LongBench-Chat, all at 0)
and stop early when a reply says OpenAI's content filter was triggered (their ``query_llm``
then returns a text holding ``Trigger``). Here the grader is Inspect's model role ``grader``
(any model), asked the same way; a provider's content filter (stop reason
``content_filter``) stops the asking as LongCite's ``Trigger`` does (and, for the citation
grader, a reply holding ``Trigger``, whose text ``auto_scorer.py`` checks).

A call that raises (after Inspect's own retries) is not a reply: the exception propagates and
the sample errors, so that Inspect's ``--retry-on-error`` and ``inspect eval-retry`` can run it
again. LongCite's scripts score an API that failed five times as an unreadable reply (0.5 for
correctness); a provider error is a fault of the run, not of the answer, and a number made of it
would be silently wrong (docs/longcite.md).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import ChatMessage, GenerateConfig, Model, get_model, model_roles

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.text.markdown import one_line

T = TypeVar("T")

TRIGGER = "Trigger"
"""What LongCite's ``query_llm`` returns when OpenAI's content filter fired; a reply holding it
ends the asking."""


def grader_model(model: str | None, who: str) -> Model:
    """The grader: ``model`` when given, else the ``grader`` model role.

    Raises:
        ArgumentError: When neither is given, naming ``who`` and the fix.

    """
    if model is not None:
        return get_model(model)
    if "grader" not in model_roles():
        raise ArgumentError(
            f"{who} needs a grader model: pass --model-role grader=<model> (LongCite used "
            "gpt-4o-2024-05-13) or -S model=<model>; it does not grade with the model under test"
        )
    return get_model(role="grader")


@dataclass
class Asked(Generic[T]):
    """What the grader answered: the value read from the last reply, or why there is none."""

    value: T | None
    replies: list[str] = field(default_factory=list)
    failure: str | None = None


async def ask_until_read(
    grader: Model,
    messages: list[ChatMessage],
    configs: Sequence[GenerateConfig],
    read: Callable[[str], T | None],
    *,
    trigger_ends: bool = True,
) -> Asked[T]:
    """Ask once per config until ``read`` gets a value from the reply.

    Args:
        grader: The grader model.
        messages: The prompt.
        configs: One generate config per try, in order (their number is the tries).
        read: The value of a reply, or None when it cannot be read.
        trigger_ends: Whether a reply holding :data:`TRIGGER` ends the tries
            (``auto_scorer.py`` checks every reply's text; ``eval_correct.py`` only what its
            API wrapper returns for a content filter, here the stop reason).

    Returns:
        The value and every reply; with no value, ``failure`` says why (the last reply, or a
        content filter), on one line.

    Raises:
        Exception: What the grader's call raised (after Inspect's own retries), unchanged: a
            grader that did not answer is an error of the sample, never a reading.

    """
    asked: Asked[T] = Asked(None)
    for config in configs:
        # No except: a provider error is the run's fault, not an unreadable reply.
        output = await grader.generate(messages, config=config)
        reply = output.completion
        asked.replies.append(reply)
        value = read(reply)
        if value is not None:
            asked.value = value
            return asked
        filtered = output.stop_reason == "content_filter"
        if filtered or (trigger_ends and TRIGGER in reply):
            asked.failure = (
                f"the grader's content filter stopped it ({_quoted(reply)})"
                if filtered
                else f"the grader's reply holds {TRIGGER!r}, which ends LongCite's tries"
            )
            return asked
    tries = len(configs)
    last = asked.replies[-1] if asked.replies else ""
    tried = f"{tries} {'try' if tries == 1 else 'tries'}"
    asked.failure = f"no readable reply in {tried} (last: {_quoted(last)})"
    return asked


def _quoted(reply: str) -> str:
    # One line, not repr(): a reply's line breaks as "\n" escapes fill the viewer with them.
    return f'"{one_line(reply, 120)}"'
