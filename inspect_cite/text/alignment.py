r"""Posthoc span alignment: map a cited snippet to the most similar verbatim span of a document.

Decisions (FullCite posthoc strategy, documented in the README):

- Words are the tokens of :mod:`inspect_cite.text.verbatim`, which owns what a document's words
  are: runs of letters, combining marks and digits, and single symbols, compared after NFKC
  and case folding; punctuation and whitespace only separate them (so "0.5" and "0,5" are the
  same two words, and a decomposed "café" is the same word as a composed one).
- Candidates are all contiguous word windows of the document. Similarity is the Jaccard index
  of the snippet's word *set* and the window's word set.
- The best window wins; ties go to the shortest window (fewest words), then the earliest.
- It is accepted when its Jaccard is >= the threshold (0.7). The aligned snippet is the
  verbatim document text from the first character of the window's first word to the last
  character of its last word (so surrounding punctuation is not included).
- A snippet that already occurs verbatim in the document (and is not blank; verbatim up to
  canonical equivalence, :func:`inspect_cite.text.verbatim.find_verbatim`) is returned as the
  document's own text of that span, unchanged, even when it starts or ends inside a word: it
  is already a verbatim span, and alignment only repairs snippets that are not.

Speed: only windows that can reach the threshold are scored. Jaccard >= t needs the window's
distinct-word count to be at most ``|S| / t`` and the window to start and end with a snippet
word (dropping a non-snippet word at either end never lowers Jaccard and shortens the window).
Distinct and shared word counts of all remaining windows come from cumulative sums over a
"first occurrence in this window" indicator (``previous occurrence < window start``), in numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from inspect_cite.text.verbatim import document_index, find_verbatim, tokens

DEFAULT_THRESHOLD = 0.7

# Window starts processed per numpy block, to bound memory on long documents.
_ROW_BLOCK = 512


@dataclass(frozen=True)
class Alignment:
    """The span of a document that a snippet was aligned to.

    Attributes:
        text: The verbatim document text of the span.
        start: Offset of the span in the document.
        end: Offset just past the span.
        jaccard: Word-set Jaccard of snippet and span (1.0 for a verbatim snippet).
        verbatim: True when the snippet already occurred verbatim (its span is returned).

    """

    text: str
    start: int
    end: int
    jaccard: float
    verbatim: bool


def words(text: str) -> list[str]:
    """The words of ``text`` as alignment compares them (``verbatim.tokens``)."""
    return tokens(text)


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard of two texts (0.0 when both have no words)."""
    sa, sb = set(words(a)), set(words(b))
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


@dataclass(frozen=True)
class _DocIndex:
    starts: np.ndarray  # char offset of each word
    ends: np.ndarray  # char offset just past each word
    ids: np.ndarray  # word id per position
    prev: np.ndarray  # index of the previous occurrence of the same word, -1 if none
    vocab: dict[str, int]


@lru_cache(maxsize=64)
def _index(document: str) -> _DocIndex:
    doc_words = document_index(document)
    vocab: dict[str, int] = {}
    ids, prev = [], []
    last_seen: dict[int, int] = {}
    for pos, word in enumerate(doc_words.tokens):
        wid = vocab.setdefault(word, len(vocab))
        ids.append(wid)
        prev.append(last_seen.get(wid, -1))
        last_seen[wid] = pos
    return _DocIndex(
        np.array(doc_words.starts, dtype=np.int64),
        np.array(doc_words.ends, dtype=np.int64),
        np.array(ids, dtype=np.int64),
        np.array(prev, dtype=np.int64),
        vocab,
    )


def align(snippet: str, document: str, threshold: float = DEFAULT_THRESHOLD) -> Alignment | None:
    """Align ``snippet`` to ``document`` (see the module docstring for the rules).

    Args:
        snippet: The cited snippet.
        document: The cited document's text.
        threshold: The least Jaccard accepted, in (0, 1].

    Returns:
        The aligned span, or None when no window reaches the threshold (or the snippet has
        no words).

    Raises:
        ValueError: ``threshold`` is not in (0, 1].

    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    verbatim = find_verbatim(snippet, document)
    if verbatim is not None:
        start, end = verbatim
        return Alignment(document[start:end], start, end, 1.0, True)
    target = set(words(snippet))
    if not target:
        return None
    index = _index(document)
    best = _best_window(index, target, threshold)
    if best is None:
        return None
    first, last, score = best
    start, end = int(index.starts[first]), int(index.ends[last])
    return Alignment(document[start:end], start, end, score, False)


def align_snippet(snippet: str, document: str, threshold: float = DEFAULT_THRESHOLD) -> str | None:
    """The verbatim span of ``document`` most similar to ``snippet``, or None below threshold.

    A snippet that occurs verbatim in the document is returned as the document spells it
    (unchanged, up to canonical equivalence). Otherwise the
    contiguous word window of the document with the highest word-set Jaccard similarity to the
    snippet is taken (ties: shortest, then earliest) and returned as verbatim document text
    from its first word's first character to its last word's last character, if its Jaccard
    is at least ``threshold``.

    Args:
        snippet: The cited snippet.
        document: The cited document's text.
        threshold: The least Jaccard accepted, in (0, 1].

    Returns:
        A verbatim substring of ``document``, or None.

    """
    result = align(snippet, document, threshold)
    return None if result is None else result.text


def _best_window(
    index: _DocIndex, target: set[str], threshold: float
) -> tuple[int, int, float] | None:
    """(first word, last word, Jaccard) of the best window reaching ``threshold``, or None."""
    n = len(index.ids)
    k = len(target)
    target_ids = [index.vocab[w] for w in target if w in index.vocab]
    if n == 0 or not target_ids:
        return None
    in_target = np.isin(index.ids, np.array(target_ids, dtype=np.int64))
    # Jaccard >= t needs distinct(window) <= k / t and shared >= t * k.
    max_distinct = math.floor(k / threshold + 1e-9)
    if len(target_ids) < math.ceil(threshold * k - 1e-9):
        return None
    candidates = np.flatnonzero(in_target)
    best: tuple[float, int, int] | None = None  # (jaccard, length, start)
    for block in range(0, len(candidates), _ROW_BLOCK):
        rows = candidates[block : block + _ROW_BLOCK]
        found = _best_in_rows(index, in_target, rows, k, max_distinct, threshold, n)
        if found is not None and (
            best is None
            or found[0] > best[0]
            or (found[0] == best[0] and (found[1], found[2]) < (best[1], best[2]))
        ):
            best = found
    if best is None:
        return None
    score, length, start = best
    return start, start + length - 1, score


def _best_in_rows(
    index: _DocIndex,
    in_target: np.ndarray,
    rows: np.ndarray,
    k: int,
    max_distinct: int,
    threshold: float,
    n: int,
) -> tuple[float, int, int] | None:
    width = min(n, 2 * max_distinct + 8)
    while True:
        pos = rows[:, None] + np.arange(width)[None, :]
        valid = pos < n
        pos = np.minimum(pos, n - 1)
        first_in_window = (index.prev[pos] < rows[:, None]) & valid
        distinct = np.cumsum(first_in_window, axis=1)
        # Some window may still be short enough to qualify past this width: widen.
        if width < n and bool((valid[:, -1] & (distinct[:, -1] <= max_distinct)).any()):
            width = min(n, width * 2)
            continue
        break
    shared = np.cumsum(first_in_window & in_target[pos], axis=1)
    union = distinct + (k - shared)
    score = shared / union
    ok = valid & in_target[pos] & (distinct <= max_distinct) & (score >= threshold - 1e-12)
    if not ok.any():
        return None
    score = np.where(ok, score, -1.0)
    top = score.max()
    tied = score == top
    length = int(np.flatnonzero(tied.any(axis=0))[0])  # shortest: smallest column
    row = int(np.flatnonzero(tied[:, length])[0])  # earliest: rows are sorted by start
    return float(top), length + 1, int(rows[row])
