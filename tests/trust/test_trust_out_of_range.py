"""A citation of a document that does not exist never raises TRUST-SCORE's precision when corrected.

trust-eval 0.1.5 (as ALCE's eval.py) leaves a statement citing out of range out of the
precision denominator: adding ``[4]`` (3 documents shown) to a statement whose citation does not
support it removes that citation from the denominator, so precision rises. The default keeps
trust-eval's number (its code: ``trust_eval/metrics.py``, the ``Citations out of range`` branch
skips ``total_citations += len(ref)``); ``corrected`` counts the statement's kept citations with
no credit (docs/alce.md, "trust-eval's defects", 4). Found by the invariant matrix's property (a).
"""

import asyncio
import json

import pytest

from inspect_cite.alce.trust.metrics import TrustSettings, trust_item, trust_scores
from inspect_cite.nli import get_nli
from tests.trust.helpers import FIXTURES, NLI

# "Anna Berg won the river race" is in document 1; "Tomas Lind won the river race" is not.
SUPPORTED = "Anna Berg won the river race [1]."
UNSUPPORTED = "Tomas Lind won the river race [1]"


def _judge(output: str, corrected: bool):
    record = json.loads((FIXTURES / "trust_asqa.json").read_text())["data"][0]
    item = {
        "question": record["question"],
        "answers": record["answers"],
        "docs": record["docs"][:3],
        "output": output,
    }
    settings = TrustSettings(corrected=corrected)
    judged = asyncio.run(trust_item(item, "asqa", get_nli(NLI), settings))
    return judged, trust_scores([judged], "asqa", corrected=corrected).values


@pytest.mark.usefixtures("fresh_nli")
def test_an_out_of_range_citation_lowers_corrected_precision():
    for corrected in (False, True):
        before, _ = _judge(f"{SUPPORTED} {UNSUPPORTED}.", corrected)
        assert (before.citation_rec, before.citation_prec) == (0.5, 0.5)
    # trust-eval's number: the statement citing [4] leaves the denominator (1 credit / 1).
    default, default_corpus = _judge(f"{SUPPORTED} {UNSUPPORTED}[4].", corrected=False)
    assert (default.citation_rec, default.citation_prec) == (0.5, 1.0)
    assert default_corpus["answered_citation_prec"] == 100.0
    # Corrected: its kept citations [1][4] count with no credit (1 credit / 3).
    fixed, fixed_corpus = _judge(f"{SUPPORTED} {UNSUPPORTED}[4].", corrected=True)
    assert fixed.citation_rec == 0.5
    assert fixed.citation_prec == pytest.approx(1 / 3)
    assert fixed_corpus["answered_citation_prec"] == pytest.approx(100 / 3)


@pytest.mark.usefixtures("fresh_nli")
def test_corrected_counts_only_the_kept_citations_of_such_a_statement():
    # [1][2][3][9]: eval.py checks every citation for range, then keeps the first 3.
    fixed, _ = _judge(f"{SUPPORTED} {UNSUPPORTED}[2][3][9].", corrected=True)
    assert fixed.citation_prec == pytest.approx(1 / 4)
    # A statement citing only in range is counted as before (no double count).
    same, _ = _judge(f"{SUPPORTED} {UNSUPPORTED}[2].", corrected=True)
    plain, _ = _judge(f"{SUPPORTED} {UNSUPPORTED}[2].", corrected=False)
    assert same.citation_prec == plain.citation_prec
