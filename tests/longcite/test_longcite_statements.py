"""Answers read into statements and chunk citations as LongCite reads them.

Expected statements are LongCite's own ``postprocess``/``get_citations`` (pred_one_shot.py,
d7d772e) on the fixture answers: tests/fixtures/longcite/make_expected.py.
"""

import pytest

from inspect_cite.longcite.chunks import chunk_docs, citation_texts
from inspect_cite.longcite.statements import (
    read_statements,
    restore_open_tag,
    without_citations,
)
from tests.longcite.fixtures import answers, expected, items

ITEMS = items()
ANSWERS = answers()
EXPECTED = expected()["items"]


def chunks_of(context: str) -> list[str]:
    return citation_texts([d["text"] for d in chunk_docs(context)])


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: f"{i['idx']}-{i['dataset']}")
def test_statements_equal_longcites(item):
    answer = restore_open_tag(ANSWERS[item["idx"]])
    assert answer == EXPECTED[str(item["idx"])]["prediction"]
    got = [
        {
            "statement": s.text,
            "citations": [[c.start, c.end, c.text] for c in s.citations],
        }
        for s in read_statements(answer, chunks_of(item["context"]))
    ]
    assert got == EXPECTED[str(item["idx"])]["statements"]


CHUNKS = ["A0. ", "B1. ", "C2. ", "D3. ", "E4."]


def test_adjacent_ranges_merge_and_only_three_citations_are_kept():
    [s] = read_statements("<statement>x<cite>[0-0][1-2][4-4][3-3][0-0]</cite></statement>", CHUNKS)
    assert [(c.start, c.end) for c in s.citations] == [(0, 2), (4, 4), (3, 3)]
    assert s.citations[0].text == "A0. B1. C2. "
    assert [c.label for c in s.beyond_cap] == ["[0-0]"]


def test_ranges_past_the_end_are_dropped_or_cut_and_bare_numbers_ignored():
    [s] = read_statements("<statement>y<cite>[9-9][3-1][2][3-70]</cite></statement>", CHUNKS)
    assert s.text == "y"
    assert [(c.start, c.end, c.text) for c in s.citations] == [(3, 4, "D3. E4.")]
    assert s.dropped == ["[9-9]", "[3-1]"]


def test_untagged_text_longer_than_five_characters_is_a_statement():
    statements = read_statements(
        "Intro text\n<statement>a<cite>[0-0]</cite></statement> ok. <statement>b</statement>"
        " and then some",
        CHUNKS,
    )
    assert [(s.text, s.tagged) for s in statements] == [
        ("Intro text", False),
        ("a", True),
        ("b", True),
        ("and then some", False),
    ]


def test_an_unclosed_statement_ends_the_reading():
    statements = read_statements("<statement>a</statement><statement>lost text", CHUNKS)
    assert [s.text for s in statements] == ["a"]


def test_the_lost_open_bracket_is_restored_and_graders_read_no_tags():
    answer = restore_open_tag("statement>x<cite>[0-0]</cite></statement> y")
    assert answer.startswith("<statement>")
    assert without_citations(answer) == "x y"
