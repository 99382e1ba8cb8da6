"""LongBench-Cite's datasets: one row each, and the groups LongCite's scripts average over.

A row names a dataset (an item's ``dataset`` field, what ``-T datasets`` keeps).
``eval_cite.py`` and ``eval_correct.py`` keep the items whose ``dataset`` is one of their
names, then average each group of items whose ``dataset`` *contains* the group's name: so
``multifieldqa`` pools ``multifieldqa_en`` and ``multifieldqa_zh``. The headline (``avg_*``)
is the unweighted mean of the group means, leaving out ``multifieldqa_en`` and
``multifieldqa_zh`` (counted in ``multifieldqa``). A new dataset in LongBench-Cite's format is
a row here (and its name in :data:`LongBenchCiteDataset`); see docs/development.md, "Adding a
benchmark".
"""

from dataclasses import dataclass
from typing import Literal

LongBenchCiteDataset = Literal[
    "longbench-chat", "multifieldqa_en", "multifieldqa_zh", "hotpotqa", "dureader", "gov_report"
]
"""The LongBench-Cite datasets, the names of :data:`LONGCITE_DATASETS`."""


@dataclass(frozen=True)
class LongciteDataset:
    """One LongBench-Cite dataset.

    Attributes:
        name: Its name (an item's ``dataset`` field, ``-T datasets``).

    """

    name: LongBenchCiteDataset


LONGCITE_DATASETS: dict[LongBenchCiteDataset, LongciteDataset] = {
    "longbench-chat": LongciteDataset("longbench-chat"),
    "multifieldqa_en": LongciteDataset("multifieldqa_en"),
    "multifieldqa_zh": LongciteDataset("multifieldqa_zh"),
    "hotpotqa": LongciteDataset("hotpotqa"),
    "dureader": LongciteDataset("dureader"),
    "gov_report": LongciteDataset("gov_report"),
}

DATASETS: tuple[str, ...] = tuple(LONGCITE_DATASETS)
"""The dataset names, in LongCite's order."""

GROUPS: tuple[str, ...] = (
    "longbench-chat",
    "multifieldqa_en",
    "multifieldqa_zh",
    "multifieldqa",
    "hotpotqa",
    "dureader",
    "gov_report",
)
"""The groups of ``eval_cite.py``'s ``datasets`` list, in its order."""

HEADLINE_GROUPS: tuple[str, ...] = tuple(
    g for g in GROUPS if g not in ("multifieldqa_en", "multifieldqa_zh")
)
"""The groups the headline averages (LongCite's ``avg_citation_f1`` etc.)."""


def groups_of(dataset: str) -> list[str]:
    """The groups an item of ``dataset`` is averaged in (its name contains theirs)."""
    return [g for g in GROUPS if g in dataset]
