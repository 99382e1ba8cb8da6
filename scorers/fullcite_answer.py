"""Downstream QA correctness of FullCite answers, scored with the citations removed.

The output has the reasoning it starts with and all citation markup removed
(:func:`inspect_cite.citations.strip_citations`), then (x100):

- BioASQ (``metadata["question_type"]``, gold in ``exact_answer`` / ``reference_answers``):
  - yes/no: ``yesno_accuracy``. The answer is ``yes``/``no`` when the text starts with that
    word, else the first whole word ``yes`` or ``no`` in it; neither counts as wrong.
  - factoid: ``factoid_strict``, ``factoid_lenient``, ``factoid_mrr``. The text is cut into
    candidate answers (sentences, then ``,`` ``;`` ``and`` ``or``); the first five are the
    ranked candidates. A candidate is right when a normalised gold synonym occurs in it as
    whole words. Strict: the first is right; lenient: any of five; MRR: 1 / rank of the
    first right one (0 if none).
  - list: ``list_precision``, ``list_recall``, ``list_f1``. Candidates as above (all of them);
    precision = candidates matching some gold entry / candidates, recall = gold entries
    (synonym sets) matched / gold entries. Free text yields candidates that are not entities,
    so list precision is a lower bound.
  - summary: ``summary_rouge2`` and ``summary_rouge_su4``: ROUGE-2 and ROUGE-SU4 F-measure
    (rouge_score's tokenizer with stemming; SU4 = skip-bigrams with at most 4 words between,
    plus unigrams) against each ideal answer, best kept.
- ASQA: ``str_em`` and ``str_hit`` as ALCE defines them (short answers of ``qa_pairs``).
- ExpertQA: ``rougeL``: ROUGE-L F-measure against the reference answer(s), best kept.

Keys that do not apply to a sample (another question type) are nan.
"""

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.benchmarks.fullcite import ALL_ANSWER_KEYS, FULLCITE_SOURCES, FullciteSource
from inspect_cite.citations import strip_citations
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import literal
from inspect_cite.text.sentences import sent_tokenize
from inspect_cite.text.squad import normalize_answer
from inspect_cite.text.think import strip_think
from scorers._no_answer import no_answer_score
from scorers.alce_correctness import str_em

ANSWER_KEYS: dict[str, tuple[str, ...]] = {
    name: dataset.answer_keys for name, dataset in FULLCITE_SOURCES.items()
}
"""The keys of each dataset (its row in the registry)."""
FACTOID_CANDIDATES = 5
SU_MAX_GAP = 4

_SPLIT = re.compile(r"[,;\n]|\band\b|\bor\b|^\s*[-*•]\s*", re.IGNORECASE | re.MULTILINE)
_FIRST_WORD = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_ANY_YESNO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def answer_text(completion: str, *, prompt_opened: bool | None = None) -> str:
    """The output as QA scoring sees it: no reasoning, no citations.

    ``prompt_opened``: :func:`inspect_cite.text.think.split_think`'s (None infers it).
    """
    return strip_citations(strip_think(completion or "", prompt_opened=prompt_opened)).strip()


def extract_yesno(text: str) -> str | None:
    """``yes``/``no``: the first word if it is one, else the first such whole word, else None."""
    m = _FIRST_WORD.match(text) or _ANY_YESNO.search(text)
    return m.group(1).lower() if m else None


def candidates(text: str) -> list[str]:
    """Candidate answers in order: sentences split at ``,`` ``;`` ``and`` ``or`` and bullets."""
    out = []
    for sentence in sent_tokenize(text) if text.strip() else []:
        for piece in _SPLIT.split(sentence):
            piece = normalize_answer(piece)
            if piece:
                out.append(piece)
    return out


def _synonym_sets(exact: Any) -> list[list[str]]:
    """BioASQ exact answers as entries of synonyms: ``[["a", "a2"], ["b"]]`` or ``["a", "b"]``."""
    if isinstance(exact, str):
        return [[exact]]
    if not isinstance(exact, list):
        return []
    out = []
    for entry in exact:
        if isinstance(entry, str):
            out.append([entry])
        elif isinstance(entry, list):
            out.append([s for s in entry if isinstance(s, str)])
    return [[normalize_answer(s) for s in e if normalize_answer(s)] for e in out if e]


def _contains(candidate: str, synonym: str) -> bool:
    return bool(synonym) and f" {synonym} " in f" {candidate} "


def factoid_scores(text: str, exact: Any) -> tuple[float, float, float]:
    """(strict, lenient, reciprocal rank) of a factoid answer, fractions."""
    synonyms = [s for entry in _synonym_sets(exact) for s in entry]
    ranked = candidates(text)[:FACTOID_CANDIDATES]
    for rank, cand in enumerate(ranked, start=1):
        if any(_contains(cand, s) for s in synonyms):
            return float(rank == 1), 1.0, 1.0 / rank
    return 0.0, 0.0, 0.0


def list_scores(text: str, exact: Any) -> tuple[float, float, float]:
    """(precision, recall, F1) of a list answer, fractions."""
    entries = _synonym_sets(exact)
    items = candidates(text)
    if not entries:
        return math.nan, math.nan, math.nan
    if not items:
        return 0.0, 0.0, 0.0
    hits = sum(any(_contains(i, s) for e in entries for s in e) for i in items)
    found = sum(any(_contains(i, s) for i in items for s in e) for e in entries)
    p, r = hits / len(items), found / len(entries)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge2", "rougeL"], use_stemmer=True)


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=True)


def su_units(tokens: Sequence[str], max_gap: int = SU_MAX_GAP) -> Counter[Any]:
    """Unigrams and skip-bigrams (``i < j <= i + max_gap + 1``) of a token sequence."""
    units: Counter[Any] = Counter(tokens)
    for i in range(len(tokens)):
        for j in range(i + 1, min(len(tokens), i + max_gap + 2)):
            units[(tokens[i], tokens[j])] += 1
    return units


def rouge_su(candidate: str, reference: str, max_gap: int = SU_MAX_GAP) -> float:
    """ROUGE-SU F-measure (ROUGE-SU4 with the default gap), fraction."""
    cand = su_units(_tokenizer().tokenize(candidate), max_gap)
    ref = su_units(_tokenizer().tokenize(reference), max_gap)
    overlap = sum((cand & ref).values())
    if not overlap:
        return 0.0
    p, r = overlap / sum(cand.values()), overlap / sum(ref.values())
    return 2 * p * r / (p + r)


def best_rouge(candidate: str, references: Sequence[str], kind: str) -> float:
    """Best F-measure over references: ``rouge2``, ``rougeL`` or ``su4`` (nan without any)."""
    refs = [r for r in references if isinstance(r, str) and r.strip()]
    if not refs:
        return math.nan
    if kind == "su4":
        return max(rouge_su(candidate, r) for r in refs)
    return max(_rouge().score(r, candidate)[kind].fmeasure for r in refs)


def answer_values(text: str, metadata: dict[str, Any], source: str) -> tuple[dict[str, float], str]:
    """All values (x100) for one sample and a line describing what was extracted."""
    values = dict.fromkeys(ANSWER_KEYS.get(source, ()), math.nan)
    references = metadata.get("reference_answers") or []
    note = ""
    if source == "bioasq":
        qtype = metadata.get("question_type")
        exact = metadata.get("exact_answer")
        if qtype == "yesno":
            got = extract_yesno(text)
            gold = exact[0] if isinstance(exact, list) and exact else exact
            gold = str(gold).strip().lower() if gold is not None else None
            values["yesno_accuracy"] = 100.0 * (got is not None and got == gold)
            note = f"extracted {got!r}, gold {gold!r}"
        elif qtype == "factoid":
            strict, lenient, rr = factoid_scores(text, exact)
            values |= {"factoid_strict": 100 * strict, "factoid_lenient": 100 * lenient}
            values["factoid_mrr"] = 100 * rr
            note = f"candidates {candidates(text)[:FACTOID_CANDIDATES]}"
        elif qtype == "list":
            p, r, f = list_scores(text, exact)
            values |= {"list_precision": 100 * p, "list_recall": 100 * r, "list_f1": 100 * f}
            note = f"candidates {candidates(text)}"
        elif qtype == "summary":
            values["summary_rouge2"] = 100 * best_rouge(text, references, "rouge2")
            values["summary_rouge_su4"] = 100 * best_rouge(text, references, "su4")
    elif source == "asqa":
        qa_pairs = metadata.get("qa_pairs") or []
        em, hit = str_em(text, qa_pairs)
        values["str_em"], values["str_hit"] = 100 * em, 100 * hit
    elif source == "expertqa":
        values["rougeL"] = 100 * best_rouge(text, references, "rougeL")
    return values, note


@scorer(metrics={key: [mean(), stderr()] for key in ALL_ANSWER_KEYS})
@accept_cli_values("-S")
def fullcite_answer(source: FullciteSource | None = None) -> Scorer:
    """Downstream QA correctness with citations removed (definitions in the module docstring).

    Args:
        source: ``bioasq``, ``asqa`` or ``expertqa``; None reads ``metadata["source"]`` and
            reports the keys of all three.

    """

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        src = source or str(metadata.get("source", ""))
        keys = ALL_ANSWER_KEYS if source is None else ANSWER_KEYS.get(src, ())
        if unscored := no_answer_score(state, keys):
            return unscored
        text = answer_text(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
        values, note = answer_values(text, metadata, src)
        if source is None:  # same keys on every sample, whatever its source
            values = dict.fromkeys(ALL_ANSWER_KEYS, math.nan) | values
        rows = "\n".join(f"| {k} | {v:.2f} |" for k, v in values.items() if not math.isnan(v))
        explanation = (
            f"**Answer without citations ({src}, {metadata.get('question_type', '?')}):**\n\n"
            f"{literal(text) if text.strip() else '*(empty)*'}\n\n{literal(note)}\n\n"
            f"| metric | value |\n|---|---|\n{rows}"
        )
        if all(math.isnan(v) for v in values.values()):
            # nan must never look like a silent zero: say what was missing.
            reason = (
                f"no gold answer to compare with (source {src!r}, "
                f"question type {metadata.get('question_type')!r})"
            )
            explanation = f"**Not scored:** {literal(reason)}\n\n{explanation}"
            return Score(
                value=values, answer=text, explanation=explanation, metadata={"reason": reason}
            )
        # The keys of other question types (or sources) do not apply to this sample.
        other = [k for k, v in values.items() if math.isnan(v)]
        why: str | None = (
            f"{', '.join(other)}: not this sample's question type "
            f"({src}, {metadata.get('question_type', '?')})"
            if other
            else None
        )
        return Score(
            value=values,
            answer=text,
            explanation=explanation,
            metadata={"reason": why} if why else None,
        )

    return score
