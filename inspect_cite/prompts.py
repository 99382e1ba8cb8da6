"""Prompt text shared by solvers (kept here so tasks, solvers and scorers agree on it)."""

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem

# ALCE's run.py sends this system message to chat models.
ALCE_SYSTEM_MESSAGE = (
    "You are a helpful assistant that answers the following questions with proper citations."
)


def system_messages(messages: Sequence[ChatMessage], default: str | None) -> list[ChatMessage]:
    """The system messages a solver's prompt goes out with: the sample's own, if it has any.

    The one rule for every solver: a system message the sample (or an earlier solver) set is
    kept as it is; only when there is none is ``default`` added (when given).
    """
    systems: list[ChatMessage] = [m for m in messages if m.role == "system"]
    if not systems and default:
        systems = [ChatMessageSystem(content=default)]
    return systems


def add_system_message(messages: list[ChatMessage], default: str | None) -> None:
    """Put ``default`` first in ``messages`` when they have no system message (see above)."""
    if not any(m.role == "system" for m in messages):
        messages[:0] = system_messages(messages, default)
