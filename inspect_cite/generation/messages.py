"""The system message a solver's prompt goes out with: one rule for every solver."""

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem


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
