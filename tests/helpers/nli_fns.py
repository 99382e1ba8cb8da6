"""Deterministic NLI functions for tests, used as ``python:tests.helpers.nli_fns:<name>``."""

import re
import threading
from pathlib import Path

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


# Function words carry no claim content: a claim is judged on the words that do.
STOPWORDS = frozenset(
    "a an the and or but of in on at to for from by with as is are was were be been being "
    "it its this that these those which who whom whose what when where how than then there "
    "their they them he she his her we our you your i not no can could may might will would "
    "has have had do does did also such into over under about after before between during".split()
)


def content_words(text: str) -> set[str]:
    return words(text) - STOPWORDS


def claim_overlap(premise: str, hypothesis: str) -> bool:
    """Entailed iff at least 60% of the hypothesis's content words occur in the premise."""
    hyp = content_words(hypothesis)
    return bool(hyp) and len(hyp & content_words(premise)) / len(hyp) >= 0.6


def counting_claim_overlap(premise: str, hypothesis: str) -> bool:
    """``claim_overlap`` that counts its calls (cache tests)."""
    CALLS["count"] += 1
    return claim_overlap(premise, hypothesis)


PREMISES: list[str] = []


def recording_entail(premise: str, hypothesis: str) -> bool:
    """``word_entail`` that keeps every premise it judges in ``PREMISES``."""
    PREMISES.append(premise)
    return word_entail(premise, hypothesis)


HANG = {"release": threading.Event()}


def hanging_entail(premise: str, hypothesis: str) -> bool:
    """``word_entail`` that blocks until ``HANG["release"]`` is set (a hung model call)."""
    HANG["release"].wait(timeout=120)
    return word_entail(premise, hypothesis)


def nan_on_unknown(premise: str, hypothesis: str) -> float:
    """``word_entail`` as a probability, but nan when the hypothesis holds the word "unknown"."""
    if "unknown" in words(hypothesis):
        return float("nan")
    return 1.0 if word_entail(premise, hypothesis) else 0.0


def hang(premise: str, hypothesis: str) -> bool:
    """A judge that never answers (interrupt tests); it touches ``$NLI_HANG_MARKER`` first."""
    import os
    import time

    if marker := os.environ.get("NLI_HANG_MARKER"):
        Path(marker).touch()
    time.sleep(3600)
    return False


def always_supported(premise: str, hypothesis: str) -> bool:
    """Says "supported" to every pair (``calibrate --stress``: detects nothing)."""
    return True


def never_supported(premise: str, hypothesis: str) -> bool:
    """Says "not supported" to every pair (``calibrate --stress``: detects everything)."""
    return False


def char_overlap(premise: str, hypothesis: str) -> bool:
    """Entailed iff 80% of the hypothesis's letters and digits occur in the premise (Chinese)."""
    hyp = [c for c in hypothesis if c.isalnum()]
    return bool(hyp) and sum(c in premise for c in hyp) / len(hyp) >= 0.8
