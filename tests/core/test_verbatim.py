"""What a document holds: verbatim and near-verbatim snippets and their spans (inspect_cite.text.verbatim)."""

import unicodedata

import pytest

from inspect_cite.text.alignment import align, words
from inspect_cite.text.verbatim import (
    find_near_verbatim,
    find_verbatim,
    match_snippet,
    near_verbatim,
    tokens,
)

TRIAL = (
    "In the randomised trial, aspirin was effective in reducing the risk of a second stroke "
    "within two years of the first one."
)
SEASON = (
    "The tournament was held during the 2019 winter season in the northern mountains of the "
    "country, as in every year since 1990."
)
# Accents in both spellings: precomposed (NFC) and as combining marks (NFD).
CAFE = "The café served crème brûlée to Zoë and Chloé in São Paulo."


def held(snippet: str, document: str) -> str | None:
    """The document's own text of the span holding the snippet near-verbatim, or None."""
    found = find_near_verbatim(snippet, document)
    return None if found is None else document[found[0] : found[1]]


@pytest.mark.parametrize(
    ("snippet", "document"),
    [
        # An inserted "not" (rapidfuzz partial ratio 98: it used to pass).
        (
            "aspirin was not effective in reducing the risk of a second stroke within two years",
            TRIAL,
        ),
        # A replaced word (partial ratio 96).
        (
            "The tournament was held during the 2019 summer season in the northern mountains of "
            "the country",
            SEASON,
        ),
        # A dropped word.
        ("aspirin was effective in reducing risk of a second stroke", TRIAL),
        # One letter changed.
        ("aspirin was effective in reducing the risk of a second strike", TRIAL),
        # Two words run together are another word.
        ("aspirin was effective in reducing the risk of a secondstroke", TRIAL),
        # Punctuation may change, but not vanish from inside a number or flip a symbol.
        ("a dose of 15 mg", "a dose of 1.5 mg"),
        ("when x < 5 holds", "when x > 5 holds"),
        ("prices in $ 5", "prices in € 5"),
        # A word cut short at either end is not the document's word.
        ("Spirin was effective in", TRIAL),
    ],
)
def test_a_changed_inserted_or_dropped_word_is_not_near_verbatim(snippet, document):
    assert find_verbatim(snippet, document) is None
    assert find_near_verbatim(snippet, document) is None
    assert not near_verbatim(snippet, document)


def test_typography_is_near_verbatim_and_yields_the_documents_own_words():
    doc = (
        'The AXL receptor "tyrosine kinase" is overexpressed in many human tumours - breast,\n'
        "lung and colon - at most 0,5 mg/kg; it predicts poor survival."
    )
    cases = {
        # Curly quotes, an em dash, case, spacing.
        "AXL RECEPTOR “tyrosine kinase” is overexpressed in many human tumours — breast, lung": (
            'AXL receptor "tyrosine kinase" is overexpressed in many human tumours - breast,\nlung'
        ),
        # "0.5" and "0,5" are the same two words; "." for ";" is punctuation placement.
        "lung and colon – at most 0.5 mg/kg. It predicts": "lung and colon - at most 0,5 mg/kg; it predicts",
        # Compatibility forms (fullwidth letters), case and spacing.
        "ｐｒｅｄｉｃｔｓ  POOR   survival": "predicts poor survival",
        "human tumours—BREAST": "human tumours - breast",
    }
    for snippet, expected in cases.items():
        assert held(snippet, doc) == expected, snippet
    assert held("over\ufb02own", "the river overflown") == "overflown"  # the ﬂ ligature
    # A verbatim snippet is verbatim, not near-verbatim; an empty or word-less one is neither.
    assert match_snippet("tyrosine kinase", doc).verbatim  # type: ignore[union-attr]
    assert not near_verbatim("tyrosine kinase", doc)
    assert match_snippet("", doc) is None and match_snippet("  ", doc) is None
    assert find_near_verbatim("!!!", doc) is None


def test_canonical_equivalence_is_verbatim():
    for snippet_form, doc_form in (("NFC", "NFD"), ("NFD", "NFC")):
        document = unicodedata.normalize(doc_form, CAFE)
        snippet = unicodedata.normalize(snippet_form, "crème brûlée to Zoë")
        assert snippet not in document  # not a plain substring
        found = match_snippet(snippet, document)
        assert found is not None and found.verbatim
        # The span is the document's own spelling of the same text.
        span = document[found.start : found.end]
        assert unicodedata.normalize(doc_form, span) == span
        assert unicodedata.normalize("NFC", span) == unicodedata.normalize("NFC", snippet)
        # In capitals it is near-verbatim (before: neither).
        assert near_verbatim(snippet.upper(), document)
        assert held(snippet.upper(), document) == span
    nfc, nfd = unicodedata.normalize("NFC", CAFE), unicodedata.normalize("NFD", CAFE)
    # A match that would cut a letter from its accent is not verbatim: "Chloe" is not "Chloé".
    assert find_verbatim("Chloe", nfd) is None
    assert find_verbatim("The cafe", nfd) is None
    assert find_verbatim("caf", nfd) == (4, 7)  # inside a word, but not inside a letter
    # Accents are letters, not typography: "Sao" is not "São".
    assert held("in Sao Paulo", nfc) is None and held("in Sao Paulo", nfd) is None


def test_alignment_reads_the_same_words():
    nfc, nfd = unicodedata.normalize("NFC", CAFE), unicodedata.normalize("NFD", CAFE)
    assert words(nfd) == words(nfc) == tokens(nfc)
    assert words("Straße ﬁne ＡＢＣ") == ["strasse", "fine", "abc"]
    # Posthoc alignment takes a snippet the document holds up to canonical equivalence as
    # verbatim, and returns the document's own text.
    found = align(nfc, nfd)
    assert found is not None and found.verbatim and found.text == nfd
    found = align("crème BRÛLÉE to Zoë and", nfd)
    assert found is not None and found.jaccard == 1.0
    assert unicodedata.normalize("NFC", found.text) == "crème brûlée to Zoë and"


def test_long_snippets_are_matched_word_for_word():
    # 50,000-character snippets (the old check took minutes and let a changed word through).
    vocab = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()
    doc_words = [vocab[(i * 7 + i // 11) % len(vocab)] + str(i % 13) for i in range(14_000)]
    document = " ".join(doc_words)
    span = doc_words[2_000:10_000]
    snippet = " ".join(span).upper().replace(" ", " — ", 100)
    assert len(snippet) > 50_000
    found = find_near_verbatim(snippet, document)
    assert found is not None and document[found[0] : found[1]] == " ".join(span)
    for changed in (
        [*span[:7_990], "not", *span[7_990:]],  # a word inserted near the end
        [*span[:4_000], "omega", *span[4_001:]],  # one word replaced in the middle
        span[:-2] + span[-1:],  # the last but one dropped
    ):
        assert find_near_verbatim(" ".join(changed), document) is None
