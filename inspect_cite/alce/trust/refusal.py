"""Refusal detection as trust-eval decides it: a fuzzy match of the refusal sentence.

trust-eval 0.1.5 calls an output a refusal when
``fuzz.partial_ratio(normalize_answer(flag), normalize_answer(output)) > threshold`` (flag
"I apologize, but I couldn't find an answer", threshold 85), with fuzzywuzzy backed by
python-Levenshtein. Both are GPL; this module computes the same number on rapidfuzz's
primitives, which python-Levenshtein 0.26 itself wraps:

1. equal strings give 100, else an empty one gives 0 (fuzzywuzzy's decorators, in that order);
2. the shorter string (the first one when both have the same length) is matched against the
   longer one with Levenshtein's edit script: the matching blocks of
   ``rapidfuzz.distance.Levenshtein.opcodes(shorter, longer)``, the zero-length end block
   included (python-Levenshtein's ``matching_blocks(opcodes(a, b), a, b)``);
3. for each block, the window of the longer string starting at ``max(0, j - i)`` and as long
   as the shorter string (cut at the string's end) is compared with the shorter string by
   ``Indel.normalized_similarity`` (python-Levenshtein's ``ratio``); a ratio above 0.995
   returns 100 at once;
4. otherwise the best ratio x100 is rounded with Python's ``round`` (half to even).

rapidfuzz's own ``fuzz.partial_ratio`` searches every window and fuzzywuzzy's pure-Python
fallback uses difflib's blocks: both differ from this on some strings, near the threshold too.
``tests/trust/fixtures/partial_ratio_cases.json`` holds strings where they differ, with the
values fuzzywuzzy + python-Levenshtein give.
"""

from dataclasses import dataclass

from rapidfuzz.distance import Indel, Levenshtein

from inspect_cite.text.squad import normalize_answer

REFUSAL_FLAG = "I apologize, but I couldn't find an answer"
"""trust-eval's default ``rejection_flag``: the start of the refusal its prompts ask for."""
REFUSAL_THRESHOLD = 85
"""trust-eval's default ``rejection_threshold``: a refusal needs a partial ratio above it."""


def partial_ratio(s1: str, s2: str) -> int:
    """Fuzzywuzzy 0.18's ``fuzz.partial_ratio`` with python-Levenshtein, 0 to 100."""
    if s1 == s2:
        return 100
    if not s1 or not s2:
        return 0
    shorter, longer = (s1, s2) if len(s1) <= len(s2) else (s2, s1)
    blocks = Levenshtein.opcodes(shorter, longer).as_matching_blocks()
    best = 0.0
    for block in blocks:
        start = max(0, block.b - block.a)
        window = longer[start : start + len(shorter)]
        ratio = Indel.normalized_similarity(shorter, window)
        if ratio > 0.995:
            return 100
        best = max(best, ratio)
    return int(round(100 * best))


@dataclass(frozen=True)
class RefusalCheck:
    """Whether one text is a refusal, and the number that decided it.

    Attributes:
        ratio: ``partial_ratio`` of the normalized flag and text.
        threshold: The threshold it was compared with.
        refused: ``ratio > threshold``.

    """

    ratio: int
    threshold: float
    refused: bool


def check_refusal(
    text: str, flag: str = REFUSAL_FLAG, threshold: float = REFUSAL_THRESHOLD
) -> RefusalCheck:
    """Whether ``text`` is a refusal as trust-eval decides (normalized partial ratio > threshold).

    Args:
        text: The output (trust-eval passes the raw output in some metrics and the
            citation-free one in others; the caller chooses).
        flag: The refusal sentence (trust-eval's ``rejection_flag``).
        threshold: The partial ratio a refusal must exceed (``rejection_threshold``).

    """
    ratio = partial_ratio(normalize_answer(flag), normalize_answer(text))
    return RefusalCheck(ratio=ratio, threshold=threshold, refused=ratio > threshold)
