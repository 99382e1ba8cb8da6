"""Sentences as ALCE's eval.py splits them (English Punkt, offline)."""

import re
from typing import Any

from inspect_cite.text.punkt import ensure_punkt


def sent_tokenize(text: str) -> list[str]:
    """``nltk.sent_tokenize`` (English Punkt), working offline."""
    ensure_punkt()
    from nltk import sent_tokenize as _sent_tokenize

    return list(_sent_tokenize(text))


_FALLBACK_SENT_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


def sent_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences in ``text`` (English Punkt; newlines always split).

    Spans cover the sentences without surrounding whitespace; text with no sentence gives
    ``[]``. If the Punkt data cannot be prepared (e.g. an unwritable cache), a plain
    punctuation-and-whitespace rule is used so that callers which must not fail still work.
    """
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        if line.strip():
            spans.extend((offset + s, offset + e) for s, e in _line_spans(line))
        offset += len(line) + 1
    return spans


def _line_spans(line: str) -> list[tuple[int, int]]:
    try:
        tokenizer = _punkt_tokenizer()
    except (OSError, LookupError, ValueError):
        tokenizer = None
    if tokenizer is not None:
        spans = list(tokenizer.span_tokenize(line))
    else:
        spans = []
        start = 0
        for m in _FALLBACK_SENT_END.finditer(line):
            spans.append((start, m.start()))
            start = m.end()
        spans.append((start, len(line)))
    return [_strip_span(line, s, e) for s, e in spans if line[s:e].strip()]


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


_PUNKT: list[object] = []


def _punkt_tokenizer() -> Any:
    if not _PUNKT:
        ensure_punkt()
        from nltk.tokenize import PunktTokenizer

        _PUNKT.append(PunktTokenizer("english"))
    return _PUNKT[0]
