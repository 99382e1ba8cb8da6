"""The refusal test equals fuzzywuzzy's partial_ratio backed by python-Levenshtein."""

import json

import pytest
from rapidfuzz import fuzz

from inspect_cite.alce.trust.refusal import REFUSAL_FLAG, check_refusal, partial_ratio
from inspect_cite.citations.alce import remove_citations
from tests.trust.helpers import FIXTURES

CASES = json.loads((FIXTURES / "partial_ratio_cases.json").read_text())


def test_every_recorded_case_equals_fuzzywuzzy():
    """Values recorded from fuzzywuzzy 0.18 + python-Levenshtein 0.26 (see ``how_made``)."""
    wrong = [
        (c["s1"], c["s2"], c["expected"], partial_ratio(c["s1"], c["s2"]))
        for c in CASES["cases"]
        if partial_ratio(c["s1"], c["s2"]) != c["expected"]
    ]
    assert not wrong, wrong[:5]
    assert len(CASES["cases"]) > 200


def test_the_cases_are_ones_rapidfuzz_own_partial_ratio_decides_differently():
    """The fixture is worth keeping: rapidfuzz's partial_ratio flips some decisions at 85."""
    flips = [
        c
        for c in CASES["cases"]
        if (c["expected"] > 85) != (fuzz.partial_ratio(c["s1"], c["s2"]) > 85)
    ]
    assert len(flips) >= 20


def test_fuzzywuzzy_decorators_order():
    assert partial_ratio("", "") == 100  # equal wins over empty
    assert partial_ratio("abc", "") == 0
    assert partial_ratio("abcd", "xxxbcdeee") == 75


def test_half_rounds_to_even():
    # Each value also checked with fuzzywuzzy 0.18 + python-Levenshtein 0.26 by hand.
    # Best window ratio exactly 0.625 and 0.875: 62.5 -> 62, 87.5 -> 88.
    assert partial_ratio("abcd", "abxy") == 50
    assert round(62.5) == 62 and partial_ratio("abcdefgh", "abcdexyz") == 62
    assert partial_ratio("abcdefgh", "abcdefgx") == 88


@pytest.mark.parametrize(
    "text, ratio, refused",
    [
        (
            "I apologize, but I couldn't find an answer to your question in the search results.",
            100,
            True,
        ),
        ("I apologize, but I couldn't find a good answer.", 86, True),
        ("I regret that I couldn't find an answer.", 76, False),
        ("Paris is the capital of France [1].", 40, False),
    ],
)
def test_check_refusal_normalizes_then_compares_above_threshold(text, ratio, refused):
    check = check_refusal(text)
    assert (check.ratio, check.refused) == (ratio, refused)


def test_threshold_is_strict_and_settable():
    text = "I apologize, I couldn't [7]find[9] answers."
    assert check_refusal(remove_citations(text)).ratio == 85
    assert not check_refusal(remove_citations(text)).refused  # 85 is not above 85
    assert check_refusal(remove_citations(text), threshold=84).refused
    assert check_refusal("Nope, no idea.", flag="Nope no idea").refused
    assert not check_refusal("Nope, no idea.", flag=REFUSAL_FLAG).refused


def test_raw_and_citation_free_outputs_can_decide_differently():
    text = "Sorry,[9] but I couldn't find an answer."
    assert (check_refusal(text).ratio, check_refusal(remove_citations(text)).ratio) == (84, 87)
