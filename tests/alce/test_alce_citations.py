"""eval.py's citation recall/precision rules, branch by branch, with a word-overlap NLI."""

from collections.abc import Sequence

import pytest

from inspect_cite.alce.autoais import citation_scores
from inspect_cite.citations.alce import citation_number, marker_refs
from inspect_cite.evidence.documents import format_doc
from inspect_cite.nli import NLIError, NLIResult, get_nli
from scorers.claim_coverage import claims_score
from tests.helpers.nli_fns import word_entail

DOCS = [
    {"id": "1", "title": "Alpha", "text": "paris is the capital of france"},
    {"id": "2", "title": "Beta", "text": "berlin is the capital of germany"},
    {"id": "3", "title": "Gamma", "text": "rome is the capital of italy"},
]
NLI = "python:tests.helpers.nli_fns:word_entail"


async def score(output: str, alce_compat: bool = True, **kw):
    kw.setdefault("question", "")
    return await citation_scores(output, DOCS, nli=get_nli(NLI), alce_compat=alce_compat, **kw)


@pytest.mark.parametrize(
    "output, recall, credit, total",
    [
        ("Paris is the capital of France.", 0, 0, 0),  # no citation: recall 0, precision 0
        ("Paris is the capital of France [1].", 1, 1, 1),  # one supporting citation
        ("Paris is the capital of France [2].", 0, 0, 1),  # one wrong citation
        # Supported jointly with a doc that supports alone and one that is irrelevant.
        ("Paris is the capital of France [1][2].", 1, 1, 2),
        ("Paris is the capital of France [2][1].", 1, 1, 2),
        # Only the two documents together support it: neither alone, both needed (+1, +1).
        ("Paris Berlin capital [1][2].", 1, 2, 2),
        # Several citations that do not support it together: the recall (0) is added.
        ("Rome Paris [1][2].", 0, 0, 2),
        # Each of three docs needed? Paris+Berlin+Rome: all needed.
        ("Paris Berlin Rome [1][2][3].", 1, 3, 3),
        # Two needed, one irrelevant (the others still entail without Gamma).
        ("Paris Berlin capital [1][2][3].", 1, 2, 3),
    ],
)
async def test_recall_and_precision_rule(output, recall, credit, total):
    r = await score(output)
    assert r.recall == recall
    assert r.total_citations == total
    assert r.precision == (credit / total if total else 0.0)


async def test_precision_verdicts_are_recorded():
    r = await score("Paris is the capital of France [1][2].")
    (s,) = r.statements
    assert [(c.ref, c.alone, c.others, c.credit) for c in s.citations] == [
        (0, True, None, 1),
        (1, False, True, 0),
    ]
    r = await score("Paris Berlin capital [1][2].")
    assert [(c.alone, c.others, c.credit) for c in r.statements[0].citations] == [
        (False, False, 1),
        (False, False, 1),
    ]


async def test_item_averages_over_statements_and_citations():
    r = await score(
        "Paris is the capital of France [1][2]. Rome is the capital of Italy [3]. Berlin [1]."
    )
    assert r.recall == pytest.approx(2 / 3)
    # credits: 1 (+0 irrelevant), 1, 0 over 2 + 1 + 1 citations
    assert r.precision == pytest.approx(2 / 4)


async def test_zero_cites_last_document():
    r = await score("Rome is the capital of Italy [0].")
    assert r.statements[0].refs == [-1]
    assert r.recall == 1 and r.precision == 1
    fixed = await score("Rome is the capital of Italy [0].", alce_compat=False)
    assert fixed.statements[0].status == "invalid"
    assert fixed.recall == 0 and fixed.precision == 0 and fixed.total_citations == 1


def test_citation_numbers_are_int_exactly_until_they_cannot_name_a_document():
    assert [citation_number(d) for d in ("0", "1", "0003", "9" * 18)] == [0, 1, 3, 10**18 - 1]
    assert citation_number("0" * 5000 + "12") == 12  # leading zeros do not make it long
    assert citation_number("\u0663") == 3  # Arabic-Indic digit, as int() reads it
    assert citation_number("1" + "0" * 18) is None
    assert citation_number("9" * 5000) is None  # int() raises past 4,300 digits
    assert marker_refs("[0] [3][12] [" + "9" * 5000 + "]") == [-1, 2, 11, None]


@pytest.mark.parametrize("alce_compat", [True, False])
async def test_citation_number_too_long_for_int_is_an_invalid_citation(alce_compat):
    huge = "[" + "9" * 5000 + "]"
    r = await score(f"Paris is the capital of France [1]{huge}.", alce_compat=alce_compat)
    (s,) = r.statements
    assert s.status == "invalid" and s.refs == [0, None]
    assert r.recall == 0 and r.precision == 0
    # The same verdict as a number int() can read that is past the last document.
    same = await score("Paris is the capital of France [1][99].", alce_compat=alce_compat)
    assert (same.recall, same.precision, same.total_citations) == (
        r.recall,
        r.precision,
        r.total_citations,
    )
    fixed_group = await score(f"Paris [1, {huge[1:-1]}].", alce_compat=False)
    assert fixed_group.statements[0].status == "invalid"


async def test_comma_group_reads_only_first_number():
    r = await score("Paris is the capital of France [1, 2].")
    (s,) = r.statements
    assert s.refs == [0]
    # remove_citations leaves ", 2" in the hypothesis, which "2" then fails.
    assert s.hypothesis == "Paris is the capital of France, 2."
    assert r.recall == 0 and r.precision == 0 and r.total_citations == 1
    fixed = await score("Paris is the capital of France [1, 2].", alce_compat=False)
    assert fixed.statements[0].refs == [0, 1]
    assert fixed.statements[0].hypothesis == "Paris is the capital of France."
    assert fixed.recall == 1 and fixed.precision == 0.5


async def test_duplicate_citations():
    r = await score("Paris is the capital of France [1][1].")
    assert r.statements[0].used == [0, 0]
    assert r.recall == 1 and r.total_citations == 2 and r.precision == 1
    # One copy of [1] removed leaves [1][2], which still entails: each copy is irrelevant.
    r = await score("Paris Berlin capital [1][1][2].")
    credits = [(c.ref, c.alone, c.others, c.credit) for c in r.statements[0].citations]
    assert credits == [(0, False, True, 0), (0, False, True, 0), (1, False, False, 1)]
    assert r.precision == pytest.approx(1 / 3)
    fixed = await score("Paris Berlin capital [1][1][2].", alce_compat=False)
    assert fixed.statements[0].used == [0, 1]
    assert fixed.precision == 1


async def test_out_of_range_checked_before_truncation():
    r = await score("Paris is the capital of France [1][2][3][9].")
    (s,) = r.statements
    assert s.status == "invalid" and s.used == []
    # The invalid statement's citations are left out of the denominator.
    assert r.recall == 0 and r.total_citations == 0 and r.precision == 0
    r = await score("Paris is the capital of France [1][2][3][9]. Rome [3].")
    assert r.total_citations == 1 and r.precision == 1 and r.recall == 0.5
    fixed = await score("Paris is the capital of France [1][2][3][9].", alce_compat=False)
    assert fixed.statements[0].used == [0, 1, 2]
    assert fixed.recall == 1 and fixed.precision == pytest.approx(1 / 3)
    fixed = await score("Paris is the capital of France [4].", alce_compat=False)
    assert fixed.recall == 0 and fixed.total_citations == 1 and fixed.precision == 0


async def test_at_most_citations():
    out = "Paris is the capital of France [2][3][1]."
    assert (await score(out, at_most_citations=2)).recall == 0
    r = await score(out, at_most_citations=3)
    assert r.recall == 1 and r.total_citations == 3
    assert (await score(out, at_most_citations=None)).recall == 1
    r = await score("Paris is the capital of France [1][2][3][1].", at_most_citations=3)
    assert r.statements[0].used == [0, 1, 2]


@pytest.mark.parametrize("output", ["", "   "])
async def test_empty_output_is_skipped(output):
    r = await score(output)
    assert r.recall is None and r.precision is None and r.skipped


async def test_qampari_statements():
    r = await score("Paris [1], Berlin [2], Rome [1].", qampari=True, question="capital")
    assert [s.hypothesis for s in r.statements] == [
        "capital Paris",
        "capital Berlin",
        "capital Rome",
    ]
    assert r.recall == pytest.approx(2 / 3)
    # "[1, 2]" splits the entity list at its comma in eval.py.
    r = await score("Paris [1, 2], Berlin [2].", qampari=True, question="capital")
    assert [s.text for s in r.statements] == [
        "capital Paris [1",
        "capital 2]",
        "capital Berlin [2]",
    ]
    fixed = await score(
        "Paris [1, 2], Berlin [2].", qampari=True, question="capital", alce_compat=False
    )
    assert [s.refs for s in fixed.statements] == [[0, 1], [1]]
    assert fixed.recall == 1


async def test_qampari_empty_output_counts_as_one_uncited_statement():
    r = await score("", qampari=True, question="capital")
    assert len(r.statements) == 1 and r.statements[0].status == "uncited"
    assert r.recall == 0 and r.precision == 0
    fixed = await score("", qampari=True, question="capital", alce_compat=False)
    assert fixed.skipped


async def test_citation_after_the_period():
    out = "Paris is the capital of France. [1] Berlin is the capital of Germany [2]."
    r = await score(out)
    assert r.recall == 0.5  # eval.py gives [1] to the Berlin sentence
    fixed = await score(out, alce_compat=False)
    assert [s.refs for s in fixed.statements] == [[0], [1]]
    assert fixed.recall == 1 and fixed.precision == 1


async def test_sent_field_replaces_text():
    doc = {"id": "1", "title": "T", "text": "long passage", "sent": "short sentence"}
    assert format_doc(doc) == "Title: T\nshort sentence"
    r = await citation_scores("Short sentence [1].", [doc], "", get_nli(NLI))
    assert r.recall == 1


async def test_no_docs_and_zero_is_invalid_not_a_crash():
    r = await citation_scores("Paris [0].", [], "", get_nli(NLI))
    assert r.statements[0].status == "invalid"


class RecordingNLI:
    """Counts entail rounds and records every pair decided."""

    identity = "recording"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    async def entail(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        self.calls.append(list(pairs))
        return [NLIResult(word_entail(p, h)) for p, h in pairs]


async def test_nli_calls_are_batched_per_round():
    nli = RecordingNLI()
    out = "Paris Berlin capital [1][2][3]. Paris is the capital of France [1][2]. Rome [3]."
    r = await citation_scores(out, DOCS, "", nli)
    assert len(nli.calls) == 3  # recall, then "alone", then "others"
    assert [len(c) for c in nli.calls] == [3, 5, 4]
    assert r.recall == 1 and r.precision == pytest.approx(4 / 6)


async def test_nli_failure_propagates():
    with pytest.raises(NLIError):
        await citation_scores(
            "It will fail [1].", DOCS, "", get_nli("python:tests.helpers.nli_fns:failing_on_fail")
        )


async def test_claims_score():
    r = await claims_score(
        "Paris is the capital [1] of France [2].",
        ["paris capital france", "berlin"],
        get_nli(NLI),
    )
    assert r.verdicts == [("paris capital france", True), ("berlin", False)]
    assert r.score == 0.5
    assert (await claims_score("x", [], get_nli(NLI))).score is None
