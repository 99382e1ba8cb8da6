"""The invariant matrix: every strategy x every scorer that applies, on properties that must
hold whatever the answer (issue 35).

Each row is one pair. Its base samples come from the strategy's real run (Inspect, the task
builder, the solver, a scripted model: :mod:`tests.invariants.strategies`), and hypothesis
draws answers into them, written as that strategy's solver writes a model's answer. Per answer:

(a) a citation of a document the model did not see (one no tool returned, or one that is no
    document at all) changes no credit, except to lower it;
(b) renumbering the documents, with the answer's citations renumbered to match, changes no
    score (but where citations land: citation_bias's position shares);
(c) ``diagnose``'s four classes sum to 100 per sample and agree with the scorer's own keys;
(d) the run's second epoch scores every sample as its first (same answers), so repeating an
    epoch changes no rate;
(e) a native text block of two sentences credits as the same two sentences in two blocks,
    each with the block's citations;
(f) every value is within its range, or nan with the reason.

The newer families follow the same properties where they apply:

- TRUST-SCORE (``-T trust=true`` on ALCE's tasks, ``alce_tasks/expertqa``): ``trust_score`` per
  sample and its ``trust_corpus`` keys over the sample (every trust-eval key), default and
  corrected; answers may hold the refusal sentence. Answerability and correctness read no
  citation, so citing changes neither.
- HELMET (``-T context=8k``, and its no-citation control): ``citation_nli`` and
  ``alce_correctness`` with HELMET's rules.
- LongBench-Cite: ``longcite_citation`` (LongCite's numbers, and ``strict``) and
  ``longcite_correctness``. (a) cites chunks past the last one, or a reversed range; (b) does
  not apply (:func:`check_longcite_ranges` says why and checks what takes its place).
- MiniCheck (``minicheck:<dir>``, a random stand-in) judges ``citation_nli`` and
  ``claim_support``.

A new strategy or scorer joins the matrix in the change that adds it (docs/development.md):
a row in ``PAIRS`` (and, for a strategy, its run in :mod:`tests.invariants.strategies`).
``python -m pytest -k invariant`` runs it.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Score, Scorer, Target

from inspect_cite.alce.trust.metrics import TrustItem, trust_scores
from inspect_cite.alce.trust.refusal import REFUSAL_FLAG
from inspect_cite.app.log_metrics import HIGHER_IS_BETTER, LOWER_IS_BETTER, metric_direction
from inspect_cite.longcite.files import LONGCITE_DIR_ENV
from scorers.alce_correctness import alce_correctness
from scorers.alce_qa import alce_qa
from scorers.citation_bias import citation_bias
from scorers.citation_judge import citation_judge
from scorers.citation_nli import citation_nli
from scorers.citation_similarity import citation_similarity
from scorers.claim_coverage import claim_coverage
from scorers.claim_support import claim_support
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.fullcite_answer import fullcite_answer
from scorers.longcite_citation import longcite_citation
from scorers.longcite_correctness import longcite_correctness
from scorers.mauve import mauve
from scorers.native_counts import native_counts
from scorers.source_support import source_support
from scorers.trust_score import trust_score
from tests.conftest import fixture_corpus
from tests.helpers.tiny_eval_models import minilm_path
from tests.invariants.families import (
    longcite_folder,
    longcite_grader,
    minicheck_spec,
    word_tokenizer,
)
from tests.invariants.strategies import (
    ALCE_FORMAT,
    ALCE_STRATEGIES,
    FULLCITE_STRATEGIES,
    HELMET_SETTINGS,
    LONGCITE_STRATEGIES,
    NLI,
    TRUST_RUNS,
    answer_state,
    captured,
    claim_texts,
    clean,
    grader,
    renumbered,
    seen_places,
    task_state,
)

DIAGNOSE = ("supported", "misattributed", "unsupported", "uncited")


@cache
def _tiny(kind: str) -> str:
    import tempfile
    from pathlib import Path

    from tests.helpers.tiny_eval_models import build_tiny_gpt2, build_tiny_qa

    root = Path(tempfile.mkdtemp(prefix=f"invariant-{kind}-"))
    if kind == "qa":
        return str(build_tiny_qa(root / "qa", fixture_corpus()))
    return str(build_tiny_gpt2(root / "tiny-gpt2", fixture_corpus()))


# Each scorer as the matrix builds it, and the keys it gives credit by (none: its values do
# not read citations at all, so they must not change).
SCORERS: dict[str, Callable[[str], Scorer]] = {
    "alce_correctness": lambda ds: alce_correctness(ds),
    "citation_nli": lambda ds: citation_nli(nli=NLI, dataset=ds),
    "citation_nli_diagnose": lambda ds: citation_nli(nli=NLI, dataset=ds, diagnose=True),
    "claim_coverage": lambda ds: claim_coverage(nli=NLI),
    "alce_qa": lambda ds: alce_qa(qa_model=_tiny("qa"), device="cpu"),
    "mauve": lambda ds: mauve(mauve_model=_tiny("gpt2")),
    "source_support": lambda ds: source_support(nli=NLI),
    "source_support_diagnose": lambda ds: source_support(nli=NLI, diagnose=True),
    "native_counts": lambda ds: native_counts(),
    "doc_snippet_f1": lambda ds: doc_snippet_f1(),
    "citation_bias": lambda ds: citation_bias(max_positions=5),
    "fullcite_answer": lambda ds: fullcite_answer(source="bioasq"),
    "citation_similarity": lambda ds: citation_similarity(similarity_model=minilm_path()),
    "citation_judge": lambda ds: citation_judge(model="mockllm/grader", attempts=1),
    "claim_support": lambda ds: claim_support(nli=NLI),
    "claim_support_diagnose": lambda ds: claim_support(nli=NLI, diagnose=True),
    "citation_nli_minicheck": lambda ds: citation_nli(nli=minicheck_spec(), dataset=ds),
    "claim_support_minicheck": lambda ds: claim_support(nli=minicheck_spec()),
    "trust_score": lambda ds: trust_score(dataset=ds, nli=NLI),
    "trust_score_corrected": lambda ds: trust_score(dataset=ds, nli=NLI, corrected=True),
    "alce_correctness_helmet": lambda ds: alce_correctness(ds, rules="helmet"),
    "citation_nli_helmet": lambda ds: citation_nli(nli=NLI, dataset=ds, rules="helmet"),
    "citation_nli_helmet_diagnose": lambda ds: citation_nli(
        nli=NLI, dataset=ds, rules="helmet", diagnose=True
    ),
    "longcite_citation": lambda ds: longcite_citation(tokenizer=word_tokenizer()),
    "longcite_citation_strict": lambda ds: longcite_citation(
        tokenizer=word_tokenizer(), strict=True
    ),
    "longcite_correctness": lambda ds: longcite_correctness(),
    "longcite_correctness_strict": lambda ds: longcite_correctness(strict=True),
}
# Answers drawn per row: 4, but more where a random judge (MiniCheck's stand-in) decides, so
# that some judged citations are supported and some not (each judgement takes milliseconds).
EXAMPLES = {"citation_nli_minicheck": 12, "claim_support_minicheck": 12}
# A scorer's variants in the matrix (diagnose, another judge, other rules, corrected values):
# each suffix names the options of one row; the scorer is the name without them.
VARIANTS = ("_diagnose", "_minicheck", "_helmet", "_corrected", "_strict")


def scorer_of(name: str) -> str:
    """The public scorer a row's scorer name is a variant of (``citation_nli_helmet_diagnose``:
    ``citation_nli``)."""
    for suffix in VARIANTS:
        name = name.removesuffix(suffix)
    return name


# eval.py's defect 4 (docs/alce.md; HELMET's eval_alce.py and trust-eval keep it: docs/alce.md,
# "trust-eval's defects" 4): a statement citing out of range leaves the precision denominator, so
# such a citation can raise precision and what is computed from it. Kept by default for parity;
# when the added citation is out of range, (a) is checked on these keys under the fixed rules.
TRUST_PRECISION = frozenset(
    {
        "citation_prec",
        "regular_citation_prec",
        "regular_citation_f1",
        "answered_citation_prec",
        "answered_citation_f1",
        "trust_score",
    }
)
FIXED_RULES: dict[str, tuple[Callable[[str], Scorer], frozenset[str]]] = {
    "citation_nli": (
        lambda ds: citation_nli(nli=NLI, dataset=ds, alce_compat=False),
        frozenset({"citation_prec"}),
    ),
    "citation_nli_helmet": (
        lambda ds: citation_nli(nli=NLI, dataset=ds, rules="helmet", alce_compat=False),
        frozenset({"citation_prec"}),
    ),
    "citation_nli_minicheck": (
        lambda ds: citation_nli(nli=minicheck_spec(), dataset=ds, alce_compat=False),
        frozenset({"citation_prec"}),
    ),
    "trust_score": (
        lambda ds: trust_score(dataset=ds, nli=NLI, corrected=True),
        TRUST_PRECISION,
    ),
}

# Keys that read no citation: citations change nothing there.
CITATION_FREE = {
    "alce_correctness",
    "claim_coverage",
    "alce_qa",
    "mauve",
    "fullcite_answer",
    "alce_correctness_helmet",
    "longcite_correctness",
    "longcite_correctness_strict",
}
# Keys of a scorer that reads citations elsewhere which read none: TRUST-SCORE's answerability
# (the shown documents' answers_found) and correctness (the citation-free output).
CITATION_FREE_KEYS = {"trust_score": {"answerable", "correct"}}
# Keys that say where citations went or how many there are: (a) and (b) do not apply.
PLACES = ("pos_", "first_two_share")
# Shares that describe what the answer did rather than credit it: citing anything makes an
# uncited claim cited (``uncited`` falls, ``unsupported`` may rise). Only ``supported``,
# among diagnose's classes, is credit.
DESCRIPTIVE = {"misattributed", "unsupported", "uncited", "uncited_but_supported", "uncited_claims"}
COUNTS = {
    "n_citations",
    "native_citations",
    "unmapped_citations",
    "replies_without_citations",
    "n_scored",
    "length",
    "num_preds",
    "omission_rate",
    # TRUST-SCORE's counts and lengths (trust_corpus), and LongBench-Cite's tokens per citation.
    "num_samples",
    "answered_num",
    "answerable_num",
    "overlapped_num",
    "regular_length",
    "answered_length",
    "citation_length",
}


@dataclass(frozen=True)
class Pair:
    family: str
    dataset: str
    strategy: str
    scorer: str
    setting: str = ""
    """HELMET's row (``8k``, ``8k_nocite``)."""

    @property
    def id(self) -> str:
        dataset = f"{self.dataset}-{self.setting}" if self.setting else self.dataset
        return f"{self.family}-{dataset}-{self.strategy}-{self.scorer}"


def _pairs() -> list[Pair]:
    pairs = []
    for strategy in ALCE_STRATEGIES:
        scorers = ["alce_correctness", "citation_nli", "citation_nli_diagnose", "alce_qa", "mauve"]
        if strategy in ("agent", "native"):
            scorers += ["source_support", "source_support_diagnose"]
        if strategy == "native":
            scorers.append("native_counts")
        pairs += [Pair("alce", "asqa", strategy, s) for s in scorers]
        pairs.append(Pair("alce", "eli5", strategy, "claim_coverage"))
    for strategy in FULLCITE_STRATEGIES:
        scorers = [
            "doc_snippet_f1",
            "citation_bias",
            "fullcite_answer",
            "citation_similarity",
            "citation_judge",
            "claim_support",
            "claim_support_diagnose",
        ]
        if strategy in ("agent", "native"):
            scorers += ["source_support", "source_support_diagnose"]
        if strategy == "native":
            scorers.append("native_counts")
        pairs += [Pair("fullcite", "bioasq", strategy, s) for s in scorers]
    # MiniCheck as the judge, where an NLI spec judges citations.
    pairs.append(Pair("alce", "asqa", "vanilla", "citation_nli_minicheck"))
    pairs.append(Pair("fullcite", "bioasq", "prompt", "claim_support_minicheck"))
    for dataset, strategies in TRUST_RUNS.items():
        for strategy in strategies:
            pairs.append(Pair("trust", dataset, strategy, "trust_score"))
        pairs.append(Pair("trust", dataset, strategies[0], "trust_score_corrected"))
    for setting in HELMET_SETTINGS:
        scorers = ["alce_correctness_helmet"]
        if not setting.endswith("nocite"):
            scorers += ["citation_nli_helmet", "citation_nli_helmet_diagnose"]
        pairs += [Pair("helmet", "asqa", "vanilla", s, setting) for s in scorers]
    for strategy in LONGCITE_STRATEGIES:
        pairs += [
            Pair("longcite", "longbench_cite", strategy, s)
            for s in (
                "longcite_citation",
                "longcite_citation_strict",
                "longcite_correctness",
                "longcite_correctness_strict",
            )
        ]
    return pairs


PAIRS = _pairs()


def run_score(scorer: Scorer, state: Any) -> Score:
    def longcite(model: Any, who: str) -> Any:
        return longcite_grader()

    with (
        mock.patch("scorers.citation_judge._grader", lambda model: grader()),
        mock.patch("scorers.longcite_citation.grader_model", longcite),
        mock.patch("scorers.longcite_correctness.grader_model", longcite),
    ):
        score = asyncio.run(scorer(state, Target(state.target.target)))
    assert score is not None
    return score


def values(score: Score) -> dict[str, float]:
    value = score.value
    assert isinstance(value, dict), value
    return {k: float(v) for k, v in value.items()}


def _nan(x: float) -> bool:
    return math.isnan(x)


def _same(a: float, b: float) -> bool:
    return (_nan(a) and _nan(b)) or (
        not _nan(a) and not _nan(b) and math.isclose(a, b, abs_tol=1e-6)
    )


def _reason(score: Score, key: str = "") -> str:
    reason = (score.metadata or {}).get("reason")
    if isinstance(reason, str) and reason:
        return reason
    # A scorer giving some keys nan and others values names the reason per key.
    reasons = (score.metadata or {}).get("reasons")
    if isinstance(reasons, dict):
        return str(reasons.get(key, ""))
    text = score.explanation or ""
    return text if ("nan" in text or "Not scored" in text or "not scored" in text) else ""


def check_ranges(pair: Pair, score: Score) -> None:
    """(f) every value in its range, or nan with the reason."""
    for key, v in values(score).items():
        if _nan(v):
            assert _reason(score, key), f"{pair.id}: {key} is nan without a reason"
        elif key in COUNTS or key.startswith(("n_", "num_")) or key == "invalid_citations":
            assert v >= 0, (pair.id, key, v)
        elif key == "similarity":
            assert -1 - 1e-6 <= v <= 1 + 1e-6, (pair.id, key, v)
        elif key in ("support", "relevance"):
            assert 1 <= v <= 5, (pair.id, key, v)
        elif key in ("answered", "answerable"):
            assert v in (0, 1), (pair.id, key, v)
        else:
            assert -1e-9 <= v <= 100 + 1e-9, (pair.id, key, v)


def not_better(key: str, base: float, variant: float) -> bool:
    """Whether ``variant`` gives no more credit than ``base`` for ``key``."""
    direction = metric_direction(key)
    if direction not in (HIGHER_IS_BETTER, LOWER_IS_BETTER):
        return True
    if _nan(base) or _nan(variant):
        # Citing something unseen can make a claim cited (a share appears, at its worst).
        worst = 0.0 if direction == HIGHER_IS_BETTER else 100.0
        return _nan(variant) or variant == worst or key in DIAGNOSE
    return variant <= base + 1e-9 if direction == HIGHER_IS_BETTER else variant >= base - 1e-9


def check_diagnose(pair: Pair, score: Score) -> None:
    """(c) the classes partition the claims and agree with the scorer's own keys."""
    v = values(score)
    classes = [v[c] for c in DIAGNOSE]
    if all(_nan(c) for c in classes):
        assert _reason(score) or (score.metadata or {}).get("diagnose", {}).get("reason")
        return
    assert math.isclose(sum(classes), 100, abs_tol=1e-6), (pair.id, v)
    if pair.scorer.startswith("citation_nli"):
        assert _same(v["supported"], v["citation_rec"]), (pair.id, v)
    elif pair.scorer.startswith("claim_support"):
        assert _same(v["supported"], 100 - v["unsupported_claims"]), (pair.id, v)
    else:
        assert _same(v["uncited"], v["uncited_claims"]), (pair.id, v)
        assert _same(v["supported"], v["supported_claims"]), (pair.id, v)


# --- answers -------------------------------------------------------------------------------


def _longcite_ranges(draw: Any, places: list[int], last: int) -> tuple[tuple[int, int], ...]:
    """A chunk range starting at each place, one to three chunks long (within the context)."""
    return tuple((p, min(p + draw(st.integers(0, 2)), last)) for p in places)


def _longcite_extra(draw: Any, last: int) -> tuple[int, int]:
    """A range naming no chunk shown: past the last chunk, or reversed."""
    if last > 0 and draw(st.booleans()):
        return (last, draw(st.integers(0, last - 1)))
    start = last + 1 + draw(st.integers(0, 3))
    return (start, start + draw(st.integers(0, 2)))


@st.composite
def answers(draw: Any, bases: list[Any], family: str, native: bool) -> dict[str, Any]:
    """A sample of the run, an answer over its seen documents, the unseen citation to add to one
    of its claims, and a renumbering of the documents (LongBench-Cite: a range running past
    the last chunk, for :func:`check_longcite_ranges`)."""
    base = draw(st.sampled_from(bases))
    docs = base.metadata.get("docs") or []
    seen, unseen = seen_places(base)
    texts = [clean(t) for t in claim_texts([docs[i] for i in seen])] or ["Nothing at all"]
    # TRUST-SCORE: the refusal sentence first, as the whole answer or before claims, cited or not.
    refusal = family == "trust" and draw(st.booleans())
    last = len(docs) - 1
    n_claims = draw(st.integers(1, 3))
    claims: list[Any] = []
    for i in range(n_claims):
        text = REFUSAL_FLAG if refusal and i == 0 else draw(st.sampled_from(texts))
        if native:
            text = f"{text}. {draw(st.sampled_from(texts))}"
        places = draw(st.lists(st.sampled_from(seen), max_size=3, unique=True)) if seen else []
        if family == "longcite":
            claims.append((text, _longcite_ranges(draw, places, last)))
        elif family in ALCE_FORMAT or native:
            claims.append((text, tuple(p if native else p + 1 for p in places)))
        else:
            cites = []
            for p in places:
                other = docs[draw(st.sampled_from(seen))]["text"]
                source = docs[p]["text"] if draw(st.booleans()) else other
                cites.append((docs[p]["id"], clean(" ".join(source.split()[:5]))))
            claims.append((text, tuple(cites)))
    target = draw(st.integers(0, n_claims - 1))
    if unseen:
        place = draw(st.sampled_from(unseen))
        extra: Any = place if native else place + 1
        unseen_doc = docs[place]
    else:
        # Every document was seen: cite one that is not one.
        extra, unseen_doc = (len(docs) if native else len(docs) + 1), None
    if family == "fullcite" and not native:
        words = unseen_doc["text"].split()[:5] if unseen_doc else ["not", "a", "document"]
        extra = (unseen_doc["id"] if unseen_doc else "nosuchdoc", clean(" ".join(words)))
    straddle = None
    if family == "longcite":
        extra = _longcite_extra(draw, last)
        start = draw(st.integers(0, last))
        straddle = (start, last + draw(st.integers(1, 3)))
    order = draw(st.permutations(list(range(len(docs))))) if docs else []
    return {
        "base": base,
        "claims": claims,
        "target": target,
        "extra": extra,
        "order": order,
        "out_of_range": unseen_doc is None,
        "straddle": straddle,
    }


def defect_four(pair: Pair, base: Any) -> dict[str, Any] | None:
    """The answer eval.py's defect 4 shows on, drawn for every row that scores ALCE's citation
    precision (None for the others): a supported claim citing its document, a claim citing that
    document too (which does not support it), then a citation out of range added to the second.
    Under eval.py's rules the second claim's citation leaves the precision denominator and
    precision rises (checked under the fixed rules, :data:`FIXED_RULES`); a chance draw rarely
    writes it.
    """
    if (
        pair.family not in ALCE_FORMAT
        or pair.strategy == "native"
        or scorer_of(pair.scorer) not in ("citation_nli", "trust_score")
    ):
        return None
    docs = base.metadata["docs"]
    seen, _ = seen_places(base)
    if len(seen) < 2:
        return None
    first, second = (clean(claim_texts([docs[i]])[0]) for i in seen[:2])
    claims = [(first, (seen[0] + 1,)), (second, (seen[0] + 1,))]
    return {
        "base": base,
        "claims": claims,
        "target": 1,
        "extra": len(docs) + 1,
        "order": list(reversed(range(len(docs)))),
        "out_of_range": True,
        "straddle": None,
    }


def with_extra(claims: list[Any], target: int, extra: Any) -> list[Any]:
    out = list(claims)
    text, cites = out[target]
    out[target] = (text, (*cites, extra))
    return out


def renumber_answer(claims: list[Any], order: list[int], family: str, native: bool) -> list[Any]:
    """The answer's citations renumbered to ``order`` (FullCite cites ids: unchanged)."""
    if family == "fullcite" and not native:
        return claims
    new_place = {old: new for new, old in enumerate(order)}
    if native:
        return [(t, tuple(new_place.get(i, i) for i in refs)) for t, refs in claims]
    return [
        (t, tuple(new_place[r - 1] + 1 if r - 1 in new_place else r for r in refs))
        for t, refs in claims
    ]


def trust_corpus(pair: Pair, score: Score) -> dict[str, float]:
    """Every trust-eval key over this one sample (what ``trust_corpus`` computes from the
    judgement the score carries), checked for (f); empty when the sample was not judged."""
    meta = score.metadata or {}
    if not isinstance(meta.get("trust_item"), dict):
        return {}
    result = trust_scores(
        [TrustItem.from_json(meta["trust_item"])],
        meta["trust_dataset"],
        corrected=bool(meta.get("trust_corrected")),
    )
    for key, v in result.values.items():
        if _nan(v):
            assert result.reasons.get(key), f"{pair.id}: trust_corpus {key} is nan without a reason"
        elif key in COUNTS or key.endswith("num_preds"):
            assert v >= 0, (pair.id, key, v)
        else:
            assert -1e-9 <= v <= 100 + 1e-9, (pair.id, key, v)
    return result.values


def check_longcite_ranges(
    pair: Pair, scorer: Scorer, answer: dict[str, Any], v: dict[str, float]
) -> None:
    """(b) for LongBench-Cite: rewritings of the answer's ranges that keep its meaning.

    Renumbering does not apply: the chunks are the sentences of one document in its order,
    not passages in a retrieval order; a citation ``[a-b]`` names a run of consecutive
    chunks, and LongCite merges a range into the one before it when it starts right after
    it. A permutation of the chunks changes which text a range quotes and which citations
    merge, so no renumbering of the answer keeps its meaning. These rewritings do, and must
    keep every score:

    - every range written as its single chunks (``[2-2][3-3]`` for ``[2-3]``): LongCite
      merges them back into the range;
    - a range running past the last chunk (``[a-(last+k)]``) credits as the part of it the
      model saw (``[a-last]``): what lies past the context adds nothing.
    """
    base, claims = answer["base"], answer["claims"]
    split = [(t, tuple((i, i) for a, b in refs for i in range(a, b + 1))) for t, refs in claims]
    singles = values(run_score(scorer, answer_state(base, pair.strategy, pair.family, split)))
    for key in v:
        assert _same(v[key], singles[key]), (pair.id, key, v[key], singles[key], claims, split)
    start, end = answer["straddle"]
    last = len(base.metadata["docs"]) - 1
    past = with_extra(claims, answer["target"], (start, end))
    seen = with_extra(claims, answer["target"], (start, last))
    p = values(run_score(scorer, answer_state(base, pair.strategy, pair.family, past)))
    s = values(run_score(scorer, answer_state(base, pair.strategy, pair.family, seen)))
    for key in v:
        assert _same(p[key], s[key]), (pair.id, key, p[key], s[key], past, seen)


# --- the matrix ----------------------------------------------------------------------------


@pytest.fixture
def offline(own_prompts, monkeypatch) -> None:
    """The project's own ALCE and LongCite prompt files, an empty cache, no hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(LONGCITE_DIR_ENV, str(longcite_folder()))


def _credit_not_raised(pair: Pair, key: str, v: float, w: float, context: Any) -> None:
    """(a) for one key: ``w`` (with the unseen citation) gives no more credit than ``v``."""
    if pair.scorer in CITATION_FREE or key in CITATION_FREE_KEYS.get(scorer_of(pair.scorer), ()):
        assert _same(v, w), (pair.id, key, v, w, context)
    else:
        assert not_better(key, v, w), (pair.id, key, v, w, context)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.id for p in PAIRS])
def test_invariant(pair: Pair, offline: None) -> None:
    run = captured(pair.family, pair.dataset, pair.strategy, pair.setting)
    scorer = SCORERS[pair.scorer](pair.dataset)
    native = pair.strategy == "native"

    # (d) the second epoch scores each sample as the first.
    name = scorer_of(pair.scorer)
    by_id: dict[Any, list[Any]] = {}
    for sample in run.samples:
        if sample.scores and name in sample.scores:
            by_id.setdefault(sample.id, []).append(values(sample.scores[name]))
    if pair.family in ("trust", "helmet", "longcite"):
        # Their tasks add these scorers (ALCE's runs leave out alce_qa, mauve and others).
        assert by_id, f"{pair.id}: the run has no {name} scores"
    for scores in by_id.values():
        assert all(
            set(s) == set(scores[0]) and all(_same(s[k], scores[0][k]) for k in s) for s in scores
        ), (pair.id, scores)

    model = str(run.log.eval.model)
    bases = [task_state(sample, model) for sample in run.first_epoch()]

    def check(answer: dict[str, Any]) -> None:
        base, claims = answer["base"], answer["claims"]
        state = answer_state(base, pair.strategy, pair.family, claims)
        score = run_score(scorer, state)
        check_ranges(pair, score)
        if pair.scorer.endswith("_diagnose"):
            check_diagnose(pair, score)
        v = values(score)
        corpus = trust_corpus(pair, score)
        if scorer_of(pair.scorer) == "trust_score":
            assert corpus or _reason(score), f"{pair.id}: no trust-eval judgement, no reason"

        # (a) an unseen citation lowers credit or leaves it.
        more = with_extra(claims, answer["target"], answer["extra"])
        strategy_of = (pair.strategy, pair.family)
        worse = run_score(scorer, answer_state(base, *strategy_of, more))
        check_ranges(pair, worse)
        w = values(worse)
        rule = FIXED_RULES.get(pair.scorer.removesuffix("_diagnose"))
        fixed_keys: frozenset[str] = frozenset()
        if rule is not None and answer["out_of_range"]:
            # eval.py's defect 4 (FIXED_RULES): these keys are checked under the fixed rules.
            fixed_keys = rule[1]
            fixed_scorer = rule[0](pair.dataset)
            f_before = run_score(fixed_scorer, state)
            f_after = run_score(fixed_scorer, answer_state(base, *strategy_of, more))
            fb = {**values(f_before), **trust_corpus(pair, f_before)}
            fa = {**values(f_after), **trust_corpus(pair, f_after)}
        for key, value in [*w.items(), *trust_corpus(pair, worse).items()]:
            if (
                key in COUNTS
                or key in DESCRIPTIVE
                or key.startswith(PLACES)
                or key == "invalid_share"
            ):
                continue
            if key in fixed_keys:
                _credit_not_raised(pair, key, fb[key], fa[key], more)
            else:
                _credit_not_raised(pair, key, {**v, **corpus}[key], value, more)

        # (b) renumbering the documents (and the citations with them) changes no score.
        if pair.family == "longcite":
            check_longcite_ranges(pair, scorer, answer, v)
        elif answer["order"]:
            moved = renumbered(base, answer["order"], pair.family)
            claims2 = renumber_answer(claims, answer["order"], pair.family, native)
            again = run_score(scorer, answer_state(moved, pair.strategy, pair.family, claims2))
            a = values(again)
            for key in v:
                if key.startswith(PLACES):
                    continue
                assert _same(v[key], a[key]), (pair.id, key, v[key], a[key], answer["order"])
            for key, value in trust_corpus(pair, again).items():
                assert _same(corpus[key], value), (pair.id, key, corpus[key], value)

        # (e) native: a block of two sentences credits as two blocks with its citations.
        if native:
            split = [(p, refs) for text, refs in claims for p in text.split(". ")]
            apart = values(run_score(scorer, answer_state(base, "native", pair.family, split)))
            for key in v:
                if pair.scorer == "native_counts" or key in COUNTS:
                    continue
                assert _same(v[key], apart[key]), (pair.id, key, v[key], apart[key])

    test = given(answer=answers(bases, pair.family, native))(check)
    if (explicit := defect_four(pair, bases[0])) is not None:
        test = example(answer=explicit)(test)
    settings(
        max_examples=EXAMPLES.get(pair.scorer, 4),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )(test)()


def test_invariant_matrix_covers_every_strategy_and_scorer():
    """Every strategy of every family and every public scorer is in the matrix; MiniCheck
    judges the scorers it can judge."""
    import dataclasses

    import scorers
    from alce_tasks.options import TRUST_STRATEGIES
    from alce_tasks.strategies import STRATEGIES as ALCE
    from fullcite_tasks.strategies import STRATEGIES as FULLCITE
    from inspect_cite.alce.helmet import CONTEXT_LENGTHS
    from inspect_cite.benchmarks.trust import TRUST_DATASETS
    from longcite_tasks.options import LongciteOptions

    def strategies(family: str, dataset: str | None = None) -> set[str]:
        return {p.strategy for p in PAIRS if p.family == family and dataset in (None, p.dataset)}

    assert set(ALCE) == strategies("alce")
    assert set(FULLCITE) == strategies("fullcite")
    # -T trust=true: every strategy it takes, on an ALCE dataset and on ExpertQA.
    assert set(TRUST_STRATEGIES) == strategies("trust", "asqa")
    assert set(TRUST_STRATEGIES[:2]) == strategies("trust", "expertqa")
    assert {p.dataset for p in PAIRS if p.family == "trust"} <= set(TRUST_DATASETS)
    # HELMET's ladder runs the vanilla prompt only, at a length it has, and its control.
    assert strategies("helmet") == {"vanilla"}
    assert {p.setting.removesuffix("_nocite") for p in PAIRS if p.family == "helmet"} <= set(
        CONTEXT_LENGTHS
    )
    assert {p.setting for p in PAIRS if p.family == "helmet"} == set(HELMET_SETTINGS)
    # LongBench-Cite has one solver: a strategy option would need its rows here.
    assert strategies("longcite") == set(LONGCITE_STRATEGIES)
    assert "strategy" not in {f.name for f in dataclasses.fields(LongciteOptions)}
    matrix = {scorer_of(p.scorer) for p in PAIRS}
    # span_agreement scores gold-span annotation (no answer, no strategy); mauve_corpus is
    # mauve's corpus-level metric, trust_corpus trust_score's (the matrix computes it over
    # each answer: trust_corpus above), and epoch_mean the tasks' epochs reducer, not scorers.
    exceptions = {"span_agreement", "mauve_corpus", "trust_corpus", "epoch_mean"}
    assert set(scorers.__all__) - exceptions == matrix
    assert {"trust_score", "longcite_citation", "longcite_correctness"} <= matrix
    assert {scorer_of(n) for n in SCORERS if n.endswith("_minicheck")} >= {
        "citation_nli",
        "claim_support",
    }
    assert set(SCORERS) == {p.scorer for p in PAIRS}
