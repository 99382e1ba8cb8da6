"""An answer read as LongCite reads it: statements, each with the chunk ranges it cites.

The definition is ``postprocess`` and ``get_citations`` of LongCite's ``pred_one_shot.py`` at
the pinned commit:

- The answer is cut at ``<statement>...</statement>``. Text between statements (or before the
  first, after the last) is a statement without citations when it holds more than 5
  characters once stripped. A ``<statement>`` without a closing tag ends the reading: the text
  after it is not read.
- Inside a statement, every ``[a-b]`` of every ``<cite>...</cite>`` is a citation of chunks
  ``a`` to ``b``; a bare ``[a]`` is not read. The ``<cite>`` blocks are removed from the
  statement's text.
- A range starting after the last chunk, or ending before it starts, is dropped; one ending
  after the last chunk is cut there. A range starting right after the previous citation's end
  is merged into it. Only the first 3 citations (after merging) are kept.
- An answer starting with ``statement>`` (its ``<`` eaten) gets it back first.

:class:`Statement` keeps what was dropped or cut off, for explanations and the ``strict``
scoring (docs/longcite.md).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

OPEN = "<statement>"
CLOSE = "</statement>"
MAX_CITATIONS = 3
"""Citations kept per statement, after merging (LongCite's ``merged_citations[:3]``)."""

MIN_UNTAGGED_CHARS = 5
"""Untagged text is a statement when it holds more than this many characters, stripped."""

_CITE_BLOCK = re.compile(r"<cite>(.*?)</cite>", re.DOTALL)
_RANGE = re.compile(r"\[([0-9]+\-[0-9]+)\]", re.DOTALL)


@dataclass
class Citation:
    """Chunks ``start`` to ``end`` (inclusive) and the text they quote."""

    start: int
    end: int
    text: str

    @property
    def label(self) -> str:
        """The range as the answer writes it."""
        return f"[{self.start}-{self.end}]"


@dataclass
class Statement:
    """One statement: its text without ``<cite>`` blocks and the citations kept."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    tagged: bool = True
    """Written inside ``<statement>`` (False: text between statements)."""
    dropped: list[str] = field(default_factory=list)
    """Ranges that name no chunk shown (after the last one, or reversed)."""
    beyond_cap: list[Citation] = field(default_factory=list)
    """Citations after the first :data:`MAX_CITATIONS`, which are not scored."""


def restore_open_tag(answer: str) -> str:
    """The answer with the ``<`` of a leading ``statement>`` put back, as LongCite does."""
    return "<" + answer if answer.startswith("statement>") else answer


def read_citations(text: str, chunks: Sequence[str]) -> Statement:
    """One statement's text and citations (``chunks``: as citations quote them)."""
    ranges = [r for block in _CITE_BLOCK.findall(text) for r in _RANGE.findall(block)]
    statement = Statement(_CITE_BLOCK.sub("", text).strip())
    last = len(chunks) - 1
    merged: list[Citation] = []
    for written in ranges:
        start, end = (int(x) for x in written.split("-"))
        if start > last or end < start:
            statement.dropped.append(f"[{written}]")
            continue
        end = min(end, last)
        if merged and start == merged[-1].end + 1:
            first = merged[-1].start
            merged[-1] = Citation(first, end, "".join(chunks[first : end + 1]))
        else:
            merged.append(Citation(start, end, "".join(chunks[start : end + 1])))
    statement.citations = merged[:MAX_CITATIONS]
    statement.beyond_cap = merged[MAX_CITATIONS:]
    return statement


def read_statements(answer: str, chunks: Sequence[str]) -> list[Statement]:
    """The answer's statements in order (see the module docstring).

    Args:
        answer: The model's answer (after :func:`restore_open_tag`).
        chunks: The context's chunks as citations quote them
            (:func:`inspect_cite.longcite.chunks.citation_texts`).

    """
    statements = []
    pos = 0
    while True:
        start = answer.find(OPEN, pos)
        if start == -1:
            start = len(answer)
        end = answer.find(CLOSE, start)
        between = answer[pos:start]
        if len(between.strip()) > MIN_UNTAGGED_CHARS:
            statements.append(Statement(between.strip(), tagged=False))
        if end == -1:
            return statements
        inner = answer[start + len(OPEN) : end]
        if inner.strip():
            statements.append(read_citations(inner, chunks))
        pos = end + len(CLOSE)


def without_citations(answer: str) -> str:
    """The answer with its ``<cite>`` blocks and statement tags removed (what graders read)."""
    return _CITE_BLOCK.sub("", answer).replace(OPEN, "").replace(CLOSE, "")
