"""The FullCite citation format (`{doc_id: X, snippet: Y}`): parse and render.

An answer follows every claim with one or more inline citations. Three spellings are read:

- ``{doc_id: X, snippet: Y}`` (the FullCite format, and what :func:`render_citation` writes);
  the keys may be quoted (``{"doc_id": "X", "snippet": "Y"}``) and the comma may be missing.
- ``[doc:X snippet:"Y"]`` and ``[doc:X snippet:Y]`` (the FullCite authors' released outputs).

Decisions (documented in the README):

- **Doc id**: the text between ``doc_id:``/``doc:`` and the ``snippet:`` key, stripped, with one
  layer of enclosing quotes removed. Ids may contain ``:``, ``,`` and ``.``
  (``the-dark-tower:-the-wind-through-the-keyhole``, ``wednesday-morning,-3-a.m.``).
- **Snippet end**: a quoted snippet (``snippet: "Y"``) ends at the first quote followed by the
  closing brace/bracket, so quotes inside it are fine. An unquoted snippet may contain
  *balanced* ``{...}`` (brace style) or ``[...]`` (bracket style, e.g. ``[3,4]`` reference
  marks): the citation ends at the first closing character that is not matched inside the
  snippet. A lone ``}`` inside a brace-style snippet therefore ends the citation early; the
  renderer refuses such snippets (or falls back to the quoted bracket style) and the
  constrained grammar never produces them. If no closing character is found before the next
  citation opens (``nested``) or the text ends (``unbalanced``), the citation is closed at the
  last closing character seen, or else at the end of its line, and a problem is reported.
- **Snippet text**: stripped, one layer of enclosing quotes (``"``, ``“…”``) removed; inner
  whitespace is kept as written.
- **Claims**: a claim is the text between the previous citation (or the previous sentence end,
  English Punkt; a newline always ends a sentence) and its citation. Citations separated only
  by whitespace or punctuation share one claim. Text that precedes a claim's sentence, and text
  after the last citation, is kept sentence by sentence in ``uncited``. An answer with no
  citation at all has no claims: that is a citation omission.
- :func:`parse_citations` never raises: malformed markup yields what could be read plus a list
  of :class:`CitationProblem`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from inspect_cite.text.sentences import sent_spans

CitationStyle = Literal["brace", "bracket"]

_BRACE_OPEN = re.compile(r"\{\s*[\"']?doc[_ ]?id[\"']?\s*:", re.IGNORECASE)
_BRACKET_OPEN = re.compile(r"\[\s*doc\s*:", re.IGNORECASE)
_BRACE_SNIPPET_KEY = re.compile(r",?\s*[\"']?\bsnippet[\"']?\s*:", re.IGNORECASE)
_BRACKET_SNIPPET_KEY = re.compile(r",?\s*\bsnippet\s*:", re.IGNORECASE)
_QUOTE_CLOSE = {"brace": re.compile(r"[\"”]\s*\}"), "bracket": re.compile(r"[\"”]\s*\]")}
_DELIMS = {"brace": ("{", "}"), "bracket": ("[", "]")}
_OPEN_QUOTES = '"“'
_CLOSE_QUOTES = '"”'
# Leading characters that belong to the previous sentence or citation, not to a claim.
_LEADING_JUNK = " \t\r\n,;:.!?)]}"


@dataclass(frozen=True)
class Citation:
    """One inline citation.

    Attributes:
        doc_id: The cited document id as written (stripped, enclosing quotes removed).
        snippet: The cited evidence as written (stripped, enclosing quotes removed).
        start: Offset of the first character of the citation markup in the answer.
        end: Offset just past the citation markup.
        style: ``"brace"`` for ``{doc_id: X, snippet: Y}``, ``"bracket"`` for ``[doc:X ...]``.

    """

    doc_id: str
    snippet: str
    start: int
    end: int
    style: CitationStyle


@dataclass(frozen=True)
class Claim:
    """A claim and the citations that follow it.

    Attributes:
        text: The claim text, whitespace-normalised ("" when a citation has no claim).
        citations: The citations that follow the claim, in order.
        start: Offset of the claim text in the answer.
        end: Offset just past the claim text.

    """

    text: str
    citations: tuple[Citation, ...]
    start: int
    end: int


@dataclass(frozen=True)
class CitationProblem:
    """Something malformed in an answer's citations.

    Attributes:
        kind: One of ``unbalanced``, ``nested``, ``empty_snippet``, ``missing_snippet``,
            ``empty_doc_id``, ``unknown_doc_id``, ``no_claim``, ``stray_brace``.
        message: A human-readable description.
        start: Offset where the problem starts in the answer.
        end: Offset where it ends.

    """

    kind: str
    message: str
    start: int
    end: int


@dataclass(frozen=True)
class ParsedAnswer:
    """An answer split into cited claims, uncited text and problems.

    Attributes:
        text: The original answer.
        claims: The cited claims, in order.
        uncited: Sentences (whitespace-normalised) that no citation follows.
        problems: Malformed markup found while parsing.

    """

    text: str
    claims: list[Claim] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)
    problems: list[CitationProblem] = field(default_factory=list)

    @property
    def citations(self) -> list[Citation]:
        """Every citation in the answer, in order."""
        return [c for claim in self.claims for c in claim.citations]

    @property
    def omitted(self) -> bool:
        """True when the answer has no citation at all (citation omission)."""
        return not self.claims


def parse_citations(text: str, doc_ids: Collection[str] | None = None) -> ParsedAnswer:
    """Parse an answer into claims and citations. Never raises.

    Args:
        text: The model's answer (think blocks already removed).
        doc_ids: The ids of the context documents; citations of other ids are reported as
            ``unknown_doc_id`` problems (and still returned). ``None`` skips the check.

    Returns:
        The claims with their citations, the uncited sentences and any problems.

    """
    if not isinstance(text, str):
        return ParsedAnswer(
            text="",
            problems=[CitationProblem("not_text", f"answer is {type(text).__name__}", 0, 0)],
        )
    problems: list[CitationProblem] = []
    citations = _find_citations(text, problems)
    known = None if doc_ids is None else {str(d) for d in doc_ids}
    for c in citations:
        if not c.doc_id:
            problems.append(
                CitationProblem("empty_doc_id", "citation has no doc id", c.start, c.end)
            )
        elif known is not None and c.doc_id not in known:
            problems.append(
                CitationProblem(
                    "unknown_doc_id",
                    f"doc id {c.doc_id!r} is not one of the context documents",
                    c.start,
                    c.end,
                )
            )
    claims, uncited = _group_claims(text, citations, problems)
    _find_stray_braces(text, citations, problems)
    problems.sort(key=lambda p: (p.start, p.end))
    return ParsedAnswer(text=text, claims=claims, uncited=uncited, problems=problems)


def _openings(text: str) -> list[tuple[int, int, CitationStyle]]:
    found: list[tuple[int, int, CitationStyle]] = [
        (m.start(), m.end(), "brace") for m in _BRACE_OPEN.finditer(text)
    ]
    found += [(m.start(), m.end(), "bracket") for m in _BRACKET_OPEN.finditer(text)]
    return sorted(found)


def _find_citations(text: str, problems: list[CitationProblem]) -> list[Citation]:
    openings = _openings(text)
    citations: list[Citation] = []
    pos = 0
    for i, (start, body, style) in enumerate(openings):
        if start < pos:  # inside a citation already read (e.g. quoted in its snippet)
            continue
        boundary = len(text)
        for later in openings[i + 1 :]:
            if later[0] >= body:
                boundary = later[0]
                break
        citation = _read_citation(text, start, body, boundary, style, problems)
        citations.append(citation)
        pos = citation.end
    return citations


def _read_citation(
    text: str,
    start: int,
    body: int,
    boundary: int,
    style: CitationStyle,
    problems: list[CitationProblem],
) -> Citation:
    """Read one citation whose opening ends at ``body``; the next opening is at ``boundary``."""
    key_re = _BRACE_SNIPPET_KEY if style == "brace" else _BRACKET_SNIPPET_KEY
    content_end, end, kind = _body_end(text, body, boundary, style)
    key = key_re.search(text, body, content_end)
    if key is None:
        # No snippet key before the citation closes: a doc-only citation.
        if kind:
            problems.append(_unclosed_problem(kind, start, end, style))
        problems.append(CitationProblem("missing_snippet", "citation has no snippet", start, end))
        return Citation(_unquote(text[body:content_end], "\"'"), "", start, end, style)

    doc_id = _unquote(text[body : key.start()], "\"'")
    value = key.end()
    while value < boundary and text[value] in " \t":
        value += 1
    if value < boundary and text[value] in _OPEN_QUOTES:
        m = _QUOTE_CLOSE[style].search(text, value + 1, boundary)
        if m is not None:
            snippet = text[value + 1 : m.start()].strip()
            return _checked(Citation(doc_id, snippet, start, m.end(), style), problems)
    content_end, end, kind = _body_end(text, value, boundary, style)
    if kind:
        problems.append(_unclosed_problem(kind, start, end, style))
    snippet = _unquote(text[value:content_end], None)
    return _checked(Citation(doc_id, snippet, start, end, style), problems)


def _body_end(text: str, begin: int, boundary: int, style: CitationStyle) -> tuple[int, int, str]:
    """Where a citation body starting at ``begin`` ends, before the next opening at ``boundary``.

    Returns ``(content_end, end, problem_kind)``: the body is ``text[begin:content_end]``, the
    citation markup ends at ``end``, and ``problem_kind`` is "" for a properly closed citation.
    Balanced opener/closer pairs inside the body are skipped. If the body never returns to
    depth zero, the last closer seen is used (``unbalanced``); with no closer at all, the body
    runs to the end of its line or to the next opening (``nested``).
    """
    opener, closer = _DELIMS[style]
    depth = 0
    last = None
    for i in range(begin, boundary):
        ch = text[i]
        if ch == opener:
            depth += 1
        elif ch == closer:
            if depth == 0:
                return i, i + 1, ""
            depth -= 1
            last = i
    if last is not None:
        return last, last + 1, "unbalanced"
    line_end = text.find("\n", begin, boundary)
    if line_end != -1:
        return line_end, line_end, "unbalanced"
    return boundary, boundary, "nested" if boundary < len(text) else "unbalanced"


def _unclosed_problem(kind: str, start: int, end: int, style: CitationStyle) -> CitationProblem:
    closer = _DELIMS[style][1]
    if kind == "nested":
        message = f"a citation opens inside this citation before its closing '{closer}'"
    else:
        message = f"citation not closed by a matching '{closer}'"
    return CitationProblem(kind, message, start, end)


def _checked(citation: Citation, problems: list[CitationProblem]) -> Citation:
    if not citation.snippet:
        problems.append(
            CitationProblem("empty_snippet", "snippet is empty", citation.start, citation.end)
        )
    return citation


def _unquote(value: str, quotes: str | None) -> str:
    """Strip whitespace and one layer of enclosing quotes."""
    value = value.strip()
    if len(value) >= 2:
        if quotes is None:
            if value[0] in _OPEN_QUOTES and value[-1] in _CLOSE_QUOTES:
                return value[1:-1].strip()
        elif value[0] in quotes and value[-1] == value[0]:
            return value[1:-1].strip()
    return value


def _has_content(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


_LIST_MARKER = re.compile(r"\W*\d{1,3}[.)]\W*")


def _group_claims(
    text: str, citations: list[Citation], problems: list[CitationProblem]
) -> tuple[list[Claim], list[str]]:
    groups: list[list[Citation]] = []
    for c in citations:
        if groups and not _has_content(text[groups[-1][-1].end : c.start]):
            groups[-1].append(c)
        else:
            groups.append([c])

    claims: list[Claim] = []
    uncited: list[str] = []
    prev_end = 0
    for group in groups:
        region_start, region_end = prev_end, group[0].start
        sentences = _sentences(text, region_start, region_end)
        if sentences:
            *before, (s, e) = sentences
            uncited += [_normalise(text[a:b]) for a, b in before]
            claims.append(Claim(_normalise(text[s:e]), tuple(group), s, e))
        else:
            claims.append(Claim("", tuple(group), region_end, region_end))
            problems.append(
                CitationProblem(
                    "no_claim", "citation follows no claim text", group[0].start, group[-1].end
                )
            )
        prev_end = group[-1].end
    uncited += [_normalise(text[a:b]) for a, b in _sentences(text, prev_end, len(text))]
    return claims, uncited


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans (absolute offsets) with content in ``text[start:end]``."""
    region = text[start:end]
    spans = []
    for s, e in sent_spans(region):
        while s < e and region[s] in _LEADING_JUNK:
            s += 1
        if _has_content(region[s:e]) and not _LIST_MARKER.fullmatch(region[s:e]):
            spans.append((start + s, start + e))
    return spans


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _find_stray_braces(
    text: str, citations: list[Citation], problems: list[CitationProblem]
) -> None:
    pos = 0
    for c in [*citations, None]:
        stop = c.start if c is not None else len(text)
        for i in range(pos, stop):
            if text[i] == "}":
                problems.append(
                    CitationProblem("stray_brace", "'}' outside any citation", i, i + 1)
                )
        if c is not None:
            pos = c.end


def render_citation(doc_id: str, snippet: str, style: CitationStyle = "brace") -> str:
    """Write one citation so that :func:`parse_citations` reads back the same id and snippet.

    Brace style writes ``{doc_id: X, snippet: Y}``; a snippet that itself starts and ends with
    a quote is wrapped in one more pair of quotes. Bracket style writes ``[doc:X snippet:"Y"]``.

    Args:
        doc_id: The document id (stripped).
        snippet: The evidence text (stripped).
        style: ``"brace"`` (FullCite) or ``"bracket"`` (the authors' released outputs).

    Raises:
        ValueError: The id or snippet cannot be written in this style so that it parses
            back unchanged (e.g. a lone ``}`` in a brace-style snippet).

    """
    doc_id, snippet = doc_id.strip(), snippet.strip()
    if style == "brace":
        shown = snippet
        if len(snippet) >= 2 and snippet[0] in _OPEN_QUOTES and snippet[-1] in _CLOSE_QUOTES:
            shown = f'"{snippet}"'
        rendered = f"{{doc_id: {doc_id}, snippet: {shown}}}"
    elif style == "bracket":
        rendered = f'[doc:{doc_id} snippet:"{snippet}"]'
    else:
        raise ValueError(f"unknown citation style {style!r} (brace or bracket)")
    parsed = _find_citations(rendered, [])
    if (
        len(parsed) != 1
        or parsed[0].doc_id != doc_id
        or parsed[0].snippet != snippet
        or (parsed[0].start, parsed[0].end) != (0, len(rendered))
        or "\n" in doc_id
    ):
        raise ValueError(
            f"citation (doc_id={doc_id!r}, snippet={snippet[:80]!r}) cannot be written in "
            f"{style} style so that it parses back unchanged"
        )
    return rendered


def render_citation_any(doc_id: str, snippet: str) -> str:
    """Render in brace style, or in quoted bracket style when braces cannot carry the snippet.

    Raises:
        ValueError: Neither style can carry the id and snippet.

    """
    try:
        return render_citation(doc_id, snippet, "brace")
    except ValueError:
        return render_citation(doc_id, snippet, "bracket")


def render_answer(claims: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> str:
    """Write an answer: each claim followed by its citations, claims separated by a space.

    Parsing the result gives back the claims (whitespace-normalised) and citations when each
    claim is one sentence with some letter or digit in it; claims without citations come back
    in ``uncited``.

    Args:
        claims: ``(claim text, [(doc_id, snippet), ...])`` pairs.

    Raises:
        ValueError: A claim contains citation markup or braces, or a citation cannot be
            written (see :func:`render_citation`).

    """
    parts = []
    for claim, cites in claims:
        if "{" in claim or "}" in claim or _BRACKET_OPEN.search(claim):
            raise ValueError(f"claim text must not contain braces or citation markup: {claim!r}")
        rendered = [render_citation_any(d, s) for d, s in cites]
        parts.append(" ".join([claim.strip(), *rendered]).strip())
    return " ".join(p for p in parts if p)


def strip_citations(text: str) -> str:
    """The answer without citation markup (for downstream QA), whitespace before each removed."""
    out = []
    pos = 0
    for c in _find_citations(text, []):
        out.append(text[pos : c.start].rstrip(" \t"))
        pos = c.end
    out.append(text[pos:])
    return "".join(out).strip()
