"""``inspect-cite calibrate --limit N``: a part of a dataset, cut to whole records.

A record is what one line or item of the input file holds: an AttributionBench or LLM-AggreFact
row yields one pair, an ExpertQA question one pair per labelled claim, an item of ALCE's human
evaluation a recall pair per cited sentence and a citation pair per citation. A record is kept
or left out whole, never cut: per-item rates (ALCE's per-system recall and precision) need all
of an item's sentences.

- ``--limit N``: the first records in file order, as long as their pairs number at most N (the
  first record whole even when it alone holds more).
- ``--limit N --limit-by subset --seed S``: N pairs shared among the subsets in proportion to
  their pairs (largest remainders), each subset's records drawn in a random order (``seed``)
  and taken while they fit; the kept records stay in file order. A record's subset is its first
  pair's.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from inspect_cite.app.human_labels import HumanData, LabelledPair

LIMIT_BY = ("subset",)
"""What ``--limit-by`` takes."""


@dataclass
class _Record:
    key: tuple[str, int]
    stratum: str
    position: int
    pairs: list[int] = field(default_factory=list)


def _records(data: HumanData) -> list[_Record]:
    """Every record in file order, with its pairs (an ALCE item may have none)."""
    records: dict[tuple[str, int], _Record] = {}
    file = data.pairs[0].file if data.pairs else ""
    # ALCE's sentences list every item in file order, those without a pair too.
    for sentence in data.alce_sentences:
        key = (file, sentence.index)
        if key not in records:
            records[key] = _Record(key, f"{sentence.group}/recall", len(records))
    for i, pair in enumerate(data.pairs):
        if pair.record not in records:
            records[pair.record] = _Record(pair.record, pair.subset, len(records))
        records[pair.record].pairs.append(i)
    return list(records.values())


def _first(records: Sequence[_Record], limit: int) -> list[_Record]:
    kept: list[_Record] = []
    total = 0
    for record in records:
        if kept and total + len(record.pairs) > limit:
            break
        kept.append(record)
        total += len(record.pairs)
    return kept


def _quotas(sizes: dict[str, int], limit: int) -> dict[str, int]:
    """``limit`` shared in proportion to ``sizes``: floors, then the largest remainders."""
    total = sum(sizes.values())
    exact = {k: limit * n / total for k, n in sizes.items()}
    quotas = {k: int(v) for k, v in exact.items()}
    by_remainder = sorted(sizes, key=lambda k: exact[k] - quotas[k], reverse=True)
    for k in by_remainder[: max(0, min(limit, total) - sum(quotas.values()))]:
        quotas[k] += 1
    return quotas


def _stratified(records: Sequence[_Record], limit: int, seed: int) -> list[_Record]:
    strata: dict[str, list[_Record]] = {}
    for record in records:
        strata.setdefault(record.stratum, []).append(record)
    quotas = _quotas({k: sum(len(r.pairs) for r in rs) for k, rs in strata.items()}, limit)
    rng = random.Random(seed)
    kept: list[_Record] = []
    for stratum, members in strata.items():
        order = list(members)
        rng.shuffle(order)
        total = 0
        for record in order:
            if quotas[stratum] == 0 or total + len(record.pairs) > quotas[stratum]:
                continue
            kept.append(record)
            total += len(record.pairs)
    return sorted(kept, key=lambda r: r.position)


def limit_records(data: HumanData, limit: int, *, by: str | None = None, seed: int = 0) -> None:
    """Keep about ``limit`` of ``data``'s pairs, in whole records (see the module docstring).

    Args:
        data: The dataset; its pairs and ALCE sentences are cut in place.
        limit: Pairs to keep at most (more only when the first record alone holds more).
        by: None for the first records in file order; ``subset`` for a stratified draw.
        seed: Seed of the draw.

    """
    records = _records(data)
    kept = _stratified(records, limit, seed) if by == "subset" else _first(records, limit)
    keys = {r.key for r in kept}
    old_to_new: dict[int, int] = {}
    pairs: list[LabelledPair] = []
    for i, pair in enumerate(data.pairs):
        if pair.record in keys:
            old_to_new[i] = len(pairs)
            pairs.append(pair)
    file = data.pairs[0].file if data.pairs else ""
    sentences = []
    for sentence in data.alce_sentences:
        if (file, sentence.index) not in keys:
            continue
        if sentence.recall_pair is not None:
            sentence.recall_pair = old_to_new[sentence.recall_pair]
        sentence.citation_pairs = [old_to_new[c] for c in sentence.citation_pairs]
        sentences.append(sentence)
    data.pairs = pairs
    data.alce_sentences = sentences
