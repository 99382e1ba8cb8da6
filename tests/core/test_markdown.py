"""Explanations show the user's text literally in the log viewer (inspect_cite.text.markdown).

Checked against a model of the viewer's rendering on markdown-it-py
(tests/helpers/viewer_markdown.py); tests/cli/test_viewer.py checks the real viewer in Chromium.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from inspect_cite.text.markdown import (
    bold,
    cell,
    code,
    emphasis,
    highlight_markdown,
    italic,
    literal,
)
from tests.helpers.viewer_markdown import render, shown

# Every character markdown, HTML or the viewer's own steps read, and a few ordinary ones.
HOSTILE = "<>&'\"*_[]{}|`\\$~#-+=.):!(^ \nab1A"
TEXTS = st.text(alphabet=st.sampled_from(HOSTILE), max_size=40)


def _plain(text: str) -> str:
    return " ".join(text.split())


def test_html_characters_are_not_backslash_escaped():
    # The viewer turns < > & ' " into entities itself; "\<" would show as "&lt;".
    answer = '(p < 0.05) in adults > 65, it\'s "AT&T"'
    assert literal(answer) == answer
    assert shown(literal(answer)) == answer


def test_markdown_syntax_is_shown_as_typed():
    answer = "a_b *c* [x](http://y) ~~s~~ `k` \\ $x$ | {d}"
    assert shown(literal(answer)) == answer
    assert not render(literal(answer))[2]  # no math


def test_block_syntax_at_line_starts_is_shown_as_typed():
    answer = "# h\n- item\n+ item\n1. one\n2) two\na) letter\n===\n---\n    code\n[1]: note"
    assert shown(literal(answer)) == _plain(answer)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_any_text_is_shown_literally(text):
    assert shown(literal(text)) == _plain(text)
    assert shown("**Answer:** " + literal(text, line_start=False)) == _plain("Answer: " + text)


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.lists(st.tuples(st.integers(0, 40), st.integers(1, 6)), max_size=4))
def test_highlighted_answers_are_shown_literally_with_their_citations_bold(text, raw_spans):
    spans = [(s, min(s + n, len(text))) for s, n in raw_spans if s < len(text)]
    markdown = highlight_markdown(text, spans)
    shown_text, bold_runs, _ = render("**Answer:** " + markdown)
    assert _plain(shown_text) == _plain("Answer: " + text)
    # "Answer:" and, for each bold run, a part of one (merged) citation span: never text
    # outside the citations, and no "**" left over.
    merged = _merged(spans)
    assert bold_runs[0] == "Answer:"
    for run in bold_runs[1:]:
        assert any(_plain(run) in _plain(text[s:e]) for s, e in merged), (run, merged)
    # Each line's part of a citation that holds a letter or digit is bold (and one of bare
    # punctuation may be).
    parts = [p for s, e in merged for p in re.split(r"\r\n|\r|\n", text[s:e])]
    with_letters = sum(any(c.isalnum() for c in p) for p in parts)
    assert with_letters <= len(bold_runs) - 1 <= sum(bool(p.strip()) for p in parts)


def _merged(spans):
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def test_citations_are_bold_wherever_they_stand():
    # Bold after a letter and before punctuation does not pair in CommonMark: the delimiters
    # move inside, to the citation's first and last letter or digit.
    text = "Claim{doc_id: X, snippet: a b}. Next E[1]. Then [2][3] and (x)[4]"
    spans = [(m.start(), m.end()) for m in re.finditer(r"\{[^}]*\}|\[\d\]", text)]
    shown_text, bold_runs, _ = render(highlight_markdown(text, spans))
    assert _plain(shown_text) == text
    assert bold_runs == ["doc_id: X, snippet: a b}", "1]", "[2][3]", "[4]"]


def test_bold_italic_code_cell():
    for marker, maker in (("**", bold), ("*", italic)):
        for text in ("{x}", "a_b", "'quoted'", "<t>"):
            shown_text, runs, _ = render(f"see {maker(text)}: ok")
            assert _plain(shown_text) == f"see {text}: ok"
            assert marker != "**" or runs == [text]
    assert emphasis("[]") == "**[]**"
    # Between letters, delimiters before and after punctuation do not pair, and no letter or
    # digit inside can hold them: no bold rather than literal asterisks.
    assert highlight_markdown("x[]y", [(1, 3)]) == "x[]y"
    assert shown(f"NLI {code('python:a`b$c$.py:f')}") == "NLI python:a`b$c$.py:f"
    assert code("``x") == "``` ``x ```"
    assert shown(f"| {cell('a | b')} | c |\n|---|---|") == "a | b c"
    assert cell("   ") == "*(empty)*"
    assert cell("x" * 10, 5) == "xxxx…"
