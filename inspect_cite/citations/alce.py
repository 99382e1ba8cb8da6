r"""ALCE's citation format: ``[n]`` markers after statements, numbering the shown documents from 1.

The one place that reads and writes ALCE markers. :data:`MARKER` is the format's only regular
expression; every reading below is a view of its matches (:func:`markers`):

- eval.py's reading (``alce_compat``): a citation is ``re.findall(r"\[\d+", text)``, so only the
  first number of ``[1, 2]`` counts, an unclosed ``[3`` counts, ``[0]`` is index -1 (the last
  document) and ``[1][1]`` cites document 1 twice (:func:`marker_refs`); markers are removed
  as eval.py's ``remove_citations`` removes them, quirks included (:func:`remove_citations`);
- the fixed reading: complete markers only, every number of ``[1, 2]`` / ``[1; 2]`` / ``[ 3 ]``,
  each document once (:func:`marker_refs` with ``alce_compat=False``, :func:`strip_markers`,
  :func:`leading_markers_end`);
- generation: the literal a model writes (:func:`render_marker`), the markers a constrained
  answer may use and why an answer breaks the format (:func:`ids_problem`,
  :func:`marker_problems`), the spans to highlight (:func:`marker_spans`).

It also holds how ALCE cleans a generation before reading it (run.py's post-processing and
eval.py's first line): :func:`alce_postprocess`, :func:`scoring_line`,
:func:`alce_scoring_output`, :func:`alce_answer_text`.
"""

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from inspect_cite.text.think import strip_think

MARKER = re.compile(r"\[(?P<pad>\s*)(?P<first>\d+)(?P<more>(?:\s*[,;]\s*\d+)*)(?P<close>\s*\])?")
r"""A citation marker: ``[``, numbers separated by ``,`` or ``;``, ``]`` (which may be missing).

Every ``[`` followed by digits starts exactly one match, as it starts one of eval.py's
``\[\d+`` matches (a match never contains a second ``[``), so eval.py's reading and the fixed
one see the same markers.
"""

_NUMBER_SEPARATOR = re.compile(r"\s*[,;]\s*")

# More significant digits than any document list can need (and fewer than int() refuses).
_MAX_CITATION_DIGITS = 18


def citation_number(digits: str) -> int | None:
    r"""The number in a citation marker (``"12"`` of ``[12]``); None when out of any range.

    eval.py reads markers with ``int()``, which Python refuses beyond 4,300 digits (and which
    grows slow long before). A number with more than 18 significant digits names no document
    in any list, so it is returned as None: an out-of-range, invalid citation, as eval.py
    judges every number it can read that is past the last document. Every other number is
    exactly ``int(digits)``.

    Args:
        digits: Decimal digits (any script ``\d`` matches, as ``int()`` reads them).

    """
    if len(digits) > _MAX_CITATION_DIGITS:
        start = 0
        while start < len(digits) - 1 and unicodedata.decimal(digits[start], -1) == 0:
            start += 1
        digits = digits[start:]
        if len(digits) > _MAX_CITATION_DIGITS:
            return None
    return int(digits)


def _ref(digits: str) -> int | None:
    number = citation_number(digits)
    return None if number is None else number - 1


@dataclass(frozen=True)
class Marker:
    r"""One match of :data:`MARKER`.

    Attributes:
        start: Offset of the ``[``.
        end: Offset after the match (after ``]`` when closed, else after the last digit).
        text: The matched text.
        refs: Every number as a 0-based index, in order (None: too long for any document).
        closed: Whether the marker ends with ``]``.
        eval_end: For a marker eval.py reads (``[`` directly followed by digits), the offset
            after those digits (what its ``\[\d+`` matches); None for ``[ 3]``.

    """

    start: int
    end: int
    text: str
    refs: tuple[int | None, ...]
    closed: bool
    eval_end: int | None

    @property
    def eval_ref(self) -> int | None:
        """eval.py's reading of this marker: its first number minus one."""
        return self.refs[0]

    @property
    def plain(self) -> bool:
        """Whether the marker is exactly ``[digits]`` (what a model is asked to write)."""
        return self.closed and self.text[1:-1].isdigit()


def markers(text: str) -> list[Marker]:
    """Every marker in ``text``, in order."""
    found = []
    for m in MARKER.finditer(text):
        numbers = [m["first"], *_NUMBER_SEPARATOR.split(m["more"])[1:]]
        found.append(
            Marker(
                start=m.start(),
                end=m.end(),
                text=m.group(0),
                refs=tuple(_ref(digits) for digits in numbers),
                closed=m["close"] is not None,
                eval_end=None if m["pad"] else m.end("first"),
            )
        )
    return found


def marker_refs(text: str, alce_compat: bool = True) -> list[int | None]:
    r"""The 0-based documents ``text`` cites (None for a number too long to name any).

    Args:
        text: A statement or answer.
        alce_compat: eval.py's reading, ``int(m[1:]) - 1`` for each ``\[\d+`` (``[0]`` gives
            -1, eval.py's last document; repeats kept). Otherwise every number of every
            complete marker, each document once, in order of first appearance.

    """
    if alce_compat:
        return [m.eval_ref for m in markers(text) if m.eval_end is not None]
    refs = [r for m in markers(text) if m.closed for r in m.refs]
    return list(dict.fromkeys(refs))


def remove_citations(text: str) -> str:
    r"""Remove ``[n]`` markers exactly as ALCE's ``remove_citations`` does.

    eval.py deletes `` \[\d+`` then ``\[\d+`` (the ``[`` and the first number, with one
    space before it), then every ``" |"`` and every ``]``; the quirks are kept so that results
    match eval.py (``[1, 2]`` leaves ``", 2"``).
    """
    out, pos = [], 0
    for m in markers(text):
        if m.eval_end is None:
            continue
        start = m.start - 1 if m.start > 0 and text[m.start - 1] == " " else m.start
        out.append(text[pos:start])
        pos = m.eval_end
    out.append(text[pos:])
    return "".join(out).replace(" |", "").replace("]", "")


def strip_markers(text: str, plain_only: bool = False) -> str:
    """``text`` without its complete markers and the whitespace just before each.

    Args:
        text: A statement or answer.
        plain_only: Remove only plain ``[n]`` markers (leave ``[1, 2]`` and ``[ 3 ]``).

    """
    out, pos = [], 0
    for m in markers(text):
        if m.plain if plain_only else m.closed:
            out.append(text[pos : m.start].rstrip())
            pos = m.end
    out.append(text[pos:])
    return "".join(out)


def leading_markers_end(text: str) -> int:
    """Where the complete markers that open ``text`` (whitespace between allowed) end; 0 if none."""
    end = 0
    for m in markers(text):
        if not m.closed or text[end : m.start].strip():
            break
        end = m.end
    return end


def marker_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the plain ``[n]`` markers (to highlight citations in an answer)."""
    return [(m.start, m.end) for m in markers(text) if m.plain]


def render_marker(number: int) -> str:
    """The marker citing document ``number`` (1-based): ``[number]``."""
    return f"[{number}]"


def ids_problem(doc_ids: Sequence[str]) -> str | None:
    """Why documents with these ids cannot be cited with markers, or None.

    A marker cites a document by its position, so the ids must be ``"1"``..``"n"`` in order
    (as the ALCE tasks number the shown documents).
    """
    if list(doc_ids) != [str(i) for i in range(1, len(doc_ids) + 1)]:
        shown = ", ".join(repr(d) for d in list(doc_ids)[:5])
        return f"[n] cites the n-th document: ids must be 1..{len(doc_ids)} in order, got {shown}"
    return None


def marker_problems(text: str, ndoc: int) -> list[str]:
    """Why ``text`` is not a valid ALCE-format answer for ``ndoc`` shown documents ([] if valid).

    Valid: at least one marker, every marker is ``[1]``..``[ndoc]``, no other brackets, and the
    answer does not start with a marker (every marker follows a statement).
    """
    found = [m for m in markers(text) if m.closed]
    allowed = {render_marker(i) for i in range(1, ndoc + 1)}
    reasons = [] if found else ["no citation"]
    reasons += [
        f"{m.text} is not one of the shown documents" for m in found if m.text not in allowed
    ]
    if "[" in strip_markers(text) or "]" in strip_markers(text):
        reasons.append("unbalanced brackets")
    if text.lstrip().startswith("["):
        reasons.append("citation follows no statement")
    return reasons


def last_marker_end(text: str) -> int:
    """The offset after the last complete marker of ``text`` (0 when it has none)."""
    closed = [m for m in markers(text) if m.closed]
    return closed[-1].end if closed else 0


def alce_postprocess(text: str, *, prompt_opened: bool | None = None) -> str:
    """ALCE run.py's cleanup of a generation, after removing the reasoning it starts with.

    Strips ``<|im_end|>``, right-strips, and removes a trailing ``End.``. ``prompt_opened`` is
    :func:`inspect_cite.text.think.split_think`'s (what the output recorded; None infers it).
    """
    text = strip_think(text, prompt_opened=prompt_opened).replace("<|im_end|>", "").rstrip()
    if text.endswith("End."):
        text = text[: -len("End.")]
    return text


def scoring_line(output: str) -> str:
    """eval.py's cut of a saved output: stripped, its first line, ``<|im_end|>`` removed."""
    return output.strip().split("\n")[0].replace("<|im_end|>", "")


def alce_scoring_output(text: str, *, prompt_opened: bool | None = None) -> str:
    """The output as ALCE's eval.py scores it: cleaned as run.py does, then its first line."""
    return scoring_line(alce_postprocess(text, prompt_opened=prompt_opened))


def alce_answer_text(text: str, *, prompt_opened: bool | None = None) -> str:
    """The citation-free first-line output that eval.py's non-citation metrics read.

    eval.py's ``normalized_data``: the first line of the cleaned output with ``[n]`` markers
    removed (MAUVE, QA accuracy and the correctness metrics all read this text).
    """
    return remove_citations(alce_scoring_output(text, prompt_opened=prompt_opened))
