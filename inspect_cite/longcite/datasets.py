"""LongBench-Cite's datasets and the groups LongCite's scripts average over.

``eval_cite.py`` and ``eval_correct.py`` keep the items whose ``dataset`` is one of their
names, then average each group of items whose ``dataset`` *contains* the group's name: so
``multifieldqa`` pools ``multifieldqa_en`` and ``multifieldqa_zh``. The headline (``avg_*``)
is the unweighted mean of the group means, leaving out ``multifieldqa_en`` and
``multifieldqa_zh`` (counted in ``multifieldqa``).
"""

from typing import Literal

LongBenchCiteDataset = Literal[
    "longbench-chat", "multifieldqa_en", "multifieldqa_zh", "hotpotqa", "dureader", "gov_report"
]
DATASETS: tuple[str, ...] = (
    "longbench-chat",
    "multifieldqa_en",
    "multifieldqa_zh",
    "hotpotqa",
    "dureader",
    "gov_report",
)

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
