"""ALCE's datasets: one row each, read by the tasks, the scorers, ``alce-eval`` and lm-eval.

A row says what a dataset is made of and what scores it: the retrievers whose results ALCE
ships for it, the fields an item needs (its gold answers among them), the correctness keys
eval.py reports for it, the scorers the task runs, and the task options only it takes. A new
ALCE-format dataset is a row here (and its name in :data:`AlceDatasetName`); see
docs/development.md, "Adding a benchmark".
"""

from dataclasses import dataclass
from typing import Literal, get_args

AlceDatasetName = Literal["asqa", "qampari", "eli5"]
"""The ALCE datasets, the names of :data:`ALCE_DATASETS`."""

WikipediaRetriever = Literal["gtr", "dpr"]
"""ASQA's and QAMPARI's retrieval results over Wikipedia (GTR-large, the paper's, or DPR)."""
SphereRetriever = Literal["bm25"]
"""ELI5's retrieval results: BM25 over Sphere (the only ones ALCE ships)."""
Retriever = Literal[WikipediaRetriever, SphereRetriever]


QAMPARI_KEYS = (
    "num_preds",
    "qampari_prec",
    "qampari_rec",
    "qampari_rec_top5",
    "qampari_f1",
    "qampari_f1_top5",
)
"""eval.py's QAMPARI scores (``compute_qampari_f1``), in its order; trust-eval reports them too."""


@dataclass(frozen=True)
class AlceDataset:
    """One ALCE dataset.

    Attributes:
        name: Its name (the task's, the prompt files' prefix, ``metadata["dataset"]``).
        retrievers: The retrieval results ALCE ships for it (each an eval file).
        fields: The fields each item needs: the question, the gold answers the scorers read,
            the documents.
        gold: The field holding its gold answers (scorers read it; nan when a sample lacks it).
        correctness: eval.py's correctness keys for it, in eval.py's order.
        scorers: The scorers its task runs (more with ``-T qa``, ``-T mauve``, strategies).
        options: The task options only some datasets take, that this one does.

    """

    name: AlceDatasetName
    retrievers: tuple[str, ...]
    fields: tuple[str, ...]
    gold: str
    correctness: tuple[str, ...]
    scorers: tuple[str, ...]
    options: tuple[str, ...] = ()


ALCE_DATASETS: dict[AlceDatasetName, AlceDataset] = {
    "asqa": AlceDataset(
        name="asqa",
        retrievers=get_args(WikipediaRetriever),
        fields=("question", "answer", "qa_pairs", "docs"),
        gold="qa_pairs",
        correctness=("length", "str_em", "str_hit", "rougeLsum"),
        scorers=("alce_correctness", "citation_nli"),
        options=("qa", "qa_model", "mauve", "mauve_model", "mauve_seeds"),
    ),
    "qampari": AlceDataset(
        name="qampari",
        retrievers=get_args(WikipediaRetriever),
        fields=("question", "answers", "docs"),
        gold="answers",
        correctness=("length", *QAMPARI_KEYS),
        scorers=("alce_correctness", "citation_nli"),
    ),
    "eli5": AlceDataset(
        name="eli5",
        retrievers=get_args(SphereRetriever),
        fields=("question", "answer", "claims", "docs"),
        gold="claims",
        correctness=("length", "rougeLsum"),
        scorers=("alce_correctness", "citation_nli", "claim_coverage"),
        options=("mauve", "mauve_model", "mauve_seeds"),
    ),
}
"""Every ALCE dataset by name."""

DATASET_OPTIONS = tuple(dict.fromkeys(o for d in ALCE_DATASETS.values() for o in d.options))
"""The task options only some datasets take (each dataset's task offers its own)."""


def other_options(dataset: AlceDatasetName) -> tuple[str, ...]:
    """The options other datasets take and ``dataset``'s task does not offer."""
    own = ALCE_DATASETS[dataset].options
    return tuple(o for o in DATASET_OPTIONS if o not in own)


def is_alce_dataset(name: object) -> bool:
    """Whether ``name`` names an ALCE dataset (``metadata["dataset"]`` of an ALCE sample)."""
    return isinstance(name, str) and name in ALCE_DATASETS
