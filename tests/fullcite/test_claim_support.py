"""claim_support (NLI claim attribution) and near_verbatim_rate.

Hand-built answers with values computed by hand under ``tests.helpers.nli_fns:claim_overlap`` (entailed
iff >= 60% of the claim's content words occur in the premise), the FullCite authors' 43
answers with their citations swapped or shifted, the disk cache on rescoring, and the tasks'
``-T attribution`` / ``-T nli``.
"""

import math

import pytest
from inspect_ai import eval
from inspect_ai import score as inspect_score
from inspect_ai.dataset import Sample

from fullcite_tasks import asqa
from fullcite_tasks.data.incite import incite_records
from fullcite_tasks.task import record_to_sample
from inspect_cite.app.cli import main
from inspect_cite.checks.errors import PreflightError
from inspect_cite.citations import parse_citations, render_citation_any
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.text.verbatim import near_verbatim
from scorers import claim_support, doc_snippet_f1
from tests.conftest import ASQA_ARGS, reference_dir
from tests.helpers import nli_fns
from tests.helpers.evals import score_answers
from tests.helpers.scripted_models import cite_first_document, scripted_model

NLI = "python:tests.helpers.nli_fns:claim_overlap"
COUNTING = "python:tests.helpers.nli_fns:counting_claim_overlap"
KEYS = {"snippet_support", "doc_support", "unsupported_claims"}

DOCS = [
    {
        "id": "paris",
        "title": "Doc P",
        "text": "Paris is the capital and largest city of France. "
        "The Eiffel Tower was completed in 1889.",
    },
    {
        "id": "seine",
        "title": "Doc S",
        "text": "The Seine river flows through Paris before reaching the English Channel.",
    },
]
CAPITAL = "{doc_id: paris, snippet: Paris is the capital and largest city of France}"
# (answer, (snippet_support, doc_support, unsupported_claims)), computed by hand below.
CASES = {
    # One claim, two citations. Content words of the claim: eiffel tower completed 1889 beside
    # seine river (7). The first snippet alone has 4/7 < 0.6, the second 2/7; joined, 6/7.
    # The two documents joined also hold 6/7.
    "two_citations": (
        "The Eiffel Tower was completed in 1889 beside the Seine river "
        "{doc_id: paris, snippet: The Eiffel Tower was completed in 1889}"
        "{doc_id: seine, snippet: The Seine river flows through Paris}.",
        (100.0, 100.0, 0.0),
    ),
    # paris capital france (3/3) is supported; the uncited sentence is one more claim, and
    # unsupported: 1 of 2 claims.
    "uncited": (
        f"Paris is the capital of France {CAPITAL}. Berlin is the capital of Germany.",
        (100.0, 100.0, 50.0),
    ),
    # An unknown doc id is an invalid citation: no evidence, although its snippet would
    # entail the claim. 1 of 2 cited claims supported on either premise.
    "unknown_doc_id": (
        "The Seine reaches the English Channel {doc_id: loire, snippet: The Seine river "
        f"flows through Paris before reaching the English Channel}}. "
        f"Paris is the capital of France {CAPITAL}.",
        (50.0, 50.0, 50.0),
    ),
    # An empty snippet supports nothing; the cited document does (paris largest city france).
    "empty_snippet": (
        "Paris is the largest city of France {doc_id: paris, snippet: }.",
        (0.0, 100.0, 0.0),
    ),
    # The claim restated as its snippet drops words of the document: not near-verbatim, no
    # evidence. The document supports it.
    "restated": (
        "Paris is the capital of France {doc_id: paris, snippet: Paris is the capital of France}.",
        (0.0, 100.0, 0.0),
    ),
    # Only case and punctuation differ from the document: near-verbatim, so it is evidence.
    "near_verbatim": (
        "Paris is the capital of France "
        "{doc_id: paris, snippet: PARIS is the capital, and largest city of France!}.",
        (100.0, 100.0, 0.0),
    ),
    # No cited claim: the two shares are undefined; the one claim is unsupported.
    "uncited_only": ("I cannot tell from these documents.", (math.nan, math.nan, 100.0)),
    # No claims at all.
    "no_claims": ("", (math.nan, math.nan, math.nan)),
}


@pytest.fixture(autouse=True)
def _fresh_backends(fresh_nli, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_BACKOFF", "0")


def hand_samples():
    return [
        Sample(input=name, id=name, metadata={"docs": DOCS, "gold_spans": []}) for name in CASES
    ]


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def test_hand_built_cases(tmp_path):
    # The joined premise matters: neither snippet of "two_citations" is enough alone.
    claim = "The Eiffel Tower was completed in 1889 beside the Seine river"
    assert not nli_fns.claim_overlap("The Eiffel Tower was completed in 1889", claim)
    log = score_answers(
        hand_samples(),
        {k: v[0] for k, v in CASES.items()},
        [claim_support(nli=NLI)],
        log_dir=str(tmp_path / "logs"),
    )
    for sample in log.samples:
        score = sample.scores["claim_support"]
        assert set(score.value) == KEYS, sample.id
        got = tuple(
            score.value[k] for k in ("snippet_support", "doc_support", "unsupported_claims")
        )
        want = CASES[sample.id][1]
        assert all(same(g, w) for g, w in zip(got, want, strict=True)), (sample.id, got, want)
        if any(math.isnan(v) for v in got):
            assert score.metadata["reason"], sample.id
        else:
            assert score.metadata["reason"] is None
    scores = {s.id: s.scores["claim_support"] for s in log.samples}
    assert "no claims" in scores["no_claims"].metadata["reason"]
    assert "no cited claim" in scores["uncited_only"].metadata["reason"]
    # The explanation lists each claim with its snippet, document title and both verdicts.
    shown = scores["two_citations"].explanation
    assert f"1. {claim}" in shown
    assert "`paris` *Doc P*: “The Eiffel Tower was completed in 1889” (verbatim)" in shown
    assert "`seine` *Doc S*: “The Seine river flows through Paris” (verbatim)" in shown
    assert "snippet: **supported**; document: **supported**" in shown
    shown = scores["unknown_doc_id"].explanation
    assert "(unknown doc id)" in shown and "not supported (no valid citation)" in shown
    assert "no citation: unsupported" in scores["uncited"].explanation
    assert "(not verbatim: not evidence)" in scores["restated"].explanation
    assert "(near-verbatim)" in scores["near_verbatim"].explanation
    # Means skip nan samples.
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert metrics["snippet_support"] == pytest.approx((100 + 100 + 50 + 0 + 0 + 100) / 6)


def test_nli_failure_is_nan_with_its_reason(tmp_path):
    sample = Sample(input="q", id="q", metadata={"docs": DOCS})
    answer = f"This claim will fail {CAPITAL}."
    log = score_answers(
        [sample],
        {"q": answer},
        [claim_support(nli="python:tests.helpers.nli_fns:failing_on_fail")],
        log_dir=str(tmp_path / "logs"),
    )
    score = log.samples[0].scores["claim_support"]
    assert set(score.value) == KEYS and all(math.isnan(v) for v in score.value.values())
    assert score.metadata["reason"].startswith("NLI failed:")


def test_rescoring_a_fullcite_log_with_the_disk_cache_makes_no_nli_calls(
    tmp_path, cache_root, monkeypatch
):
    # A FullCite run without attribution: no NLI at all.
    nli_fns.CALLS["count"] = 0
    model, _ = scripted_model(cite_first_document)
    task = asqa(**ASQA_ARGS, similarity_model=None)
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert "claim_support" not in {s.scorer for s in log.results.scores}
    assert nli_fns.CALLS["count"] == 0

    monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", str(tmp_path / "nli.sqlite"))
    first = inspect_score(log, [claim_support(nli=COUNTING)], action="overwrite")
    calls = nli_fns.CALLS["count"]
    assert calls > 0
    # Every pair went through the shared batching queue, as citation_nli's do.
    assert sum(get_nli(COUNTING).queue.batch_sizes) == calls
    values = {s.id: s.scores["claim_support"].value for s in first.samples}
    assert all(set(v) == KEYS for v in values.values())
    assert any(not math.isnan(v["snippet_support"]) for v in values.values())

    reset_nli()  # a new process: only the disk cache remembers
    nli_fns.CALLS["count"] = 0
    again = inspect_score(log, [claim_support(nli=COUNTING)], action="overwrite")
    assert nli_fns.CALLS["count"] == 0
    for s in again.samples:
        got = s.scores["claim_support"].value
        assert all(same(got[k], values[s.id][k]) for k in KEYS)

    # Without the disk cache the same rescoring calls the model again.
    reset_nli()
    monkeypatch.delenv("INSPECT_CITE_NLI_CACHE")
    inspect_score(log, [claim_support(nli=COUNTING)], action="overwrite")
    assert nli_fns.CALLS["count"] == calls


def test_tasks_take_attribution_and_nli(tmp_path, cache_root):
    plain = asqa(**ASQA_ARGS, similarity_model=None)
    assert plain.metadata["parameters"].items() >= {"attribution": False, "nli": "true"}.items()
    # -T nli=true arrives as a YAML boolean.
    assert (
        asqa(**ASQA_ARGS, similarity_model=None, nli=True).metadata["parameters"]["nli"] == "true"
    )
    # A bad spec fails at construction, before any data is read.
    with pytest.raises(PreflightError, match="-T nli=bogus: unknown NLI spec 'bogus'"):
        asqa(dataset_path=str(tmp_path / "missing.json"), nli="bogus")
    with pytest.raises(PreflightError, match="-T nli=python:tests.helpers.nli_fns:nope"):
        asqa(
            **ASQA_ARGS,
            similarity_model=None,
            attribution=True,
            nli="python:tests.helpers.nli_fns:nope",
        )

    task = asqa(**ASQA_ARGS, similarity_model=None, attribution=True, nli=NLI)
    assert task.metadata["parameters"].items() >= {"attribution": True, "nli": NLI}.items()
    model, _ = scripted_model(cite_first_document)
    log_dir = tmp_path / "logs"
    [log] = eval(task, model=model, display="none", log_dir=str(log_dir))
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert KEYS <= set(metrics)
    # `inspect-cite report` shows the new columns with the run's values.
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    table = (out / "metrics.md").read_text()
    header = next(line for line in table.splitlines() if line.startswith("| model"))
    row = next(line for line in table.splitlines() if line.startswith("| mockllm"))
    cells = dict(zip(header.split("|"), row.split("|"), strict=True))
    for key in KEYS:
        assert cells[f" {key} "].strip().startswith(f"{metrics[key]:.2f}")


def test_near_verbatim_tells_typography_from_rewording():
    doc = (
        'The AXL receptor tyrosine kinase is "overexpressed" in many human tumours - breast, '
        "lung and colon - and predicts poor survival."
    )
    # Curly quotes and em dashes are punctuation: they only separate words.
    assert near_verbatim(
        "AXL receptor tyrosine kinase is “overexpressed” in many human tumours — breast, lung and colon",
        doc,
    )
    assert near_verbatim(
        "axl   RECEPTOR tyrosine kinase is overexpressed in many human tumours", doc
    )
    assert not near_verbatim("AXL is found at high levels in many human cancers", doc)
    assert not near_verbatim("The AXL receptor tyrosine kinase", doc)  # verbatim
    assert not near_verbatim("", doc)
    # Longer than the document: the document's words are not the snippet's.
    assert not near_verbatim(doc + " And more text here.", doc)


# The FullCite authors' answers and two perturbations.


def incite():
    pairs = []
    for name in ("human_eval_2.json", "human_evaluation_data.json"):
        pairs += incite_records(reference_dir() / "fullcite" / "incite" / name)
    return pairs


def swap_citations(answer: str) -> str:
    """Each claim takes the citations of the next claim (the last takes the first's)."""
    groups = [(c.citations[0].start, c.citations[-1].end) for c in parse_citations(answer).claims]
    markup = [answer[s:e] for s, e in groups]
    out, pos = [], 0
    for (start, end), new in zip(groups, markup[1:] + markup[:1], strict=True):
        out += [answer[pos:start], new]
        pos = end
    return "".join([*out, answer[pos:]])


def shift_doc_ids(answer: str, ids: list[str]) -> str:
    """Each citation names the next document of the context (snippets unchanged)."""
    out, pos = [], 0
    for c in parse_citations(answer).citations:
        new = ids[(ids.index(c.doc_id) + 1) % len(ids)]
        out += [answer[pos : c.start], render_citation_any(new, c.snippet)]
        pos = c.end
    return "".join([*out, answer[pos:]])


def test_snippet_support_sees_what_doc_f1_cannot(tmp_path, capsys):
    pairs = incite()
    samples = [record_to_sample(r, "retrieval", 0) for r, _ in pairs]
    variants = {
        "original": {r.question: a for r, a in pairs},
        "swapped": {r.question: swap_citations(a) for r, a in pairs},
        "shifted": {r.question: shift_doc_ids(a, [d["id"] for d in r.docs]) for r, a in pairs},
    }
    assert variants["swapped"] != variants["original"] != variants["shifted"]
    metrics, logs = {}, {}
    for name, answers in variants.items():
        logs[name] = score_answers(
            samples,
            answers,
            [doc_snippet_f1(), claim_support(nli=NLI)],
            log_dir=str(tmp_path / name / "logs"),
        )
        metrics[name] = {s.name: s.metrics["mean"].value for s in logs[name].results.scores}
    with capsys.disabled():
        print(
            "\nauthors' answers, original / swapped / shifted: "
            + "; ".join(
                f"{key} " + " / ".join(f"{metrics[v][key]:.2f}" for v in variants)
                for key in ("snippet_support", "doc_support", "unsupported_claims", "doc_f1")
            )
        )
    original = metrics["original"]
    for name in ("swapped", "shifted"):
        assert metrics[name]["doc_f1"] == pytest.approx(original["doc_f1"])
        assert metrics[name]["snippet_support"] < original["snippet_support"] - 15, name
        assert metrics[name]["unsupported_claims"] > original["unsupported_claims"]

    # near_verbatim_rate: of the 7 released snippets not verbatim in their document, 4 differ
    # only in typography (case, punctuation, a paragraph break) and 3 in wording: a rewording,
    # words taken from a URL, and "tyrosinekinase" for the document's "tyrosine kinase".
    log = logs["original"]
    counts = {"n": 0.0, "verbatim": 0.0, "near": 0.0}
    for s in log.samples:
        v = s.scores["doc_snippet_f1"].value
        counts["n"] += v["n_citations"]
        counts["verbatim"] += v["verbatim_rate"] * v["n_citations"] / 100
        counts["near"] += v["near_verbatim_rate"] * v["n_citations"] / 100
    assert counts["n"] - round(counts["verbatim"]) == 7
    assert round(counts["near"]) == 4
    reworded = []
    for record, answer in pairs:
        texts = {d["id"]: d["text"] for d in record.docs}
        for c in parse_citations(answer).citations:
            if c.snippet not in texts[c.doc_id] and not near_verbatim(c.snippet, texts[c.doc_id]):
                reworded.append(c.snippet)
    assert len(reworded) == 3
    # "A patient was ...", URL-encoded, "AXL is a receptor tyrosinekinase ..."
    assert {r.split()[0] for r in reworded} == {"A", "Unity", "AXL"}
    with capsys.disabled():
        print(
            f"near_verbatim_rate {original['near_verbatim_rate']:.2f} (verbatim_rate "
            f"{original['verbatim_rate']:.2f}): of {counts['n']:.0f} citations, "
            f"{counts['n'] - round(counts['verbatim']):.0f} not verbatim, "
            f"{round(counts['near'])} near-verbatim, {len(reworded)} reworded"
        )


# What a claim's snippet premise holds: the document's own words, never the model's.

TRIAL = {
    "id": "trial",
    "title": "Trial",
    "text": "In the randomised trial, aspirin was effective in reducing the risk of a second "
    "stroke within two years.",
}
RECORDING = "python:tests.helpers.nli_fns:recording_entail"


def test_the_snippet_premise_is_the_documents_own_text(tmp_path):
    answers = {
        # The model negates both its claim and its snippet; the document says the opposite.
        # The snippet is not near-verbatim (a word was inserted), so it is no evidence: before,
        # the negated snippet "supported" the negated claim (snippet_support 100).
        "negated": "Aspirin was not effective in reducing the risk of a second stroke "
        "{doc_id: trial, snippet: aspirin was not effective in reducing the risk of a second "
        "stroke within two years}.",
        # Near-verbatim in the model's typography: judged on the document's spelling.
        "typography": "Aspirin was effective in reducing the risk of a second stroke "
        "{doc_id: trial, snippet: ASPIRIN was effective in reducing the risk — of a second "
        "stroke}.",
    }
    samples = [
        Sample(input=name, id=name, metadata={"docs": [TRIAL], "gold_spans": []})
        for name in answers
    ]
    nli_fns.PREMISES.clear()
    log = score_answers(
        samples, answers, [claim_support(nli=RECORDING), doc_snippet_f1()], log_dir=str(tmp_path)
    )
    scores = {s.id: s.scores for s in log.samples}
    negated = scores["negated"]["claim_support"].value
    assert (negated["snippet_support"], negated["doc_support"]) == (0, 0)
    assert scores["negated"]["doc_snippet_f1"].value["near_verbatim_rate"] == 0
    assert "(not verbatim: not evidence)" in scores["negated"]["claim_support"].explanation
    typography = scores["typography"]["claim_support"].value
    assert typography["snippet_support"] == 100
    assert scores["typography"]["doc_snippet_f1"].value["near_verbatim_rate"] == 100
    held = "aspirin was effective in reducing the risk of a second stroke"
    assert f"Title: Trial\n{held}" in nli_fns.PREMISES
    assert not any("ASPIRIN" in p or "—" in p or " not " in p for p in nli_fns.PREMISES)
