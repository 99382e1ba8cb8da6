"""The NLI interface every backend implements, and its errors."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from inspect_cite.errors import PreflightError

Pair = tuple[str, str]
"""A (premise, hypothesis) pair."""


@dataclass(frozen=True)
class NLIResult:
    """One entailment decision.

    Attributes:
        entailed: Whether the premise entails the hypothesis.
        prob: The model's probability of entailment, where the backend gives one.

    """

    entailed: bool
    prob: float | None = None


@runtime_checkable
class NLIBackend(Protocol):
    """Decides entailment for batches of (premise, hypothesis) pairs.

    ``identity`` names the decision procedure (model and how it is asked) and keys the cache:
    two backends with the same identity must decide every pair the same way.
    """

    @property
    def identity(self) -> str:
        """Names the decision procedure; keys the cache."""
        ...

    async def entail(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """Decide each pair; the result list is parallel to ``pairs``.

        Raises:
            NLIError: When a pair could not be decided (e.g. an unparsable LLM reply).

        """
        ...


class NLIError(RuntimeError):
    """A pair could not be decided; scorers report the sample as unscored with this reason.

    Args:
        message: Why.
        retryable: Whether asking again may help (False for a refused request or a malformed
            answer, and where the backend already retried).

    """

    def __init__(self, message: str, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class NLIConfigError(PreflightError, ValueError):
    """The NLI spec is invalid or its model cannot be used; a configuration problem."""


class NLIResourceError(NLIConfigError):
    """The machine lacks what the chosen NLI model needs (e.g. a large enough GPU)."""
