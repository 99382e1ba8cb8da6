"""Text handling shared by solvers and scorers: sentences, think blocks, markdown."""

import re
from typing import Any

from inspect_cite.punkt import ensure_punkt

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL)


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


def strip_think(text: str) -> str:
    """Remove ``<think>...</think>`` reasoning blocks (Qwen3 through ``hf/`` keeps them).

    An unclosed ``<think>`` (generation cut off while reasoning) removes everything after it:
    none of it is the answer.
    """
    text = _THINK_RE.sub("", text)
    if "<think>" in text:
        text = text.split("<think>", 1)[0]
    return text.replace("</think>", "")


def unclosed_think(text: str) -> bool:
    """Whether ``text`` opens a ``<think>`` block that it never closes (cut while reasoning)."""
    return "<think>" in _THINK_RE.sub("", text)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_<>#|])")


def highlight_markdown(text: str, spans: "list[tuple[int, int]]") -> str:
    """``text`` as markdown with the character ``spans`` (citations) in bold, the rest escaped.

    Used by scorer explanations so the log viewer shows the answer with its citations marked.
    """
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)  # adjacent citations share one bold run
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[pos:start]))
        out.append("**" + _MARKDOWN_SPECIAL.sub(r"\\\1", text[start:end]) + "**")
        pos = end
    out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(out)
