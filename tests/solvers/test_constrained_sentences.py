"""strategy=constrained: every sentence of an answer ends with its citations.

The grammars let a claim (ALCE: a statement) run over several sentences, so a valid answer
could open with an uncited sentence: scorers split answers into sentences, and all but the
last sentence of such a claim were uncited. A claim is now one sentence.
"""

import random

import pytest

from inspect_cite.citations import parse_citations
from solvers.constrained import validate_alce, validate_fullcite
from solvers.constrained_hf import compile_matcher
from solvers.grammar import AnswerLimits, alce_grammar, fullcite_grammar
from tests.solvers.test_constrained import DOCS, accepts, lltok

__all__ = ["lltok"]  # the module fixture: a 30k-token tiny Qwen3 tokenizer

CITE = "{doc_id: a1, snippet: Paris is the capital}"


@pytest.mark.parametrize(
    ("answer", "ok", "one_sentence"),
    [
        ("Paris is the capital [1][2]. It is large [3].", True, True),
        ("It weighs 0.5 mg, etc., in the U.S.A [1].", True, True),
        ("Uncited first. Cited second [1].", False, False),
        ("Uncited first! Cited second [1].", False, False),
        # Punkt ends a sentence at a mark before "[": the marker opens the next one.
        ("Paris is big.[1] Rome [2].", False, False),
        ("Paris is big. [1]", False, False),
        # Punkt may or may not end a sentence here: the grammar does not allow it.
        ('He said "stop." Then he left [1].', False, None),
        ("Line one\nline two [1].", False, None),
    ],
)
def test_alce_grammar_statements_are_single_sentences(lltok, answer, ok, one_sentence):
    grammar = alce_grammar(["1", "2", "3"])
    assert accepts(lltok, grammar, answer) is ok
    # The validator for unconstrained providers reads statements as eval.py does.
    if one_sentence is not None:
        assert (validate_alce(answer, ["1", "2", "3"]) == []) is one_sentence


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        (f"Paris is big {CITE}. Rome is old {CITE}.", True),
        (f"It weighs 0.5 mg {CITE}.", True),
        (f"Uncited first. Cited second {CITE}.", False),
        (f"First line\nsecond line {CITE}.", False),
    ],
)
def test_fullcite_grammar_claims_are_single_sentences(lltok, answer, ok):
    grammar = fullcite_grammar(DOCS)
    assert accepts(lltok, grammar, answer) is ok
    assert (validate_fullcite(answer, DOCS) == []) is ok
    if ok:
        assert parse_citations(answer, doc_ids={d["id"]: d["text"] for d in DOCS}).uncited == []


def test_no_sequence_the_grammar_allows_leaves_a_sentence_uncited(lltok):
    """Random walks through the ALCE grammar (tokens drawn among those it allows, sentence
    marks and spaces favoured) end in answers whose every statement has a marker."""
    import llguidance.torch
    import numpy as np

    grammar = alce_grammar(["1", "2"], AnswerLimits(max_claims=4, max_claim_chars=40))
    bitmask = llguidance.torch.allocate_token_bitmask(1, lltok.vocab_size)
    favoured = {t for text in (".", " ", "!", "?", ". ") for t in lltok.tokenize_str(text)}
    rng = random.Random(0)
    finished = 0
    for _ in range(30):
        matcher = compile_matcher(lltok, grammar)
        tokens = []
        for _ in range(60):
            llguidance.torch.fill_next_token_bitmask(matcher, bitmask, 0)
            bits = np.unpackbits(bitmask.numpy().view(np.uint8), bitorder="little")
            allowed = np.flatnonzero(bits[: lltok.vocab_size])
            if matcher.is_accepting() and rng.random() < 0.15:
                break
            preferred = [t for t in allowed if t in favoured]
            token = int(rng.choice(preferred if preferred and rng.random() < 0.5 else allowed))
            assert matcher.consume_token(token)
            tokens.append(token)
        if matcher.is_accepting():
            finished += 1
            text = lltok.decode_str(tokens)
            assert validate_alce(text, ["1", "2"]) == [], text
    assert finished >= 5
