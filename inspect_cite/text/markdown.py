r"""Markdown for scorer explanations that Inspect's log viewer shows as the text it holds.

``inspect view`` renders an explanation in steps (inspect_ai 0.3.285, ``markdownPipeline``):
it first replaces ``< > & ' "`` with HTML entities (so no HTML of ours or the user's is ever
rendered), shows a line that starts like ``a) `` as a raw HTML paragraph and ``[label]: text``
as ``[label] text``, then renders markdown with markdown-it (tables, strikethrough, and
``$...$`` math when the text holds a ``$``). So the user's text (answers, claims, snippets,
titles, ids, specs) is escaped here for markdown, never for HTML: a backslash before ``<`` would
stay in front of the viewer's ``&lt;`` and show as ``&lt;``. What is escaped:

- everywhere: ``\ ` * _ ~ | $`` (emphasis, code, strikethrough, table cells, math), and a ``]``
  followed by ``(`` (a link) or ``:`` (with the colon: a link definition, the viewer's step);
- at the start of a line: ``#``, ``+``, ``-``, ``=`` (headings, lists, rules) and the ``.`` or
  ``)`` of ``12.`` or ``a)`` (numbered lists, the viewer's lettered ones); the line's indent is
  dropped (four spaces would make a code block, which shows backslashes).

Bold and italic delimiters pair only where CommonMark lets them (a ``**`` before punctuation
opens only after a space or punctuation): :func:`emphasis` moves a delimiter that would not pair
to the nearest letter or digit inside the span, so ``claim{doc_id: X}`` with its citation in
bold is ``claim{**doc\_id: X**}``, not literal asterisks.
"""

import re
import string
import unicodedata
from collections.abc import Sequence

_ESCAPED = set("\\`*_~|$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A numbered (or, in the viewer, lettered) list item at the start of a line: "12. ", "a) ".
_LIST_NUMBER = re.compile(r"(?:\d{1,9}|[A-Za-z])([.)])(?=\s|$)")
# Whitespace as markdown-it reads it around a delimiter (``isWhiteSpace``).
_SPACE = set("\t\n\x0b\x0c\r \xa0\u1680\u202f\u205f\u3000") | {
    chr(c) for c in range(0x2000, 0x200B)
}


def _escaped(text: str, line_start: bool) -> tuple[str, list[int]]:
    """``text`` escaped, and where each of its characters (and its end) begins in the result.

    A dropped character (a line's indent) maps to where the next kept one begins.
    """
    out: list[str] = []
    at: list[int] = []
    size = 0
    backslash = {i for i in range(len(text) - 1) if text[i] == "]" and text[i + 1] in "(:"}
    backslash |= {i + 1 for i in backslash if text[i + 1] == ":"}
    starts = [0] if line_start else []
    starts += [m.end() for m in _LINE_BREAK.finditer(text)]
    dropped: set[int] = set()
    for start in starts:
        i = start
        while i < len(text) and text[i] in " \t":
            dropped.add(i)
            i += 1
        if i < len(text) and text[i] in "#+=-":
            backslash.add(i)
        elif m := _LIST_NUMBER.match(text, i):
            backslash.add(m.start(1))
    for i, ch in enumerate(text):
        at.append(size)
        if i in dropped:
            continue
        piece = "\\" + ch if ch in _ESCAPED or i in backslash else ch
        out.append(piece)
        size += len(piece)
    at.append(size)
    return "".join(out), at


def literal(text: str, *, line_start: bool = True) -> str:
    """``text`` as markdown that the log viewer shows as exactly ``text``.

    Line breaks are kept (the viewer shows each as a line break); the indent of a line is
    dropped (the viewer would not show it).

    Args:
        text: The user's text.
        line_start: Whether the markdown may start a line: block syntax at its start (``# ``,
            ``- ``, ``1. ``) is escaped too. False for a piece in the middle of a line.

    """
    return _escaped(text, line_start)[0]


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line (each run of whitespace as one space), cut to ``limit`` with ``…``."""
    text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def cell(text: str, limit: int | None = 300, empty: str = "*(empty)*") -> str:
    """``text`` on one line, cut to ``limit`` (:func:`one_line`), escaped (:func:`literal`).

    Safe in a table cell (``|`` is escaped). ``empty`` (markdown) stands for blank text.
    """
    text = one_line(text, limit)
    return literal(text) if text else empty


def _kind(ch: str | None) -> str:
    """``space``, ``punct`` or ``other``, as markdown-it classes a delimiter's neighbour."""
    if ch is None or ch in _SPACE:
        return "space"  # the start or end of a line counts as whitespace
    if ch in string.punctuation or unicodedata.category(ch)[0] in "PS":
        return "punct"
    return "other"


def _bounds(
    text: str, start: int, end: int, before: str | None, after: str | None
) -> tuple[int, int] | None:
    """Where delimiters around ``text[start:end]`` pair (None: nowhere).

    The span itself, or the part of it between its first and last letter or digit.

    CommonMark's rules for ``*`` runs: an opener must be left-flanking (not followed by
    whitespace, and not by punctuation unless whitespace or punctuation precedes it), a closer
    right-flanking (the mirror image). A letter or digit next to the delimiter inside the span
    satisfies both. The characters markdown-it sees around a delimiter keep their class after
    escaping (a backslash and the HTML entities the viewer writes are punctuation, as are the
    characters they stand for).
    """
    first, last = text[start] if end > start else None, text[end - 1] if end > start else None
    if (
        first is None
        or _kind(first) == "space"
        or (_kind(first) == "punct" and _kind(before) == "other")
    ):
        start = next((i for i in range(start, end) if _kind(text[i]) == "other"), end)
    if (
        last is None
        or _kind(last) == "space"
        or (_kind(last) == "punct" and _kind(after) == "other")
    ):
        end = next((i + 1 for i in range(end - 1, start - 1, -1) if _kind(text[i]) == "other"), 0)
    return (start, end) if start < end else None


def _with_markers(
    text: str, spans: Sequence[tuple[int, int]], marker: str, line_start: bool
) -> str:
    """``text`` escaped, with ``marker`` around each of the disjoint, sorted ``spans``."""
    escaped, at = _escaped(text, line_start)
    cuts: list[int] = []
    for start, end in _by_line(text, spans):
        before = None if start == 0 or text[start - 1] in "\r\n" else text[start - 1]
        after = None if end == len(text) or text[end] in "\r\n" else text[end]
        bounds = _bounds(text, start, end, before, after)
        if bounds is not None:
            cuts += [at[bounds[0]], at[bounds[1]]]
    pieces, pos = [], 0
    for cut in cuts:
        pieces += [escaped[pos:cut], marker]
        pos = cut
    pieces.append(escaped[pos:])
    return "".join(pieces)


def _by_line(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans cut at line breaks.

    Emphasis does not cross a blank line: each line's part of a span gets its own delimiters.
    """
    out = []
    for start, end in spans:
        for m in _LINE_BREAK.finditer(text, start, end):
            out.append((start, m.start()))
            start = m.end()
        out.append((start, end))
    return out


def emphasis(text: str, marker: str = "**", *, line_start: bool = False) -> str:
    """``text`` escaped, inside ``marker`` delimiters placed where they pair.

    For text that stands between spaces or punctuation (or at a line's start or end). A
    delimiter that would not pair moves inside the text, to its first (last) letter or digit;
    text with neither is shown without emphasis.

    Args:
        text: The text to emphasise (the user's, shown literally).
        marker: ``**`` (bold) or ``*`` (italic).
        line_start: Whether the result may start a line (see :func:`literal`).

    """
    return _with_markers(text, [(0, len(text))] if text else [], marker, line_start)


def bold(text: str) -> str:
    """``text`` in bold, standing between spaces or punctuation (see :func:`emphasis`)."""
    return emphasis(text, "**")


def italic(text: str) -> str:
    """``text`` in italics, standing between spaces or punctuation (see :func:`emphasis`)."""
    return emphasis(text, "*")


def code(text: str, limit: int | None = None) -> str:
    """``text`` on one line (:func:`one_line`) as a code span, however many backticks it holds.

    Blank text gives "". A code span shows its text as is: nothing in it is escaped.
    """
    text = one_line(text, limit)
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def highlight_markdown(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` as markdown with the character ``spans`` (citations) in bold, the rest escaped.

    Used by scorer explanations so the log viewer shows the answer with its citations marked;
    citations that touch or overlap share one bold run. For text placed after other text on
    its line (``**Answer:** ...``).
    """
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        elif end > start:
            merged.append([start, end])
    return _with_markers(text, [(s, e) for s, e in merged], "**", line_start=False)
