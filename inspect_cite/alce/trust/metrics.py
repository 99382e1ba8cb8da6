"""TRUST-SCORE (Song et al., ICLR 2025) as trust-eval 0.1.5 computes it, over any NLI backend.

The definition behind ``scorers/trust_score`` and ``alce-eval --trust``. Scoring has two
steps, so that an Inspect run can judge each sample while it runs and aggregate once:

- :func:`trust_item` judges one item (``question``, ``answers``, ``docs`` with
  ``answers_found``, ``output``): refusal, answerability, the per-answer or per-claim hits,
  citation recall and precision. Its :class:`TrustItem` is plain JSON (kept in
  ``Score.metadata``);
- :func:`trust_scores` aggregates items into every key ``Evaluator.compute_metrics()``
  returns for the dataset, under trust-eval's names (:func:`trust_keys`).

What trust-eval reads, kept here (``docs/alce.md``, "Grounded refusals"):

- **Which text.** The answered set, the refusal and answerable rates and citations test the
  *raw* output (citations included); lengths and correctness read the citation-free output
  (ALCE's ``remove_citations``), and the calibrated correctness (and ELI5/ExpertQA's
  ``answered_claims_nli``) test refusal on that citation-free output again: an output can be
  answered for one metric and refused for another. :class:`TrustItem` keeps both decisions.
- **Answerable** means some shown document's ``answers_found`` marks some gold answer.
- **Calibrated correctness** counts only the gold answers some shown document supports, and
  gives 0 to an answered unanswerable question (and, over answerable questions, to a refusal).
- **Citations** are ALCE's (:func:`inspect_cite.alce.autoais.citation_scores`, eval.py's
  parsing, at most 3 citations per statement) with one change to precision: a citation the
  others make redundant still earns credit when it supports a gold answer that one of the
  others also supports (the ``answers_found`` overlap).
- ``trust_score`` is the mean of the calibrated correctness F1, ``macro_f1`` and
  ``answered_citation_f1``.

``corrected=True`` fixes trust-eval's defects (the doc section lists them): an undefined rate
is nan with its reason (:attr:`TrustScores.reasons`) instead of 0, one refusal decision (the
raw output's) serves every metric, ``answered_ratio`` is not rounded, and the citations of a
statement citing out of range count in the precision denominator with no credit.
"""

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, get_args

import numpy as np

from inspect_cite.alce.autoais import CitationResult, citation_scores
from inspect_cite.alce.trust.refusal import REFUSAL_FLAG, REFUSAL_THRESHOLD, check_refusal
from inspect_cite.benchmarks.alce import QAMPARI_KEYS
from inspect_cite.benchmarks.trust import TRUST_DATASETS, EvalType, TrustDatasetName
from inspect_cite.citations.alce import remove_citations
from inspect_cite.nli.base import NLIBackend
from inspect_cite.text.squad import normalize_answer

TrustDataset = TrustDatasetName

EVAL_TYPES: dict[str, EvalType] = {name: row.eval_type for name, row in TRUST_DATASETS.items()}
"""trust-eval's correctness per dataset: string EM, QAMPARI's top-5 F1, claim NLI."""

AT_MOST_CITATIONS = 3
"""trust-eval's ``at_most_citations``: the citations of a statement that are judged."""

_BASIC = (
    "num_samples",
    "answered_ratio",
    "answered_num",
    "answerable_num",
    "overlapped_num",
    "regular_length",
    "answered_length",
)
_MACRO = (
    "reject_rec",
    "reject_prec",
    "reject_f1",
    "answerable_rec",
    "answerable_prec",
    "answerable_f1",
    "macro_avg",
    "macro_f1",
)
_CORRECTNESS: dict[EvalType, tuple[str, ...]] = {
    "em": (
        "regular_str_em",
        "answered_str_em",
        "calib_answered_str_em",
        "calib_answerable_str_em",
        "calib_str_em_f1",
        "parametric_str_em",
    ),
    "em5": (
        "qampari_presence",
        "qampari_absence",
        *(
            f"{p}_{k}"
            for p in ("regular", "answered", "calib_answered", "calib_answerable")
            for k in QAMPARI_KEYS
        ),
        "calib_qampari_em_f1",
        "parametric_qampari_rec_top5",
    ),
    "cm": (
        "regular_claims_nli",
        "answered_claims_nli",
        "calib_answered_claims_nli",
        "calib_answerable_claims_nli",
        "parametric_answered_claims_nli",
        "calib_claims_nli_f1",
    ),
}
_CITATIONS = tuple(
    f"{p}_citation_{k}" for p in ("regular", "answered") for k in ("rec", "prec", "f1")
)
_CALIB_F1: dict[EvalType, str] = {
    "em": "calib_str_em_f1",
    "em5": "calib_qampari_em_f1",
    "cm": "calib_claims_nli_f1",
}


def check_dataset(dataset: str, flag: str = "--dataset") -> TrustDataset:
    """``dataset`` if trust-eval scores it, else a ValueError naming ``flag`` and the choices."""
    if dataset not in get_args(TrustDataset):
        raise ValueError(
            f"{flag} must be one of {', '.join(get_args(TrustDataset))} for TRUST-SCORE, "
            f"got {dataset!r}"
        )
    return dataset  # type: ignore[return-value]


def trust_keys(dataset: str) -> list[str]:
    """Every key trust-eval 0.1.5's ``compute_metrics()`` returns for ``dataset``, in its order."""
    eval_type = EVAL_TYPES[check_dataset(dataset)]
    return [*_BASIC, *_MACRO, *_CORRECTNESS[eval_type], *_CITATIONS, "trust_score"]


@dataclass(frozen=True)
class TrustSettings:
    """How outputs are read: the refusal sentence, its threshold and the corrected mode.

    Attributes:
        rejection_flag: trust-eval's ``rejection_flag``.
        rejection_threshold: trust-eval's ``rejection_threshold`` (a refusal's partial ratio
            must exceed it).
        at_most_citations: Citations judged per statement (trust-eval: 3).
        corrected: Fix trust-eval's defects (module doc) instead of reproducing them.

    """

    rejection_flag: str = REFUSAL_FLAG
    rejection_threshold: float = REFUSAL_THRESHOLD
    at_most_citations: int = AT_MOST_CITATIONS
    corrected: bool = False


class TrustItemError(ValueError):
    """An item lacks a field TRUST-SCORE reads, or holds it in the wrong shape."""


def answers_found_problem(
    doc: Mapping[str, Any], j: int, answers: int, *, holds: str = "list", of: str = "gold answers"
) -> str | None:
    """What is wrong with document ``j``'s ``answers_found`` (one 0 or 1 per gold answer), or None.

    Args:
        doc: The document.
        j: Its index, for the message.
        answers: How many gold answers the item has.
        holds: The message's verb (``list``; the data file's check says ``hold``).
        of: What it marks, for the message (``gold answers``; the data file's check: ``answers``).

    """
    found = doc.get("answers_found")
    if (
        isinstance(found, list)
        and len(found) == answers
        and all(isinstance(f, int) and f in (0, 1) for f in found)
    ):
        return None
    return f'"docs"[{j}]["answers_found"] must {holds} 0 or 1 for each of the {answers} {of}'


def trust_item_problem(item: Mapping[str, Any], eval_type: EvalType) -> str | None:
    """What is wrong with an item for TRUST-SCORE (naming the field), or None.

    Every item needs ``output`` (string), ``question`` (string), ``answers`` (a non-empty
    list of non-empty lists of strings: aliases, or ``[claim]``), and ``docs``: at least one,
    each with string ``title`` and ``text`` (or ``sent``) and ``answers_found``, one 0 or 1
    per gold answer.
    """
    if not isinstance(item.get("output"), str):
        return 'needs a string "output"'
    if not isinstance(item.get("question"), str):
        return 'needs a string "question"'
    answers = item.get("answers")
    if not isinstance(answers, list) or not answers:
        return '"answers" must be a non-empty list of answer lists'
    for i, group in enumerate(answers):
        if not isinstance(group, list) or not group or not all(isinstance(a, str) for a in group):
            kind = "[claim]" if eval_type == "cm" else "aliases"
            return f'"answers"[{i}] must be a non-empty list of strings ({kind})'
    docs = item.get("docs")
    if not isinstance(docs, list) or not docs:
        return (
            '"docs" must list the documents shown (at least one): answerability is read from '
            "their answers_found"
        )
    for j, doc in enumerate(docs):
        if not isinstance(doc, Mapping):
            return f'"docs"[{j}] must be an object'
        if not isinstance(doc.get("title"), str):
            return f'"docs"[{j}] needs a string "title"'
        text_key = "sent" if "sent" in doc else "text"
        if not isinstance(doc.get(text_key), str):
            return f'"docs"[{j}] needs a string "{text_key}"'
        problem = answers_found_problem(doc, j, len(answers))
        if problem is not None:
            return problem
    return None


@dataclass
class TrustItem:
    """One item judged: everything :func:`trust_scores` needs from it (plain JSON).

    Attributes:
        refused: The raw output is a refusal (answered set, refusal rates, citations).
        refusal_ratio: The raw output's partial ratio with the flag.
        refused_stripped: The citation-free output is a refusal (calibrated correctness).
        refusal_ratio_stripped: Its partial ratio.
        supported: Per gold answer, 1 when some shown document's ``answers_found`` marks it.
        length: Words of the citation-free output.
        hits: ASQA: per gold answer, an alias is in the output; ELI5/ExpertQA: per claim, the
            output entails it; QAMPARI: per gold answer, an alias is one of ``preds``.
        preds: QAMPARI: the normalized comma-separated answers of the citation-free output.
        answers: QAMPARI: the normalized aliases of each gold answer.
        incorrect_in_docs: QAMPARI: share of wrong predictions found in a shown document
            (None when no prediction is wrong).
        citation_rec: Citation recall (None when the output has no statement).
        citation_prec: Citation precision (None likewise).
        citations: Per statement: text, citations, recall verdict, precision credit.

    """

    refused: bool
    refusal_ratio: int
    refused_stripped: bool
    refusal_ratio_stripped: int
    supported: list[int]
    length: int
    hits: list[bool]
    preds: list[str] = field(default_factory=list)
    answers: list[list[str]] = field(default_factory=list)
    incorrect_in_docs: float | None = None
    citation_rec: float | None = None
    citation_prec: float | None = None
    citations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def answerable(self) -> bool:
        """Some shown document supports some gold answer."""
        return any(self.supported)

    def to_json(self) -> dict[str, Any]:
        """The item as plain JSON (``Score.metadata``)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "TrustItem":
        """Inverse of :meth:`to_json`."""
        return cls(**dict(data))


def _exact_presence(short_answers: Iterable[str], context: str) -> bool:
    """trust-eval's ``_exact_presence``: some normalized answer is a substring of the context."""
    n_context = normalize_answer(context)
    return any(normalize_answer(a) in n_context for a in short_answers)


def _qampari_preds(output: str, normalize: bool) -> list[str]:
    parts = [x.strip() for x in output.rstrip().rstrip(".").rstrip(",").split(",")]
    if normalize:
        parts = [normalize_answer(x) for x in parts]
    return [p for p in parts if len(p) > 0]


def _incorrect_in_docs(
    output: str, answers: Sequence[Sequence[str]], supported: Sequence[int], docs: Sequence[Any]
) -> float | None:
    """trust-eval's ``_compute_incorrect_frequency`` for one item (presence share, or None)."""
    gold = [a for i, a in enumerate(answers) if supported[i] == 1]
    preds = _qampari_preds(output, normalize=False)
    correct = [any(_exact_presence(g, p) for g in gold) for p in preds]
    in_docs = [any(_exact_presence([p], d["text"]) for d in docs) for p in preds]
    wrong = [seen for ok, seen in zip(correct, in_docs, strict=True) if not ok]
    if not wrong:
        return None
    return sum(wrong) / len(wrong)


def _citation_precision(
    result: CitationResult,
    docs: Sequence[Mapping[str, Any]],
    corrected: bool = False,
    at_most_citations: int = AT_MOST_CITATIONS,
) -> float:
    """trust-eval's citation precision of one output.

    ALCE's, but a citation the others make redundant keeps its credit when it supports a gold
    answer (``answers_found``) that one of the others supports too. trust-eval, as eval.py,
    leaves a statement citing out of range out of the denominator, so adding a citation of a
    document that does not exist can raise precision; ``corrected`` counts that statement's
    kept citations (the first ``at_most_citations``) with no credit, as ``citation_nli``'s
    fixed rules do.
    """
    credit = 0
    for s in result.statements:
        if not s.citations:
            credit += s.credit
            continue
        for c in s.citations:
            if c.others and not c.alone:
                rest = [r for r in s.used if r is not None]
                rest.remove(c.ref)
                coverage = np.bitwise_or.reduce([docs[r]["answers_found"] for r in rest])
                own = docs[c.ref]["answers_found"]
                contained = any(coverage[i] == 1 and own[i] == 1 for i in range(len(coverage)))
                credit += 1 if contained else 0
            else:
                credit += c.credit
    total = result.total_citations
    if corrected:
        total += sum(
            len(s.refs[:at_most_citations])
            for s in result.statements
            if s.status == "invalid" and not s.used
        )
    return credit / total if total > 0 else 0.0


def _statement_record(s: Any) -> dict[str, Any]:
    return {
        "text": s.text,
        "refs": [None if r is None else r + 1 for r in s.refs],
        "status": s.status,
        "recall": s.recall,
    }


async def trust_item(
    item: Mapping[str, Any],
    dataset: str,
    nli: NLIBackend,
    settings: TrustSettings | None = None,
    allowed: Collection[int] | None = None,
) -> TrustItem:
    """Judge one item as trust-eval does (NLI calls batched through ``nli``).

    Args:
        item: ``question``, ``answers``, ``docs`` (the documents shown, with
            ``answers_found``) and the raw ``output``.
        dataset: ``asqa``, ``qampari``, ``eli5`` or ``expertqa``.
        nli: The entailment backend (TRUE in trust-eval).
        settings: Refusal flag and threshold, citations judged per statement.
        allowed: The documents (0-based) the model saw; a citation of another is invalid
            (:meth:`inspect_cite.evidence.record.Evidence.allowed`; None: every document).

    Raises:
        TrustItemError: For an item :func:`trust_item_problem` refuses.
        NLIError: When the backend could not decide a pair.

    """
    settings = settings or TrustSettings()
    eval_type = EVAL_TYPES[check_dataset(dataset)]
    problem = trust_item_problem(item, eval_type)
    if problem is not None:
        raise TrustItemError(problem)
    output: str = item["output"]
    stripped = remove_citations(output)
    docs: list[Mapping[str, Any]] = item["docs"]
    answers: list[list[str]] = item["answers"]
    raw = check_refusal(output, settings.rejection_flag, settings.rejection_threshold)
    clean = check_refusal(stripped, settings.rejection_flag, settings.rejection_threshold)
    supported = [int(x) for x in np.bitwise_or.reduce([d["answers_found"] for d in docs])]
    judged = TrustItem(
        refused=raw.refused,
        refusal_ratio=raw.ratio,
        refused_stripped=clean.refused,
        refusal_ratio_stripped=clean.ratio,
        supported=supported,
        length=len(stripped.split()),
        hits=[],
    )
    if eval_type == "em":
        judged.hits = [_exact_presence(group, stripped) for group in answers]
    elif eval_type == "em5":
        judged.preds = _qampari_preds(stripped, normalize=True)
        judged.answers = [[normalize_answer(a) for a in group] for group in answers]
        judged.hits = [any(a in judged.preds for a in group) for group in judged.answers]
        judged.incorrect_in_docs = _incorrect_in_docs(stripped, answers, supported, docs)
    else:
        claims = [group[0] for group in answers]
        results = await nli.entail([(stripped, claim) for claim in claims])
        judged.hits = [r.entailed for r in results]
    cited = await citation_scores(
        output,
        docs,
        item["question"],
        nli,
        qampari=eval_type == "em5",
        at_most_citations=settings.at_most_citations,
        allowed=allowed,
    )
    if cited.skipped is None:
        judged.citation_rec = cited.recall
        judged.citation_prec = _citation_precision(
            cited, docs, corrected=settings.corrected, at_most_citations=settings.at_most_citations
        )
        judged.citations = [_statement_record(s) for s in cited.statements]
    return judged


@dataclass
class TrustScores:
    """Every trust-eval key for a dataset, and why a value is nan (corrected mode).

    Attributes:
        values: Key -> value, in trust-eval's order and scale (x100 but counts and lengths).
        reasons: Key -> why the value is nan.

    """

    values: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)


class _Agg:
    """Aggregation with trust-eval's conventions, or the corrected ones."""

    def __init__(self, corrected: bool) -> None:
        self.corrected = corrected
        self.reasons: dict[str, str] = {}

    def mean(self, key: str, values: Sequence[float], empty: str, scale: float = 100.0) -> float:
        """``scale`` x mean; an empty set is trust-eval's 0, or nan with ``empty`` as reason."""
        if not values:
            if self.corrected:
                self.reasons[key] = empty
                return math.nan
            return 0.0
        return scale * float(np.mean(values))

    def ratio(self, key: str, num: int, den: int, empty: str) -> float:
        if den == 0:
            if self.corrected:
                self.reasons[key] = empty
                return math.nan
            return 0.0
        return 100 * num / den

    def f1(self, key: str, p: float, r: float) -> float:
        """2PR/(P+R); 0 when P+R is not positive (nan P or R: trust-eval's 0, else nan)."""
        if math.isnan(p) or math.isnan(r):
            if self.corrected:
                self.reasons[key] = "its precision or recall is undefined"
                return math.nan
            return 0.0
        return 2 * p * r / (p + r) if (p + r) > 0 else 0.0

    def hmean(self, key: str, a: float, b: float) -> float:
        """Scipy's ``hmean([a, b])``: 0 when either is 0, nan when either is nan."""
        if math.isnan(a) or math.isnan(b):
            if self.corrected:
                self.reasons[key] = "one of its two calibrated rates is undefined"
            return math.nan
        if a == 0 or b == 0:
            return 0.0
        return float(1.0 / np.mean(1.0 / np.array([a, b])))

    def diff(self, key: str, a: float, b: float) -> float:
        value = a - b
        if math.isnan(value) and self.corrected:
            self.reasons[key] = "it is a difference of undefined rates"
        return value

    def mean_of(self, key: str, values: Sequence[float]) -> float:
        value = float(np.mean(values))
        if math.isnan(value) and self.corrected:
            self.reasons[key] = "one of the values it averages is undefined"
        return value


_NONE_ANSWERED = "no output was answered (every one is a refusal)"
_NONE_ANSWERABLE = "no question is answerable from its documents"


def _em_scores(
    agg: _Agg, items: Sequence[TrustItem], answered: Sequence[TrustItem], calib_refused: Any
) -> dict[str, float]:
    def regular(it: TrustItem) -> float:
        return float(np.mean(it.hits))

    def calib(it: TrustItem, parametric: bool) -> float:
        if it.answerable and not calib_refused(it):
            kept = [h for h, s in zip(it.hits, it.supported, strict=True) if s == 1]
            return sum(kept) / len(it.supported) if parametric else float(np.mean(kept))
        return 0.0

    answerable = [it for it in items if it.answerable]
    out = {
        "regular_str_em": agg.mean("regular_str_em", [regular(it) for it in items], ""),
        "answered_str_em": agg.mean(
            "answered_str_em", [regular(it) for it in answered], _NONE_ANSWERED
        ),
        "calib_answered_str_em": agg.mean(
            "calib_answered_str_em", [calib(it, False) for it in answered], _NONE_ANSWERED
        ),
        "calib_answerable_str_em": agg.mean(
            "calib_answerable_str_em", [calib(it, False) for it in answerable], _NONE_ANSWERABLE
        ),
    }
    out["calib_str_em_f1"] = agg.hmean(
        "calib_str_em_f1", out["calib_answered_str_em"], out["calib_answerable_str_em"]
    )
    parametric = agg.mean("parametric_str_em", [calib(it, True) for it in answered], _NONE_ANSWERED)
    out["parametric_str_em"] = agg.diff("parametric_str_em", out["answered_str_em"], parametric)
    return out


def _qampari_item(it: TrustItem, mode: str, calib_refused: Any) -> dict[str, float]:
    """trust-eval's ``compute_qampari_f1`` for one item (fractions; ``num_preds`` a count)."""
    preds = it.preds
    if mode == "regular":
        answers = it.answers
    elif it.answerable and not calib_refused(it):
        answers = [a for a, s in zip(it.answers, it.supported, strict=True) if s == 1]
    else:
        answers = [[""]]
    flat = [a for group in answers for a in group]
    found = sum(any(a in preds for a in group) for group in answers)
    prec = sum(p in flat for p in preds) / len(preds) if preds else 0.0
    denominator = len(it.supported) if mode == "parametric" else len(answers)
    rec = found / denominator
    rec_top5 = min(5, found) / min(5, denominator)
    f1 = 0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec)
    f1_top5 = 0.0 if prec + rec_top5 == 0 else 2 * prec * rec_top5 / (prec + rec_top5)
    return {
        "num_preds": float(len(preds)),
        "qampari_prec": prec,
        "qampari_rec": rec,
        "qampari_rec_top5": rec_top5,
        "qampari_f1": f1,
        "qampari_f1_top5": f1_top5,
    }


def _qampari_set(
    agg: _Agg,
    prefix: str,
    items: Sequence[TrustItem],
    mode: str,
    calib_refused: Any,
    empty: str,
) -> dict[str, float]:
    per_item = [_qampari_item(it, mode, calib_refused) for it in items]
    return {
        f"{prefix}{k}": agg.mean(
            f"{prefix}{k}", [p[k] for p in per_item], empty, 1.0 if k == "num_preds" else 100.0
        )
        for k in QAMPARI_KEYS
    }


def _em5_scores(
    agg: _Agg, items: Sequence[TrustItem], answered: Sequence[TrustItem], calib_refused: Any
) -> dict[str, float]:
    answerable = [it for it in items if it.answerable]
    out: dict[str, float] = {}
    shares = [it.incorrect_in_docs for it in answered if it.incorrect_in_docs is not None]
    for key, values in (
        ("qampari_presence", shares),
        ("qampari_absence", [1 - s for s in shares]),
    ):
        if not answered:
            out[key] = agg.mean(key, [], _NONE_ANSWERED)
        elif not values:
            # trust-eval's own np.mean([]) (nan, with numpy's warning).
            out[key] = math.nan
            if agg.corrected:
                agg.reasons[key] = "no answered output has a wrong prediction"
        else:
            out[key] = 100 * float(np.mean(values))
    out.update(_qampari_set(agg, "regular_", items, "regular", calib_refused, ""))
    out.update(_qampari_set(agg, "answered_", answered, "regular", calib_refused, _NONE_ANSWERED))
    out.update(
        _qampari_set(agg, "calib_answered_", answered, "calib", calib_refused, _NONE_ANSWERED)
    )
    out.update(
        _qampari_set(agg, "calib_answerable_", answerable, "calib", calib_refused, _NONE_ANSWERABLE)
    )
    out["calib_qampari_em_f1"] = agg.hmean(
        "calib_qampari_em_f1",
        out["calib_answered_qampari_f1_top5"],
        out["calib_answerable_qampari_f1_top5"],
    )
    parametric = _qampari_set(
        agg, "parametric_", answered, "parametric", calib_refused, _NONE_ANSWERED
    )
    out["parametric_qampari_rec_top5"] = agg.diff(
        "parametric_qampari_rec_top5",
        out["answered_qampari_rec_top5"],
        parametric["parametric_qampari_rec_top5"],
    )
    return out


def _cm_scores(agg: _Agg, items: Sequence[TrustItem], calib_refused: Any) -> dict[str, float]:
    regular, answered, calib_answered, calib_answerable, parametric = [], [], [], [], []
    for it in items:
        entail = sum(it.hits) / len(it.hits)
        calib_entail = sum(h for h, s in zip(it.hits, it.supported, strict=True) if s == 1)
        refused = calib_refused(it)
        if not refused:
            answered.append(entail)
            if it.answerable:
                calib_answered.append(calib_entail / sum(it.supported))
                parametric.append(calib_entail / len(it.supported))
            else:
                calib_answered.append(0.0)
                parametric.append(0.0)
        if it.answerable:
            calib_answerable.append(0.0 if refused else calib_entail / sum(it.supported))
        regular.append(entail)
    out = {
        "regular_claims_nli": agg.mean("regular_claims_nli", regular, ""),
        "answered_claims_nli": agg.mean("answered_claims_nli", answered, _NONE_ANSWERED),
        "calib_answered_claims_nli": agg.mean(
            "calib_answered_claims_nli", calib_answered, _NONE_ANSWERED
        ),
        "calib_answerable_claims_nli": agg.mean(
            "calib_answerable_claims_nli", calib_answerable, _NONE_ANSWERABLE
        ),
    }
    param = agg.mean("parametric_answered_claims_nli", parametric, _NONE_ANSWERED)
    out["parametric_answered_claims_nli"] = agg.diff(
        "parametric_answered_claims_nli", out["answered_claims_nli"], param
    )
    out["calib_claims_nli_f1"] = agg.hmean(
        "calib_claims_nli_f1", out["calib_answered_claims_nli"], out["calib_answerable_claims_nli"]
    )
    return out


def _citation_scores(agg: _Agg, items: Sequence[TrustItem]) -> dict[str, float]:
    out: dict[str, float] = {}
    judged = [it for it in items if it.citation_rec is not None]
    for prefix, subset, empty in (
        ("regular_", judged, "no output has a statement to judge"),
        ("answered_", [it for it in judged if not it.refused], _NONE_ANSWERED),
    ):
        rec = [float(it.citation_rec) for it in subset]  # type: ignore[arg-type]
        prec = [float(it.citation_prec) for it in subset]  # type: ignore[arg-type]
        if prefix == "regular_" and not subset:
            # trust-eval's np.mean([]): nan recall and precision (and F1 0).
            r = p = math.nan
            if agg.corrected:
                agg.reasons[f"{prefix}citation_rec"] = empty
                agg.reasons[f"{prefix}citation_prec"] = empty
        else:
            r = agg.mean(f"{prefix}citation_rec", rec, empty)
            p = agg.mean(f"{prefix}citation_prec", prec, empty)
        out[f"{prefix}citation_rec"] = r
        out[f"{prefix}citation_prec"] = p
        out[f"{prefix}citation_f1"] = agg.f1(f"{prefix}citation_f1", p, r)
    return out


def trust_scores(items: Sequence[TrustItem], dataset: str, corrected: bool = False) -> TrustScores:
    """Every key trust-eval 0.1.5's ``Evaluator.compute_metrics()`` returns, from judged items.

    Args:
        items: The judged items (:func:`trust_item`), at least one.
        dataset: ``asqa``, ``qampari``, ``eli5`` or ``expertqa``.
        corrected: Fix trust-eval's defects (module doc) instead of reproducing them.

    Raises:
        ValueError: For no items or an unknown dataset.

    """
    eval_type = EVAL_TYPES[check_dataset(dataset)]
    if not items:
        raise ValueError("TRUST-SCORE needs at least one item")
    agg = _Agg(corrected)

    def calib_refused(it: TrustItem) -> bool:
        # trust-eval tests the citation-free output in calibrated correctness.
        return it.refused if corrected else it.refused_stripped

    answered = [it for it in items if not it.refused]
    answerable = [it for it in items if it.answerable]
    n = len(items)
    values: dict[str, float] = {
        "num_samples": float(n),
        "answered_ratio": 100 * len(answered) / n
        if corrected
        else round(100 * len(answered) / n, 2),
        "answered_num": float(len(answered)),
        "answerable_num": float(len(answerable)),
        "overlapped_num": float(sum(it.answerable for it in answered)),
        "regular_length": agg.mean("regular_length", [it.length for it in items], "", 1.0),
        "answered_length": agg.mean(
            "answered_length", [it.length for it in answered], _NONE_ANSWERED, 1.0
        ),
    }
    unanswerable = n - len(answerable)
    refusals = n - len(answered)
    refused_right = sum(it.refused and not it.answerable for it in items)
    answered_right = sum(not it.refused and it.answerable for it in items)
    values["reject_rec"] = agg.ratio(
        "reject_rec", refused_right, unanswerable, "every question is answerable"
    )
    values["reject_prec"] = agg.ratio("reject_prec", refused_right, refusals, "no output refused")
    values["reject_f1"] = agg.f1("reject_f1", values["reject_prec"], values["reject_rec"])
    values["answerable_rec"] = agg.ratio(
        "answerable_rec", answered_right, len(answerable), _NONE_ANSWERABLE
    )
    values["answerable_prec"] = agg.ratio(
        "answerable_prec", answered_right, len(answered), _NONE_ANSWERED
    )
    values["answerable_f1"] = agg.f1(
        "answerable_f1", values["answerable_prec"], values["answerable_rec"]
    )
    values["macro_avg"] = agg.mean_of("macro_avg", [values["reject_rec"], values["answerable_rec"]])
    values["macro_f1"] = agg.mean_of("macro_f1", [values["reject_f1"], values["answerable_f1"]])
    if eval_type == "em":
        values.update(_em_scores(agg, items, answered, calib_refused))
    elif eval_type == "em5":
        values.update(_em5_scores(agg, items, answered, calib_refused))
    else:
        values.update(_cm_scores(agg, items, calib_refused))
    values.update(_citation_scores(agg, items))
    values["trust_score"] = agg.mean_of(
        "trust_score",
        [values[_CALIB_F1[eval_type]], values["macro_f1"], values["answered_citation_f1"]],
    )
    reasons = {k: v for k, v in agg.reasons.items() if k in values and math.isnan(values[k])}
    return TrustScores(values={k: values[k] for k in trust_keys(dataset)}, reasons=reasons)
