"""ALCE's [n] format has one owner: its readings against eval.py's own regexes, written out here."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from inspect_cite.citations.alce import (
    citation_number,
    ids_problem,
    last_marker_end,
    leading_markers_end,
    marker_problems,
    marker_refs,
    marker_spans,
    remove_citations,
    render_marker,
    strip_markers,
)

# eval.py (ALCE utils.py / eval.py), as written there.
EVAL_REF = re.compile(r"\[\d+")


def eval_refs(text: str) -> list[int]:
    return [int(m[1:]) - 1 for m in EVAL_REF.findall(text)]


def eval_remove_citations(sent: str) -> str:
    return re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", sent)).replace(" |", "").replace("]", "")


# The fixed reading as this project first wrote it (alce_compat=False), before it had one owner.
GROUP = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
GROUP_WITH_SPACE = re.compile(r"\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
LEADING_GROUPS = re.compile(r"^(?:\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\])+")


def fixed_refs(text: str) -> list[int]:
    refs = [int(d) - 1 for g in GROUP.findall(text) for d in re.split(r"\s*[,;]\s*", g)]
    return list(dict.fromkeys(refs))


# Texts dense in the characters that make or break a marker.
marker_texts = st.text(alphabet="[] ,;|0123ab.\n\t\u00a0\u0663", max_size=40)


@settings(max_examples=600, deadline=None)
@given(marker_texts)
def test_eval_reading_and_removal_are_eval_pys(text):
    assert marker_refs(text) == eval_refs(text)
    assert remove_citations(text) == eval_remove_citations(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_eval_reading_and_removal_on_any_text(text):
    assert marker_refs(text) == eval_refs(text)
    assert remove_citations(text) == eval_remove_citations(text)


@settings(max_examples=600, deadline=None)
@given(marker_texts)
def test_fixed_reading_is_the_former_group_rules(text):
    assert marker_refs(text, alce_compat=False) == fixed_refs(text)
    assert strip_markers(text) == GROUP_WITH_SPACE.sub("", text)
    lead = LEADING_GROUPS.match(text)
    assert leading_markers_end(text) == (lead.end() if lead else 0)
    assert marker_spans(text) == [m.span() for m in re.finditer(r"\[\d+\]", text)]


def test_readings_of_examples():
    text = "A [1, 2] b [0] c [3][3] d [ 4 ] e [5"
    assert marker_refs(text) == [0, -1, 2, 2, 4]
    assert marker_refs(text, alce_compat=False) == [0, 1, -1, 2, 3]
    assert remove_citations(text) == "A, 2 b c d [ 4  e"
    assert strip_markers(text) == "A b c d e [5"
    assert marker_spans("x [1][2] y [1, 2]") == [(2, 5), (5, 8)]
    assert leading_markers_end(" [1] [2]. Next") == 8
    assert leading_markers_end("[1]\n\t[2] x [3]") == 8
    assert leading_markers_end("x [1]") == 0
    huge = "9" * 5000
    assert marker_refs(f"[{huge}]") == [None] and citation_number(huge) is None


def test_generation_side():
    assert render_marker(3) == "[3]"
    assert ids_problem(["1", "2", "3"]) is None
    assert "ids must be 1..2 in order" in ids_problem(["a", "b"])
    assert ids_problem(["2", "1"]) is not None
    assert marker_problems("A [1][2]. B [3].", 3) == []
    assert marker_problems("A [4]. B [01] [1, 2].", 3) == [
        "[4] is not one of the shown documents",
        "[01] is not one of the shown documents",
        "[1, 2] is not one of the shown documents",
    ]
    assert marker_problems("No citation.", 3) == ["no citation"]
    assert marker_problems("A [1] ] b", 1) == ["unbalanced brackets"]
    assert marker_problems("[1] A.", 1) == ["citation follows no statement"]
    assert last_marker_end("A [1]. B [2") == 5
    assert last_marker_end("A ] B") == 0
