"""``inspect-cite calibrate``: how far each citation judge agrees with human labels.

For every judge (any NLI spec the tasks take, through the same backends, batching queue, disk cache
and preflight as the scorers) and every dataset of :mod:`inspect_cite.app.human_labels`, each
labelled (evidence, claim) pair is judged once and compared with its human label. Per subset and for
``all``: the pairs, the confusion counts, the abstentions (a pair the judge failed to decide, or
answered with nan: counted apart, never as a verdict), accuracy, balanced accuracy, Cohen's kappa,
precision / recall / F1 of "supported", specificity, each with a bootstrap interval
(:mod:`inspect_cite.statistics.calibration`), and pairs per second. For ``alce-human`` the rows of
each system also compare ALCE's citation recall and precision computed from human labels, from
ALCE's own automatic scores and from this judge, as ALCE's ``human_eval/analyze.py`` does.

Writes ``calibration.json`` (rates x100, kappa in [-1, 1], counts as integers, an undefined
value as null with its reason under ``undefined``, notes on what a dataset cannot measure),
``calibration.md`` (with each judge's most confident mistakes), ``calibration.png`` and
``judgements.jsonl`` (a line per judged pair: :meth:`Judgement.as_json`), and prints a table.
``--data NAME:LABEL`` names a dataset's rows (:func:`data_names`); ``--limit`` keeps whole
records (:mod:`inspect_cite.app.limits`). For ``llm-aggrefact`` the ``all`` row also holds the
mean over its datasets of their balanced accuracy, as the LLM-AggreFact leaderboard computes it.
"""

import argparse
import asyncio
import json
import math
import re
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from inspect_cite.app.human_labels import DATASETS, AlceSentence, HumanData, load_human_data
from inspect_cite.app.limits import LIMIT_BY, limit_records
from inspect_cite.app.stress import Stress, add_judged, judged_pairs, perturb_data, write_stress
from inspect_cite.app.stress import terminal as stress_terminal
from inspect_cite.checks.errors import PreflightError, Refusals
from inspect_cite.downloads.files import unwritable_dir_problem, write_atomic
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.nli import NLI_SPECS, NLIError, NLIResult, Pair, get_nli
from inspect_cite.nli.cache import NLI_CACHE_ENV, NLICacheError, cache_path_problem
from inspect_cite.nli.cached import CachedNLI
from inspect_cite.nli.checked import check_nli
from inspect_cite.options.command_numbers import at_least, number_type
from inspect_cite.statistics.calibration import (
    ALL_SUBSET,
    BOOTSTRAP_DRAWS,
    CONFIDENCE,
    METRICS,
    Confusion,
    agreement,
    rates,
)

JSON_FILE = "calibration.json"
JUDGEMENTS_FILE = "judgements.jsonl"
MARKDOWN_FILE = "calibration.md"
CHART_FILE = "calibration.png"
# A judge's label in the chart wraps at this many characters (whole, never cut).
_CHART_LABEL_CHARS = 60
NLI_FLAG = "--nli"
NLI_CACHE_FLAG = "--nli-cache"
OUT_FLAG = "--out"
EVIDENCE_CUT = 1000
"""Characters of a pair's evidence written beside its judgement (``evidence_chars``: all)."""
MISTAKES_SHOWN = 5
"""The most confident mistakes ``calibration.md`` lists per judge."""

_CHUNK = 64
_CONCURRENT_CHUNKS = 64
# Why a rate has no value, by rate.
_UNDEFINED = {
    "accuracy": "no pair was decided",
    "balanced_accuracy": "it needs human-supported and human-unsupported pairs",
    "kappa": "chance agreement is 1: the judge and the people each gave one answer",
    "precision": "the judge called no pair supported",
    "recall": "no pair is human-supported",
    "f1": "no pair is supported by the people or the judge",
    "specificity": "no pair is human-unsupported",
}
_TABLE_METRICS = ("accuracy", "balanced_accuracy", "kappa", "precision", "recall", "f1")
_SHORT = {
    "accuracy": "acc",
    "balanced_accuracy": "bal acc",
    "kappa": "kappa",
    "precision": "P",
    "recall": "R",
    "f1": "F1",
}


@dataclass
class Judged:
    """One judge's answers on one dataset's pairs.

    Attributes:
        verdicts: Per pair: True / False, or None for an abstention.
        seconds: Wall time of the judging.
        nli_calls: Pairs the backend sent to its model (0 when every answer was cached).
        abstentions: Why pairs were not decided, by reason (first line of the error).
        probabilities: Per pair: the judge's probability of "supported", where it gives one.
        reasons: Per pair: why the judge abstained (None for a decided pair).

    """

    verdicts: list[bool | None]
    seconds: float
    nli_calls: int
    abstentions: Counter[str] = field(default_factory=Counter)
    probabilities: list[float | None] = field(default_factory=list)
    reasons: list[str | None] = field(default_factory=list)

    @property
    def pairs_per_s(self) -> float:
        """Pairs judged per second (nan when no time was measurable)."""
        return len(self.verdicts) / self.seconds if self.seconds > 0 else math.nan


async def _decide(backend: CachedNLI, pairs: list[Pair]) -> list[NLIResult | NLIError]:
    try:
        return list(await backend.entail(pairs))
    except NLIError:
        if len(pairs) == 1:
            raise
    # One pair failed the chunk: each pair again, alone (those decided answer from the cache).
    out: list[NLIResult | NLIError] = []
    for result in await asyncio.gather(
        *(backend.entail([p]) for p in pairs), return_exceptions=True
    ):
        if isinstance(result, NLIError):
            out.append(result)
        elif isinstance(result, BaseException):
            raise result
        else:
            out.append(result[0])
    return out


async def judge_pairs(backend: CachedNLI, pairs: Sequence[Pair]) -> list[NLIResult | NLIError]:
    """Every pair's decision, or the error that kept the judge from one.

    Pairs go in chunks, concurrently, so the backend's queue batches them; a chunk that fails
    is decided pair by pair, so one undecidable pair costs only itself.
    """
    semaphore = asyncio.Semaphore(_CONCURRENT_CHUNKS)

    async def chunk(start: int) -> list[NLIResult | NLIError]:
        async with semaphore:
            part = list(pairs[start : start + _CHUNK])
            try:
                return await _decide(backend, part)
            except NLIError as e:
                return [e]

    parts = await asyncio.gather(*(chunk(i) for i in range(0, len(pairs), _CHUNK)))
    return [r for part in parts for r in part]


def run_judge(backend: CachedNLI, data: HumanData) -> Judged:
    """Judge every pair of ``data`` with ``backend``."""
    pairs = [(p.evidence, p.claim) for p in data.pairs]
    calls = backend.model_pairs
    start = time.perf_counter()
    results = asyncio.run(judge_pairs(backend, pairs))
    seconds = time.perf_counter() - start
    judged = Judged([], seconds, backend.model_pairs - calls)
    for result in results:
        if isinstance(result, NLIError):
            reason = str(result).strip().splitlines()[0][:200] if str(result).strip() else "failed"
            judged.verdicts.append(None)
            judged.probabilities.append(None)
            judged.reasons.append(reason)
            judged.abstentions[reason] += 1
        else:
            judged.verdicts.append(bool(result.entailed))
            judged.probabilities.append(None if result.prob is None else float(result.prob))
            judged.reasons.append(None)
    return judged


def _x100(value: float, scale: float = 100.0) -> float | None:
    return round(scale * value, 4) if math.isfinite(value) else None


def _scale(key: str) -> float:
    # Kappa is an agreement beyond chance in [-1, 1], reported as is; the rest are rates x100.
    return 1.0 if key.endswith("kappa") else 100.0


def subset_row(
    data: HumanData, judged: Judged, subset: str, members: Sequence[int]
) -> dict[str, Any]:
    """One row of ``calibration.json``: a subset's counts, rates and intervals."""
    labels = [data.pairs[i].label for i in members if judged.verdicts[i] is not None]
    verdicts = [judged.verdicts[i] for i in members if judged.verdicts[i] is not None]
    confusion = Confusion.count(labels, [bool(v) for v in verdicts])
    result = agreement(confusion)
    row: dict[str, Any] = {
        "data": data.name,
        "subset": subset,
        "n": len(members),
        "tp": confusion.tp,
        "fp": confusion.fp,
        "tn": confusion.tn,
        "fn": confusion.fn,
        "abstain": len(members) - confusion.n,
    }
    undefined = {}
    for key in METRICS:
        row[key] = _x100(result.values[key], _scale(key))
        row[f"{key}_ci"] = [_x100(v, _scale(key)) for v in result.intervals[key]]
        if row[key] is None:
            undefined[key] = _UNDEFINED[key]
    speed = judged.pairs_per_s
    row["pairs_per_s"] = round(speed, 2) if math.isfinite(speed) else None
    row["nli_calls"] = judged.nli_calls
    if undefined:
        row["undefined"] = undefined
    return row


def _item_mean(values: list[list[int]]) -> float:
    # analyze.py: an item without units counts as [0]; a system's rate is the mean over items.
    return float(np.mean([np.mean(v) if v else 0.0 for v in values])) if values else math.nan


def _kappa(human: list[int], other: list[int]) -> float:
    confusion = Confusion.count([h == 1 for h in human], [o == 1 for o in other])
    return float(rates(confusion.as_array())["kappa"])


def alce_system_rows(data: HumanData, judged: Judged) -> dict[str, dict[str, Any]]:
    """ALCE's citation recall and precision per system: human, ALCE's automatic, this judge.

    As ``human_eval/analyze.py``: sentence recall is the sentence's 0/1 score; a citation
    counts (1) when its score is 1 or 2 and its sentence's recall is 1; rates are means over a
    system's items of the item means (an item without units counts 0). The judge's recall of
    a cited sentence is its verdict on the sentence's cited documents (0 uncited, as eval.py);
    its precision of a citation, its verdict on that document alone, gated by its recall
    verdict. A unit whose verdict the judge abstained on is left out of the judge's figures,
    never counted 0: an item all of whose units it abstained on leaves the judge's mean
    (``judge_items`` items count, ``judge_items_abstained`` were left out so).

    Returns:
        Fields to add to the ``<dataset>/<system>/recall`` and ``/citation`` rows.

    """
    by_group: dict[str, list[AlceSentence]] = {}
    for sentence in data.alce_sentences:
        by_group.setdefault(sentence.group, []).append(sentence)
    rows: dict[str, dict[str, Any]] = {}
    for group, sentences in by_group.items():
        items: dict[str, list[list[int]]] = {}
        # Per item, the judge's units it abstained on: recall (2) and citation (5) columns.
        abstained: dict[str, list[int]] = {}
        units: list[list[int]] = [[] for _ in range(6)]
        for s in sentences:
            cells = items.setdefault(s.item, [[] for _ in range(6)])
            missed = abstained.setdefault(s.item, [0] * 6)
            human_cites = [min(c, 1) * s.human_recall for c in s.human_citations]
            auto_cites = [min(c, 1) * s.auto_recall for c in s.auto_citations]
            recall = 0 if s.recall_pair is None else judged.verdicts[s.recall_pair]
            values: list[list[int]] = [[s.human_recall], [s.auto_recall], [], human_cites]
            values += [auto_cites, []]
            if recall is None:
                # Without the recall verdict neither the sentence nor its citations are known.
                missed[2] += 1
                missed[5] += len(s.citation_pairs)
            else:
                values[2] = [int(recall)]
                verdicts = [judged.verdicts[i] for i in s.citation_pairs]
                values[5] = [int(bool(recall and v)) for v in verdicts if v is not None]
                missed[5] += sum(v is None for v in verdicts)
            for k in range(6):
                cells[k] += values[k]
                units[k] += values[k]
        rate: list[float | None] = []
        counted: dict[int, tuple[int, int]] = {}
        for k in range(6):
            kept = [cells[k] for item, cells in items.items() if cells[k] or not abstained[item][k]]
            rate.append(_x100(_item_mean(kept)))
            counted[k] = (len(kept), len(items) - len(kept))
        # Columns k, k + 1, k + 2: the people's, ALCE's judge's and this judge's verdicts.
        for name, k in (("recall", 0), ("citation", 3)):
            rows[f"{group}/{name}"] = {
                "human_rate": rate[k],
                "alce_rate": rate[k + 1],
                "judge_rate": rate[k + 2],
                "alce_kappa": _x100(_kappa(units[k], units[k + 1]), 1.0),
                "judge_items": counted[k + 2][0],
                "judge_items_abstained": counted[k + 2][1],
            }
    return rows


def _subset_mean_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """LLM-AggreFact's headline: the mean over its datasets of each one's balanced accuracy.

    As the leaderboard (and MiniCheck's ``benchmark_evaluation_demo.ipynb``) computes it:
    balanced accuracy per dataset, then their plain mean, each dataset weighing the same.
    """
    values = [r["balanced_accuracy"] for r in rows if r["subset"] != ALL_SUBSET]
    if values and all(v is not None for v in values):
        return {"mean_balanced_accuracy": round(float(np.mean(values)), 4)}
    return {
        "mean_balanced_accuracy": None,
        "mean_balanced_accuracy_undefined": "a dataset's balanced accuracy is undefined",
    }


def dataset_rows(data: HumanData, judged: Judged) -> list[dict[str, Any]]:
    """The ``all`` row, then one row per subset (in order of first appearance)."""
    members: dict[str, list[int]] = {ALL_SUBSET: []}
    for i, pair in enumerate(data.pairs):
        if pair.in_all:
            members[ALL_SUBSET].append(i)
        if pair.subset != ALL_SUBSET:
            members.setdefault(pair.subset, []).append(i)
    rows = [subset_row(data, judged, subset, idx) for subset, idx in members.items()]
    extra = alce_system_rows(data, judged) if data.alce_sentences else {}
    for row in rows:
        row.update(extra.get(row["subset"], {}))
    if data.kind == "llm-aggrefact":
        rows[0].update(_subset_mean_row(rows))
    return rows


@dataclass
class Judgement:
    """One judge's answer on one labelled pair (a line of ``judgements.jsonl``)."""

    judge: str
    data: HumanData
    pair: int
    decision: bool | None
    probability: float | None
    reason: str | None

    def as_json(self) -> dict[str, Any]:
        """The line: the pair's place and label, the judge's answer, what helps read it."""
        pair = self.data.pairs[self.pair]
        return {
            "judge": self.judge,
            "data": self.data.name,
            "subset": pair.subset,
            "index": pair.index,
            "pair": pair.pair,
            "label": pair.label,
            "probability": self.probability,
            "decision": self.decision,
            "reason": self.reason,
            "file": pair.file,
            "where": pair.where,
            "in_all": pair.in_all,
            "claim": pair.claim,
            "evidence": _cut(pair.evidence, EVIDENCE_CUT),
            "evidence_chars": len(pair.evidence),
        }

    @property
    def mistaken(self) -> bool:
        """A decided pair the judge got wrong."""
        return self.decision is not None and self.decision != self.data.pairs[self.pair].label

    @property
    def confidence(self) -> float | None:
        """The probability the judge gave its own (wrong or right) decision, where it gives one."""
        if self.decision is None or self.probability is None:
            return None
        return self.probability if self.decision else 1 - self.probability


def _cut(text: str, limit: int, *, one_line: bool = False) -> str:
    """The first ``limit`` characters of ``text`` (an ellipsis ends a cut text)."""
    if one_line:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass
class Calibration:
    """What one ``calibrate`` run measured."""

    datasets: list[HumanData]
    judges: list[tuple[str, list[dict[str, Any]]]]
    abstentions: dict[tuple[str, str], Counter[str]]
    limit: int | None = None
    limit_by: str | None = None
    seed: int = 0
    judgements: list[Judgement] = field(default_factory=list)
    stress: Stress | None = None

    def notes(self) -> list[str]:
        """What the data cannot measure: each dataset's own notes, then missing label classes."""
        notes = [note for d in self.datasets for note in d.notes]
        for d in self.datasets:
            labels = {p.label for p in d.pairs if p.in_all}
            left_out = ", ".join(f"{n} {why}" for why, n in d.skipped.items())
            for label, what, rate in (
                (False, "not supported", "specificity"),
                (True, "supported", "sensitivity"),
            ):
                if label not in labels and not any(what in n and d.name in n for n in notes):
                    notes.append(
                        f"{d.name}: no human '{what}' pair in all: its {rate} cannot be measured "
                        f"and -S calibration refuses it"
                        + (f" (left out: {left_out})" if left_out else "")
                    )
        return notes

    def as_json(self) -> dict[str, Any]:
        """The content of ``calibration.json``."""
        return {
            "version": 1,
            "confidence": CONFIDENCE,
            "bootstrap_draws": BOOTSTRAP_DRAWS,
            "limit": self.limit,
            "limit_by": self.limit_by,
            "seed": self.seed if self.limit_by else None,
            "data": [
                {
                    "data": d.name,
                    "kind": d.kind,
                    "pairs": len(d.pairs),
                    "sources": d.sources,
                    "skipped": dict(d.skipped),
                    "notes": d.notes,
                }
                for d in self.datasets
            ],
            "notes": self.notes(),
            "judges": [
                {
                    "nli": spec,
                    "datasets": rows,
                    "abstentions": {
                        name: dict(reasons)
                        for (judge, name), reasons in self.abstentions.items()
                        if judge == spec and reasons
                    },
                }
                for spec, rows in self.judges
            ],
        }


def judges(specs: Sequence[str]) -> list[str]:
    """Each distinct judge once, in the order first given: a judge given twice is judged once."""
    return list(dict.fromkeys(spec.strip() for spec in specs))


def preflight(specs: Sequence[str], nli_cache: str | None = None) -> None:
    """Refuse a judge or ``--nli-cache`` that cannot be used, before any data is read.

    Raises:
        PreflightError: Naming ``--nli`` or ``--nli-cache``, what was given, why and the fix.

    """
    refusals = Refusals()
    with refusals.check():
        if nli_cache and (
            problem := cache_path_problem(Path(nli_cache).expanduser(), flag=NLI_CACHE_FLAG)
        ):
            raise NLICacheError(problem)
    for spec in specs:
        with refusals.check():
            kind, _, target = spec.strip().partition(":")
            if kind == "model" and "/" not in target:
                raise PreflightError(
                    f"{NLI_FLAG}={spec}: calibrate binds no model roles; name the model itself "
                    f"({NLI_FLAG}=model:<provider>/<model>)"
                )
            check_nli(spec, flag=NLI_FLAG)
    refusals.raise_any()


def open_judges(specs: Sequence[str], nli_cache: str | None) -> list[CachedNLI]:
    """Each judge's backend (models load on first use) and its disk cache, opened now.

    Raises:
        NLICacheError: The cache cannot be opened, naming how it was given (``--nli-cache``
            or ``INSPECT_CITE_NLI_CACHE``).

    """
    try:
        return [get_nli(spec, nli_cache) for spec in specs]
    except NLICacheError as e:
        raise e.naming(NLI_CACHE_FLAG if nli_cache else NLI_CACHE_ENV) from e


_LABEL = re.compile(r"^[A-Za-z0-9_.-]+$")


def data_names(names: Sequence[str], data_paths: Sequence[str]) -> list[tuple[str, str]]:
    """(dataset, selectable name) per ``--data``: ``NAME``, or ``NAME:LABEL`` to name it.

    A dataset given more than once without a label is named ``NAME:<file stem>`` of each
    ``--data-path``, so that ``-S calibration=FILE#NAME:<stem>`` selects each file's rows.

    Raises:
        PreflightError: An unknown dataset, a label with other than letters, digits, ``_``,
            ``.``, ``-``, or two entries that would have one name.

    """
    entries = []
    refusals = Refusals()
    for name in names:
        kind, _, label = name.partition(":")
        with refusals.check():
            if kind not in DATASETS:
                raise PreflightError(
                    f"--data {name}: unknown dataset; use one of {', '.join(DATASETS)}"
                )
            if ":" in name and not _LABEL.match(label):
                raise PreflightError(
                    f"--data {name}: a label is letters, digits, '_', '.' or '-' (it names the "
                    "rows that -S calibration=FILE#NAME:LABEL selects)"
                )
        entries.append((kind, name))
    refusals.raise_any()
    repeated = {n for n in (e[1] for e in entries) if [e[1] for e in entries].count(n) > 1}
    named = []
    for i, (kind, name) in enumerate(entries):
        if name in repeated and data_paths:
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(data_paths[i]).stem).strip("-")
            name = f"{kind}:{stem or i}"
        named.append((kind, name))
    chosen = [n for _, n in named]
    for name in dict.fromkeys(chosen):
        if chosen.count(name) > 1:
            kind = name.partition(":")[0]
            raise PreflightError(
                f"--data {kind} is given {chosen.count(name)} times and its rows would all be "
                f"named {name}: give each a name (--data {kind}:LABEL) or files of different names"
            )
    return named


def calibrate(
    specs: Sequence[str],
    data_names_given: Sequence[str],
    data_paths: Sequence[str] = (),
    *,
    limit: int | None = None,
    limit_by: str | None = None,
    seed: int = 0,
    nli_cache: str | None = None,
    refusals: Refusals | None = None,
    stress: bool = False,
) -> Calibration:
    """Judge every dataset's labelled pairs with every judge.

    Args:
        specs: NLI specs (``--nli``), each a judge (one given twice is judged once).
        data_names_given: Dataset names (``--data``), each ``NAME`` or ``NAME:LABEL``.
        data_paths: Local files, one per dataset in order (``--data-path``), or none.
        limit: Judge about ``limit`` pairs of each dataset, cut to whole records
            (:func:`inspect_cite.app.limits.limit_records`).
        limit_by: ``subset``: the records drawn at random (``seed``) from every subset in
            proportion to its pairs; None: the first records in file order.
        seed: Seed of the ``subset`` draw and of ``stress``'s perturbations.
        nli_cache: SQLite file caching decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        stress: Also judge perturbed pairs made from every human-supported pair
            (:mod:`inspect_cite.app.stress`), with the same backend and cache.
        refusals: Problems found before (the output folder), reported with these.

    Raises:
        PreflightError: An unusable judge or cache, a dataset that cannot be had, is
            malformed or holds no labelled pairs, or two datasets of one name: every one of
            them in one message, before any pair is judged.

    """
    refusals = refusals if refusals is not None else Refusals()
    paths_fit = not data_paths or len(data_paths) == len(data_names_given)
    with refusals.check():
        if not paths_fit:
            raise PreflightError(
                f"--data-path was given {len(data_paths)} times for {len(data_names_given)} "
                "--data: give one per --data, in the same order, or none"
            )
    with refusals.check():
        if limit_by is not None and limit is None:
            raise PreflightError(f"--limit-by {limit_by} needs --limit N")
    named: list[tuple[str, str]] = []
    with refusals.check():
        named = data_names(data_names_given, data_paths if paths_fit else ())
    specs = judges(specs)
    with refusals.check():
        preflight(specs, nli_cache)
    datasets = []
    # Each dataset is fetched (or read) even when another, or a name, is refused: one message
    # names every problem (the names stand in for the refused labels, one per --data).
    named = named or [(name.partition(":")[0], name) for name in data_names_given]
    for i, (kind, name) in enumerate(named):
        # With more or fewer --data-path than --data, which file is whose cannot be told.
        if kind not in DATASETS or not paths_fit:
            continue
        with refusals.check():
            data = load_human_data(kind, data_paths[i] if data_paths else None)
            data.name = name
            if limit is not None:
                limit_records(data, limit, by=limit_by, seed=seed)
            datasets.append(data)
    refusals.raise_any()
    result = Calibration(datasets, [], {}, limit, limit_by, seed)
    if stress:
        # Perturbations depend on the data only: made once, judged by every judge.
        result.stress = Stress(seed, {d.name: perturb_data(d, seed=seed) for d in datasets})
    backends = open_judges(specs, nli_cache)
    for spec, backend in zip(specs, backends, strict=True):
        rows = []
        judge = redact_text(spec.strip())
        for data in datasets:
            judged = run_judge(backend, data)
            if result.stress is not None:
                _judge_stress(result.stress, judge, backend, data, judged)
            result.abstentions[(judge, data.name)] = judged.abstentions
            rows += dataset_rows(data, judged)
            result.judgements += [
                Judgement(judge, data, i, verdict, probability, reason)
                for i, (verdict, probability, reason) in enumerate(
                    zip(judged.verdicts, judged.probabilities, judged.reasons, strict=True)
                )
            ]
        result.judges.append((judge, rows))
    return result


def _judge_stress(
    stress: Stress, judge: str, backend: CachedNLI, data: HumanData, judged: Judged
) -> None:
    """Judge ``data``'s perturbed pairs as its own pairs were judged (same backend, cache)."""
    pairs = judged_pairs(stress.perturbations[data.name])
    calls = backend.model_pairs
    start = time.perf_counter()
    results = asyncio.run(judge_pairs(backend, pairs))
    seconds = time.perf_counter() - start
    add_judged(
        stress, judge, data, results, judged.verdicts, (seconds, backend.model_pairs - calls)
    )


# Output ----------------------------------------------------------------------------------------


def _cell(row: dict[str, Any], key: str, interval: bool) -> str:
    value = row.get(key)
    if value is None:
        return "nan"
    digits = 2 if _scale(key) == 1 else 1
    low, high = row.get(f"{key}_ci") or [None, None]
    if not interval or low is None or high is None:
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _table(rows: list[dict[str, Any]], interval: bool) -> str:
    head = ["data", "subset", "n", "tp", "fp", "tn", "fn", "abstain"]
    head += [_SHORT[k] for k in _TABLE_METRICS] + ["pairs/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        pairs_per_s = row.get("pairs_per_s")
        cells = [str(row[k]) for k in ("data", "subset", "n", "tp", "fp", "tn", "fn", "abstain")]
        cells += [_cell(row, k, interval) for k in _TABLE_METRICS]
        cells.append("-" if pairs_per_s is None else f"{pairs_per_s:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _alce_table(rows: list[dict[str, Any]]) -> str:
    shown = [r for r in rows if "human_rate" in r]
    if not shown:
        return ""
    lines = [
        "| system / metric | human | ALCE automatic | this judge | ALCE kappa |",
        "|---|---|---|---|---|",
    ]
    for r in shown:
        cells = [_cell(r, k, interval=False) for k in ("human_rate", "alce_rate", "judge_rate")]
        cells.append(_cell(r, "alce_kappa", interval=False))
        lines.append(f"| {r['subset']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _aggrefact_table(calibration: Calibration) -> str:
    """LLM-AggreFact as its leaderboard shows a judge: balanced accuracy per dataset, average."""
    parts = []
    for data in (d for d in calibration.datasets if d.kind == "llm-aggrefact"):
        subsets = list(dict.fromkeys(p.subset for p in data.pairs))
        lines = [
            "| judge | " + " | ".join(subsets) + " | Average |",
            "|---|" + "---|" * (len(subsets) + 1),
        ]
        for spec, rows in calibration.judges:
            mine = {r["subset"]: r for r in rows if r["data"] == data.name}
            cells = [_cell(mine[s], "balanced_accuracy", interval=False) for s in subsets]
            cells.append(_cell(mine[ALL_SUBSET], "mean_balanced_accuracy", interval=False))
            lines.append(f"| {spec} | " + " | ".join(cells) + " |")
        parts.append(
            f"{data.name}: balanced accuracy per dataset and their mean, as the LLM-AggreFact "
            "leaderboard computes them:\n\n" + "\n".join(lines)
        )
    return "\n\n".join(parts)


def _left_out(calibration: Calibration) -> list[str]:
    return [
        f"{d.name}: {len(d.pairs)} pairs; left out: "
        + (", ".join(f"{n} {why}" for why, n in d.skipped.items()) or "none")
        for d in calibration.datasets
    ]


def terminal_table(calibration: Calibration) -> str:
    """Per judge, a row per dataset and subset (rates x100, intervals in calibration.md)."""
    parts = []
    for spec, rows in calibration.judges:
        parts.append(f"### judge {spec}\n\n{_table(rows, interval=False)}")
        alce = _alce_table(rows)
        if alce:
            parts.append(f"ALCE citation recall / precision per system ({spec}):\n\n{alce}")
    aggrefact = _aggrefact_table(calibration)
    if aggrefact:
        parts.append(aggrefact)
    parts.append("\n".join(_left_out(calibration)))
    notes = calibration.notes()
    if notes:
        parts.append("\n".join(f"note: {n}" for n in notes))
    return "\n\n".join(parts) + "\n"


def _mistakes(calibration: Calibration, judge: str) -> str:
    """The judge's most confident mistakes: decided pairs it got wrong, surest first."""
    wrong = [j for j in calibration.judgements if j.judge == judge and j.mistaken]
    if not wrong:
        return "No mistakes: every decided pair agrees with its human label."
    # Without probabilities (a judge that only says yes or no), in file order.
    wrong.sort(key=lambda j: -(j.confidence if j.confidence is not None else -1.0))
    lines = []
    for j in wrong[:MISTAKES_SHOWN]:
        pair = j.data.pairs[j.pair]
        said = "supported" if j.decision else "not supported"
        human = "supported" if pair.label else "not supported"
        sure = "no probability" if j.probability is None else f"probability {j.probability:.3f}"
        lines.append(
            f"- **{j.data.name}/{pair.subset}** index {pair.index} pair {pair.pair}: judge "
            f"*{said}* ({sure}), people *{human}*\n"
            f"  - claim: {_quoted(pair.claim, 300)}\n"
            f"  - evidence: {_quoted(pair.evidence, 400)}"
        )
    shown = min(len(wrong), MISTAKES_SHOWN)
    if all(j.confidence is None for j in wrong[:shown]):
        which = f"It gives no probabilities: the first {shown} of its {len(wrong)} mistakes"
    else:
        which = f"The {shown} most confident of its {len(wrong)} mistakes"
    head = f"{which} (every judgement is in {JUDGEMENTS_FILE}):"
    return head + "\n\n" + "\n".join(lines)


def _quoted(text: str, limit: int) -> str:
    return "`" + _cut(text, limit, one_line=True).replace("`", "'") + "`"


def markdown(calibration: Calibration) -> str:
    """``calibration.md``: the tables with intervals, mistakes, the data's provenance, notes."""
    level = round(100 * CONFIDENCE)
    parts = [
        "# Judges against human labels",
        f"Rates x100 over decided pairs, with {level}% bootstrap intervals "
        f"({BOOTSTRAP_DRAWS} draws); abstentions (pairs the judge failed to decide) are counted "
        "apart. Positive = supported.",
    ]
    for spec, rows in calibration.judges:
        parts.append(f"## {spec}\n\n{_table(rows, interval=True)}")
        alce = _alce_table(rows)
        if alce:
            parts.append(f"ALCE citation recall and precision per system:\n\n{alce}")
        parts.append(f"### Most confident mistakes\n\n{_mistakes(calibration, spec)}")
    aggrefact = _aggrefact_table(calibration)
    if aggrefact:
        parts.append(f"## LLM-AggreFact\n\n{aggrefact}")
    parts.append("## Data")
    for d in calibration.datasets:
        sources = "; ".join(", ".join(f"{k} {v}" for k, v in s.items()) for s in d.sources)
        skipped = ", ".join(f"{n} {why}" for why, n in d.skipped.items()) or "none"
        parts.append(f"- **{d.name}**: {len(d.pairs)} pairs ({sources}); left out: {skipped}")
    if calibration.limit is not None:
        how = (
            f"drawn from every subset in proportion (seed {calibration.seed})"
            if calibration.limit_by
            else "the first records in file order"
        )
        parts.append(f"- --limit {calibration.limit}: whole records, {how}")
    for (spec, name), reasons in calibration.abstentions.items():
        for why, n in reasons.items():
            parts.append(f"- {spec} abstained on {n} {name} pairs: {why}")
    notes = calibration.notes()
    if notes:
        parts.append("## Notes\n\n" + "\n".join(f"- {n}" for n in notes))
    return "\n\n".join(parts) + "\n"


def chart(calibration: Calibration, path: Path) -> None:
    """Balanced accuracy of every judge on every dataset (``all``) with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = [
        (spec, row)
        for spec, rows in calibration.judges
        for row in rows
        if row["subset"] == ALL_SUBSET
    ]
    # Each judge's label whole, wrapped (a spec with its path is long): the figure grows to
    # hold the labels and the title, which sits over the whole figure, not the axes alone.
    labels = [textwrap.fill(f"{row['data']}: {spec}", _CHART_LABEL_CHARS) for spec, row in bars]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig = plt.figure(figsize=(10, 1.6 + 0.2 * lines + 0.25 * len(bars)), layout="constrained")
    ax = fig.subplots()
    values, low, high = [], [], []
    for _, row in bars:
        value = row["balanced_accuracy"]
        lo, hi = row["balanced_accuracy_ci"]
        values.append(math.nan if value is None else value)
        low.append(0.0 if value is None or lo is None else value - lo)
        high.append(0.0 if value is None or hi is None else hi - value)
    y = list(range(len(bars)))
    ax.barh(y, [0.0 if math.isnan(v) else v for v in values], xerr=[low, high], capsize=3)
    for yi, v in zip(y, values, strict=True):
        if math.isnan(v):
            # Not computable (a judge that abstained on every pair): said, never a 0 bar.
            ax.annotate("nan", (1, yi), va="center", fontsize=8, color="dimgrey")
    ax.axvline(50, linestyle=":", color="grey")
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"balanced accuracy against people ({round(100 * CONFIDENCE)}% interval)")
    fig.suptitle("Judges against human labels (50 = chance)")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(calibration: Calibration, out: Path) -> list[Path]:
    """Write ``calibration.json``, ``.md``, ``.png`` and ``judgements.jsonl`` into ``out``.

    ``judgements.jsonl`` holds one line per judged pair (:meth:`Judgement.as_json`).
    """
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / JSON_FILE, json.dumps(calibration.as_json(), indent=2, allow_nan=False))
    write_atomic(out / MARKDOWN_FILE, markdown(calibration))
    chart(calibration, out / CHART_FILE)
    lines = (
        json.dumps(j.as_json(), ensure_ascii=False, allow_nan=False) + "\n"
        for j in calibration.judgements
    )
    write_atomic(out / JUDGEMENTS_FILE, "".join(lines))
    written = [out / JSON_FILE, out / MARKDOWN_FILE, out / CHART_FILE, out / JUDGEMENTS_FILE]
    if calibration.stress is not None:
        written += write_stress(calibration.stress, out)
    return written


# Command line ----------------------------------------------------------------------------------


_positive = number_type(int, what="a whole number", problem=at_least(1))
_seed = number_type(int, what="a whole number", problem=at_least(0))


_DESCRIPTION = """\
Judge human-labelled (evidence, claim) pairs with each NLI judge and report its agreement with
the people: counts, accuracy, balanced accuracy, kappa, precision/recall/F1 of 'supported',
bootstrap intervals, pairs/s. Writes DIR/calibration.json (what -S calibration=FILE reads),
DIR/calibration.md (the tables with intervals, each judge's most confident mistakes),
DIR/calibration.png and DIR/judgements.jsonl (one line per judged pair: judge, data, subset,
index of the record in its input file, pair within the record, human label, the judge's
probability and decision, the claim and the evidence cut to 1,000 characters).

Pairs whose evidence is empty are left out and counted apart, with the reason, for every
source. A dataset with no human 'not supported' (or 'supported') pair is reported with a note:
its specificity (sensitivity) is unknown and -S calibration refuses it.
"""

_EPILOG = f"""\
examples:
  inspect-cite calibrate --nli SPEC --data attributionbench --out calibration
  inspect-cite calibrate --nli SPEC \\
      --data attributionbench --data-path test_all_subset_balanced_sampled500.jsonl \\
      --data attributionbench --data-path test_ood_all_subset_balanced.jsonl --out calibration
    (rows named attributionbench:test_all_subset_balanced_sampled500 and
    attributionbench:test_ood_all_subset_balanced; --data attributionbench:ood names one)
  inspect-cite calibrate --nli SPEC --data llm-aggrefact --data-path llm-aggrefact --out c
  inspect-cite calibrate --nli SPEC --data attributionbench --limit 200 --limit-by subset \\
      --seed 0 --out calibration
  inspect-cite calibrate --nli SPEC --data attributionbench --stress --out calibration
    (also: can the judge be fooled? perturbed pairs of every human-supported pair)
  inspect-cite calibrate --nli SPEC --data citecheck --out calibration
    (CiteCheck's Chinese citations, pinned test split; --data-path for dev.jsonl, train.jsonl)

NLI specs ({NLI_FLAG}):
{NLI_SPECS}"""


def add_parser(sub: Any) -> None:
    """The ``calibrate`` subcommand's options, on ``inspect-cite``'s subparsers."""
    cal = sub.add_parser(
        "calibrate",
        help="measure NLI judges against human-labelled citation data",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # `--data` is no abbreviation of `--data-path` (see cli.py)
    )
    cal.add_argument(
        NLI_FLAG, action="append", required=True, metavar="SPEC", help="a judge (repeatable)"
    )
    cal.add_argument(
        "--data",
        action="append",
        required=True,
        metavar="NAME[:LABEL]",
        help=f"a human-labelled dataset (repeatable): {', '.join(DATASETS)}; ':LABEL' names its "
        "rows (data NAME:LABEL in calibration.json, -S calibration=FILE#NAME:LABEL); a NAME "
        "given twice without labels is named NAME:<file stem> of each --data-path",
    )
    cal.add_argument(
        "--data-path",
        action="append",
        default=[],
        metavar="PATH",
        help="a local copy of the dataset instead of the pinned download (one per --data, "
        "in order): a file; for fullcite-human a clone of anaryegen/incite-manual-eval, a "
        "folder or its human_evaluation_data.json (the ratings files beside it or in "
        "responses/); for llm-aggrefact (required) the hub snapshot folder or its test file "
        "(parquet, csv, jsonl); for citecheck any of its dataset/*.jsonl; required for jsonl",
    )
    cal.add_argument(
        "--limit",
        type=_positive,
        default=None,
        metavar="N",
        help="judge about N pairs of each dataset, in whole records (an item of ALCE's human "
        "evaluation, an ExpertQA question): the first records in file order",
    )
    cal.add_argument(
        "--limit-by",
        choices=LIMIT_BY,
        default=None,
        help="with --limit: draw the records at random from every subset, in proportion to "
        "its pairs, instead of taking the first ones",
    )
    cal.add_argument(
        "--seed",
        type=_seed,
        default=0,
        metavar="S",
        help="seed of --limit-by's draw and of --stress's perturbations (default 0)",
    )
    cal.add_argument(
        "--stress",
        action="store_true",
        help="also judge perturbed pairs made from every human-supported pair: unsupported by "
        "construction (negation, number, entity, partial, misattribution, stitched) and "
        "meaning-preserving (evidence_order, whitespace, casing); writes DIR/stress.jsonl, "
        "stress.json, stress.md, stress.png (seeded by --seed)",
    )
    cal.add_argument("--out", required=True, metavar="DIR", help="output directory")
    cal.add_argument(
        "--nli-cache",
        default=None,
        metavar="FILE",
        help="SQLite file caching NLI decisions (default: $INSPECT_CITE_NLI_CACHE)",
    )


def main(args: Any) -> int:
    """Run ``inspect-cite calibrate`` from parsed arguments; 0 on success, 2 on bad input."""
    try:
        # Before any pair is judged: judging can take hours, the outputs a moment.
        refusals = Refusals()
        with refusals.check():
            if (problem := unwritable_dir_problem(Path(args.out))) is not None:
                raise PreflightError(f"{OUT_FLAG} {args.out}: {problem}")
        result = calibrate(
            args.nli,
            args.data,
            args.data_path,
            limit=args.limit,
            limit_by=args.limit_by,
            seed=args.seed,
            nli_cache=args.nli_cache,
            refusals=refusals,
            stress=args.stress,
        )
        written = write_outputs(result, Path(args.out))
    except (PreflightError, ValueError, OSError) as e:
        print(f"inspect-cite calibrate: {e}", file=sys.stderr)
        return 2
    print(terminal_table(result))
    if result.stress is not None:
        print(stress_terminal(result.stress))
    for path in written:
        print(f"wrote {path}")
    return 0
