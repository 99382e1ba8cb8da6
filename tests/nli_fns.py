"""Deterministic NLI functions for tests, used as ``python:tests.nli_fns:<name>``."""

import re
import threading

CALLS = {"count": 0}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def word_entail(premise: str, hypothesis: str) -> bool:
    """Entailed iff every word of the hypothesis occurs in the premise."""
    return words(hypothesis) <= words(premise)


def word_overlap(premise: str, hypothesis: str) -> float:
    """Share of hypothesis words found in the premise (a probability)."""
    hyp = words(hypothesis)
    return len(hyp & words(premise)) / len(hyp) if hyp else 1.0


def counting_entail(premise: str, hypothesis: str) -> bool:
    """``word_entail`` that counts its calls (cache tests)."""
    CALLS["count"] += 1
    return word_entail(premise, hypothesis)


def failing_on_fail(premise: str, hypothesis: str) -> bool:
    """Raises when the hypothesis contains the word "fail"."""
    if "fail" in words(hypothesis):
        raise RuntimeError("cannot judge this")
    return word_entail(premise, hypothesis)


def returns_text(premise: str, hypothesis: str) -> str:
    """A malformed NLI function (returns a string)."""
    return "yes"


FLAKY = {"failures": 0, "calls": 0}


def flaky_entail(premise: str, hypothesis: str) -> bool:
    """``word_entail`` that raises on its first ``FLAKY["failures"]`` calls (retry tests)."""
    FLAKY["calls"] += 1
    if FLAKY["calls"] <= FLAKY["failures"]:
        raise ConnectionError("server busy")
    return word_entail(premise, hypothesis)


HANG = {"release": threading.Event()}


def hanging_entail(premise: str, hypothesis: str) -> bool:
    """``word_entail`` that blocks until ``HANG["release"]`` is set (a hung model call)."""
    HANG["release"].wait(timeout=120)
    return word_entail(premise, hypothesis)
