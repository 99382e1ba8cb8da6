"""Text handling shared by solvers and scorers: sentences and think blocks."""

import re
from dataclasses import dataclass
from typing import Any

from inspect_cite.punkt import ensure_punkt

_THINK_TAG = re.compile(r"</?think>")


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


@dataclass(frozen=True)
class ThinkSplit:
    """An output split into the reasoning it starts with and its answer.

    ``reasoning + answer`` is the output: nothing is lost.

    Attributes:
        reasoning: The reasoning the output starts with, tags included ("" when none).
        answer: The rest of the output, as written ("" when the output ended while thinking).
        unfinished: The output ended inside its reasoning: it holds no answer.

    """

    reasoning: str
    answer: str
    unfinished: bool


def split_think(text: str, *, prompt_opened: bool | None = None) -> ThinkSplit:
    """Split a model's output into the reasoning it starts with and the answer after it.

    The one owner of this rule (scorers, solvers, ``alce-eval`` and the lm-eval hooks use it):

    - Reasoning is only where the output starts: an explicit ``<think>`` at its start (after
      whitespace), or a block the chat template opened in the prompt (DeepSeek-R1 distills,
      Qwen3-*-Thinking-2507, QwQ), so that the output is ``reasoning</think>answer``.
      Blocks nest: the reasoning ends at the ``</think>`` that brings the depth back to zero.
      Blocks separated only by whitespace are all reasoning.
    - Once the answer has begun, everything is the answer, including a literal ``<think>`` or
      ``</think>`` quoted from a document: it neither cuts the answer nor marks it unfinished.
    - An output whose reasoning never closes ended while thinking: no answer.

    Args:
        text: The output's text.
        prompt_opened: Whether the prompt left a ``<think>`` open, so the output starts inside
            it (True), or not (False), as recorded where the template was rendered
            (:func:`inspect_cite.thinking.think_opened_by_prompt`). None (not known, e.g. a
            server rendered it) infers it from the output: an output that does not start with
            ``<think>`` but holds a ``</think>`` closing more blocks than were opened before it
            started inside one. Only the recorded value can tell reasoning cut before its
            ``</think>`` from an answer without tags.

    """
    if prompt_opened is None:
        prompt_opened = _starts_inside_think(text)
    depth = 1 if prompt_opened else 0
    end = 0  # where the reasoning seen so far ends
    for tag in _THINK_TAG.finditer(text):
        if depth == 0:
            if tag.group() == "<think>" and not text[end : tag.start()].strip():
                depth = 1  # another block before the answer
                continue
            break  # the answer has begun: its tags are its own text
        depth += 1 if tag.group() == "<think>" else -1
        if depth == 0:
            end = tag.end()
    if depth > 0:
        return ThinkSplit(reasoning=text, answer="", unfinished=True)
    return ThinkSplit(reasoning=text[:end], answer=text[end:], unfinished=False)


def _starts_inside_think(text: str) -> bool:
    if text.lstrip().startswith("<think>"):
        return False
    depth = 0
    for tag in _THINK_TAG.finditer(text):
        depth += 1 if tag.group() == "<think>" else -1
        if depth < 0:
            return True
    return False


def strip_think(text: str, *, prompt_opened: bool | None = None) -> str:
    """The answer of ``text`` without the reasoning it starts with (:func:`split_think`).

    An output that ended while thinking gives "": none of it is the answer.
    """
    return split_think(text, prompt_opened=prompt_opened).answer


def unclosed_think(text: str, *, prompt_opened: bool | None = None) -> bool:
    """Whether ``text`` ended inside its reasoning, leaving no answer (:func:`split_think`)."""
    return split_think(text, prompt_opened=prompt_opened).unfinished
