"""The citation formats: the one place that parses and renders them.

- :mod:`inspect_cite.citations.fullcite`: FullCite's inline ``{doc_id: X, snippet: Y}`` (and the
  authors' ``[doc:X snippet:"Y"]``). Its API is re-exported here (``inspect_cite.citations``
  is the documented import path).
- :mod:`inspect_cite.citations.alce`: ALCE's ``[n]`` markers (find, index, remove, validate,
  render), eval.py's reading and the fixed one; import it from there.
"""

from inspect_cite.citations.fullcite import (
    Citation,
    CitationProblem,
    CitationStyle,
    Claim,
    ParsedAnswer,
    parse_citations,
    render_answer,
    render_citation,
    render_citation_any,
    strip_citations,
)

__all__ = [
    "Citation",
    "CitationProblem",
    "CitationStyle",
    "Claim",
    "ParsedAnswer",
    "parse_citations",
    "render_answer",
    "render_citation",
    "render_citation_any",
    "strip_citations",
]
