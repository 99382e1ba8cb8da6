"""The NLI interface every backend implements, its errors, and the contract on its results."""

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from inspect_cite.checks.errors import PreflightError

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
        # The message becomes a score's reason and explanation in the log: a credential an
        # error text quotes (a URL's, a header's, an API key) must not reach it.
        from inspect_cite.downloads.http_client import redact_text

        super().__init__(redact_text(message))
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


def number_setting(
    name: str, value: object, default: float, most: float, integer: bool, positive: bool = False
) -> float:
    """A numeric setting (an environment variable, an argument) checked, or ``default``.

    Args:
        name: What the user set, named in the error (e.g. ``INSPECT_CITE_NLI_RETRIES``).
        value: What was given (None or blank: ``default``).
        default: The value when none is given.
        most: The largest value allowed: inf or nan would wait forever or never stop
            retrying, a bound keeps a run finite.
        integer: Whether only whole numbers are allowed (counts).
        positive: Whether 0 is refused too (durations that must allow some time).

    Raises:
        NLIConfigError: For a value that is not a finite number in its range.

    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise NLIConfigError(f"{name}={value!r} is not a number") from e
    low_ok = number > 0 if positive else number >= 0
    if not math.isfinite(number) or not low_ok or number > most or (integer and number % 1):
        kind = "an integer" if integer else "a number"
        span = f"above 0 and at most {most:g}" if positive else f"from 0 to {most:g}"
        raise NLIConfigError(f"{name}={value!r} must be {kind} {span}")
    return number
