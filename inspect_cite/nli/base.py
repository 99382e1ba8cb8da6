"""The NLI interface every backend implements, its errors, and the contract on its results."""

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

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


def checked_result(result: object, where: str) -> "NLIResult | NLIError":
    """``result`` if it is a valid decision, else the ``NLIError`` saying why (never a verdict).

    The one check every backend's results pass before they are cached or scored: a decision
    is a bool, and a probability, where given, a finite number in [0, 1]. Anything else (NaN
    or infinite logits, 5.0, -3, a missing label) would otherwise read as "not entailed" or,
    worse, "entailed"; it fails the pair instead, with its reason and without retrying.

    Args:
        result: What the backend returned for one pair.
        where: The backend's identity, named in the reason.

    """
    if isinstance(result, NLIError):
        return result
    if not isinstance(result, NLIResult):
        return NLIError(
            f"{where} returned {type(result).__name__} {result!r:.80}, expected a decision",
            retryable=False,
        )
    entailed, prob = result.entailed, result.prob
    # numpy's bool_ is not a bool subclass but is a valid decision.
    if not isinstance(entailed, bool | np.bool_):
        return NLIError(
            f"{where} returned entailed={entailed!r:.80}, expected True or False", retryable=False
        )
    if prob is not None:
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
            return NLIError(
                f"{where} returned probability {prob!r:.80}, expected a number in [0, 1]",
                retryable=False,
            )
        value = float(prob)
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            return NLIError(
                f"{where} returned probability {value!r}, expected a finite number in [0, 1]",
                retryable=False,
            )
        return NLIResult(bool(entailed), value)
    return NLIResult(bool(entailed))


class NLIConfigError(PreflightError, ValueError):
    """The NLI spec is invalid or its model cannot be used; a configuration problem."""


class NLIResourceError(NLIConfigError):
    """The machine lacks what the chosen NLI model needs (e.g. a large enough GPU)."""
