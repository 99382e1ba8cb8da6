r"""Human-labelled (evidence, claim) pairs that ``inspect-cite calibrate`` measures judges against.

Each dataset is a pinned file (repository, commit, path and the object id its tree records),
downloaded once, verified and cached (:func:`inspect_cite.downloads.hub_files.cached_pinned_file`),
or a local copy given with ``--data-path``. Every record becomes one :class:`LabelledPair`: the
evidence a judge reads, the claim it judges, the human label (True = supported) and the subset it is
reported in. A malformed record is one :class:`HumanDataError` naming the file, the line (JSON
Lines) or record, and the field.

- ``attributionbench`` (Li et al., 2024): ``claim``, ``references`` (evidence texts, joined by
  a blank line), ``attribution_label`` (``attributable`` / ``not attributable``); the subset is
  ``src_dataset``. Pinned: the in-distribution test sample and the out-of-distribution test
  set of OSU-NLP-Group/AttributionBench (the Hugging Face dataset ``osunlp/AttributionBench``
  holds the same JSON Lines files); ``--data-path`` takes any of its files, the dev set too.
- ``expertqa``: every claim's human ``support`` label in the ExpertQA file FullCite's ExpertQA
  task pins (:mod:`inspect_cite.benchmarks.expertqa_file`). Evidence: the claim's evidence passages;
  claim: ``claim_string`` without its ``[n]`` markers. ``Complete`` is supported, ``Missing``
  is not; the subset is the answering system. ``Partial`` (spelled ``Incomplete`` in the
  released file) is the subset ``partial`` with label "not supported", outside ``all``: how
  often the judge accepts partial support.
- ``alce-human``: ALCE's human citation judgments (``human_eval_citations_completed.json``
  at the commit of ALCE's prompt files, four systems' ASQA and ELI5 answers). Per cited
  sentence, a ``recall`` pair (its cited documents joined as eval.py joins them; label
  ``sentence_recall_score``); per citation, a ``citation`` pair (that document alone; label
  ``citation_precision_score`` of 1 or 2, as ALCE's ``human_eval/analyze.py`` counts
  support). Subsets ``<dataset>/<system>/recall`` and ``<dataset>/<system>/citation``.
  The records also keep ALCE's automatic (TRUE) sentence and citation scores, which
  ``calibrate`` compares with the human ones per system (:class:`AlceSentence`).
- ``fullcite-human``: the FullCite authors' per-citation ratings (anaryegen/incite-manual-eval:
  ``human_evaluation_data.json`` and the ``responses`` files, ``q1_support`` yes/no). Evidence:
  the cited snippet's full document (never the model's snippet); claim: the statement the
  citation follows, read by the FullCite citation parser. Subset: the record's ``source``.
  ``--data-path`` is a folder holding ``human_evaluation_data.json`` and the responses.
- ``llm-aggrefact``: LLM-AggreFact's test split (Tang et al., 2024), from a user's copy of the
  gated Hugging Face dataset ``lytang/LLM-AggreFact`` (``--data-path`` required): the snapshot
  folder (``data/test-*.parquet``) or a test file in parquet, csv or JSON Lines with ``dataset``
  (the subset), ``doc`` (the evidence), ``claim`` and ``label`` (1 supported).
- ``citecheck``: CiteCheck (Xu et al., 2025; xzy-xzy/CiteCheck, MIT), Chinese RAG citations:
  ``quote`` (the cited documents) is the evidence, ``statement`` the claim, ``label`` 1
  supported, 0 not; the subset is ``method`` (``none`` original, ``ch`` information changed,
  ``del`` information deleted). Pinned: ``dataset/test.jsonl`` at ``a76b3ec`` (the split read
  by default); ``--data-path`` takes any of its files (``dev.jsonl``, ``train.jsonl``).
- ``jsonl``: a user's own file, one ``{"evidence": [str, ...], "claim": str, "label": bool,
  "subset": str}`` per line (``subset`` optional); ``--data-path`` is required.

Every source leaves out a pair whose evidence is empty and counts it under :data:`NO_EVIDENCE`;
every pair records its input file, the 0-based index of its record there and its place among the
record's pairs (:class:`LabelledPair`).
"""

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_cite.alce.prompts import ALCE_PROMPT_COMMIT, ALCE_REPO
from inspect_cite.benchmarks.expertqa_file import (
    EXPERTQA_HUB,
    claim_passages,
    expertqa_data_path,
    load_expertqa,
)
from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.network import hub_download_command
from inspect_cite.citations.alce import remove_citations, strip_markers
from inspect_cite.citations.fullcite import parse_citations
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.files import read_json, read_jsonl
from inspect_cite.downloads.hub_files import PinnedGitHubFile, cached_pinned_file, file_provenance
from inspect_cite.evidence.documents import format_doc

DATA_PATH_FLAG = "--data-path"
EVIDENCE_SEPARATOR = "\n\n"
"""Joins a record's evidence texts (AttributionBench references, ExpertQA passages, JSONL)."""

ATTRIBUTIONBENCH_REPO = "OSU-NLP-Group/AttributionBench"
ATTRIBUTIONBENCH_COMMIT = "b33329b29946b791649cf66d33e10b5a5bbdc44d"
# The in-distribution test sample (4 sources, 500 claims) and the out-of-distribution test set
# (3 sources, 1,686 claims), with the blob ids the commit's tree records.
ATTRIBUTIONBENCH_FILES = (
    PinnedGitHubFile(
        ATTRIBUTIONBENCH_REPO,
        ATTRIBUTIONBENCH_COMMIT,
        "data/test_all_subset_balanced_sampled500.jsonl",
        "04e798fe5f2e5be8bb0da7add9672838ab65f984",
    ),
    PinnedGitHubFile(
        ATTRIBUTIONBENCH_REPO,
        ATTRIBUTIONBENCH_COMMIT,
        "data/test_ood_all_subset_balanced.jsonl",
        "917a2073804d6eb86a568d19c876905e0a196eb5",
    ),
)
ATTRIBUTIONBENCH_LABELS = {"attributable": True, "not attributable": False}

ALCE_HUMAN_FILE = PinnedGitHubFile(
    ALCE_REPO,
    ALCE_PROMPT_COMMIT,
    "human_eval/human_eval_citations_completed.json",
    "aa023f68630df887958b49cd61e7efe5062c2342",
)

INCITE_REPO = "anaryegen/incite-manual-eval"
INCITE_DATA_NAME = "human_evaluation_data.json"
INCITE_FILES = (
    PinnedGitHubFile(
        INCITE_REPO,
        "9e9be8380be6bd48f355fa5548df5428a95a9937",
        f"public/{INCITE_DATA_NAME}",
        "09573e2e1e3453da22dd450c9dfe2d98ff620966",
    ),
    PinnedGitHubFile(
        INCITE_REPO,
        "82b5b36f1d95b6d756c10b34b7a6a4d2e3a419a6",
        "responses/anaryegen_2026-03-23T15-10-26-409Z.json",
        "f316e639955cb73a11ee499823c8fde24f922be3",
    ),
)
INCITE_YES_NO = {"yes": True, "no": False}

NO_EVIDENCE = "no evidence: an empty premise, nothing for the judge to read"
"""The reason every source gives for a pair left out because its evidence is empty."""
NO_CLAIM = "no claim text"

EXPERTQA_SUPPORT = {"complete": True, "missing": False}
EXPERTQA_PARTIAL = ("partial", "incomplete")
PARTIAL_SUBSET = "partial"

CITECHECK_REPO = "xzy-xzy/CiteCheck"
CITECHECK_COMMIT = "a76b3ec0ef0dadf43576a06b75866722886e47c8"
# Each split with the blob id the commit's tree records. SHA-256 of dev.jsonl
# 13761ec55cb0fc333d929ecc9044ce6de7f5aec7176fd736d1958b642d208b6f, of test.jsonl
# e2246a2a4a651cde480ad93aee6032c4f4fb615fc192f6be2f2a2c864826925b (1,000 lines each).
CITECHECK_FILES = {
    split: PinnedGitHubFile(CITECHECK_REPO, CITECHECK_COMMIT, f"dataset/{split}.jsonl", blob)
    for split, blob in (
        ("train", "cbadf4c2a37cad8434b8a255f331c7504a1104cc"),
        ("dev", "8c4cffea9cfaa8b2b03a60c174794e5f49aaa28f"),
        ("test", "899cf128b73192e864809b27234f7252e95f08ee"),
    )
}
CITECHECK_SPLIT = "test"
"""The split ``--data citecheck`` reads without ``--data-path``."""
CITECHECK_METHODS = ("none", "ch", "del")

DATASETS = (
    "attributionbench",
    "expertqa",
    "alce-human",
    "fullcite-human",
    "llm-aggrefact",
    "citecheck",
    "jsonl",
)
"""The names ``--data`` takes."""


class HumanDataError(PreflightError, ValueError):
    """Human-labelled data is missing, cannot be downloaded, or is malformed."""


@dataclass(frozen=True)
class LabelledPair:
    """One (evidence, claim) pair with a human label.

    Attributes:
        evidence: What the judge reads (the premise).
        claim: What it judges (the hypothesis).
        label: The human label: True when the evidence supports the claim.
        subset: The subset the pair is reported in (besides ``all``).
        where: The file and line or record it came from.
        in_all: Whether the pair counts in ``all`` (partial-support subsets do not).
        file: The input file it came from.
        index: The 0-based index of its record in that file (a JSON Lines file's non-blank
            lines, a table's rows, ALCE's items in file order, FullCite's records).
        pair: The 0-based place of the pair among the pairs its record yields (0 where a record
            yields one pair; FullCite: the citation's index in its record).
        texts: The evidence texts ``evidence`` joins (:data:`EVIDENCE_SEPARATOR`), where the
            record gives several (AttributionBench references, a JSON Lines evidence list).

    """

    evidence: str
    claim: str
    label: bool
    subset: str
    where: str
    in_all: bool = True
    file: str = ""
    index: int = 0
    pair: int = 0
    texts: tuple[str, ...] = ()

    @property
    def evidence_texts(self) -> tuple[str, ...]:
        """The evidence as its texts (``calibrate --stress`` reorders and quotes them)."""
        return self.texts or (self.evidence,)

    @property
    def record(self) -> tuple[str, int]:
        """The record the pair comes from: ``--limit`` keeps or cuts a record whole."""
        return self.file, self.index


@dataclass
class AlceSentence:
    """One sentence of ALCE's human evaluation with ALCE's human and automatic scores.

    Attributes:
        group: ``<dataset>/<system>``.
        item: The question id.
        human_recall: ``sentence_recall_score`` (0 or 1).
        auto_recall: ALCE's automatic recall of the sentence (TRUE, recorded in the file).
        human_citations: Each citation's ``citation_precision_score`` (0, 1 or 2).
        auto_citations: ALCE's automatic precision score of each citation.
        recall_pair: Index of its ``recall`` pair in :attr:`HumanData.pairs` (None: uncited).
        citation_pairs: Indices of its ``citation`` pairs.
        index: The 0-based index of its item in the file (its pairs' ``index``).

    """

    group: str
    item: str
    human_recall: int
    auto_recall: int
    human_citations: list[int]
    auto_citations: list[int]
    recall_pair: int | None
    citation_pairs: list[int]
    index: int = 0


@dataclass
class HumanData:
    """A dataset's labelled pairs and where they came from.

    Attributes:
        name: The ``--data`` name.
        pairs: The labelled pairs, in file order.
        sources: Each file read: repository, commit, file, git blob and SHA-256, or path and
            SHA-256.
        skipped: Records left out, by reason (no evidence, not rated, ...).
        alce_sentences: ``alce-human`` only: every sentence with ALCE's scores.
        notes: What the data can and cannot measure, for the command's output.
        kind: The ``--data`` name whose loader read it (``name`` may add a label to it).

    """

    name: str
    pairs: list[LabelledPair] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    alce_sentences: list[AlceSentence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kind: str = ""

    def __post_init__(self) -> None:
        self.kind = self.kind or self.name


def _pinned(pin: PinnedGitHubFile, name: str) -> tuple[Path, dict[str, Any]]:
    directory = cache_dir("calibration", pin.repo.replace("/", "--"), pin.commit[:12])
    path = cached_pinned_file(pin, directory, HumanDataError, name=name, flag=DATA_PATH_FLAG)
    return path, {**pin.provenance(), **file_provenance(path)}


def _local(path: str | Path) -> tuple[Path, dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        raise HumanDataError(f"{DATA_PATH_FLAG} {path} does not exist")
    return path, file_provenance(path) if path.is_file() else {"path": str(path)}


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _evidence_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(e, str) for e in value)


_FIELD_KINDS = {
    "text": (_text, "a non-empty string"),
    "texts": (_evidence_list, "a list of strings"),
}


def _checked_row(where: str, row: Any, fields: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """``row`` as an object whose ``fields`` (name, ``text`` or ``texts``) hold what they must.

    The fields are checked in the order given, so a row wrong twice is refused for the first.

    Raises:
        HumanDataError: ``<where>: field "<name>" must be ...``.

    """
    if not isinstance(row, dict):
        raise HumanDataError(f"{where}: expected a JSON object")
    for name, kind in fields:
        holds, must = _FIELD_KINDS[kind]
        if not holds(row.get(name)):
            raise HumanDataError(f'{where}: field "{name}" must be {must}')
    return row


# AttributionBench -----------------------------------------------------------------------------


def attributionbench_pairs(path: Path, data: HumanData) -> None:
    """Add the pairs of one AttributionBench JSON Lines file (GitHub or Hugging Face copy).

    A claim with an empty ``references`` list (75 HAGRID claims of the out-of-distribution
    test set) has nothing to be judged against: it is left out as :data:`NO_EVIDENCE`.
    """
    records = read_jsonl(path, "AttributionBench file", HumanDataError, DATA_PATH_FLAG)
    for index, (where, row) in enumerate(records):
        row = _checked_row(where, row, (("claim", "text"), ("references", "texts")))
        label = row.get("attribution_label")
        key = label.strip().lower() if isinstance(label, str) else None
        if key not in ATTRIBUTIONBENCH_LABELS:
            raise HumanDataError(
                f'{where}: field "attribution_label" must be "attributable" or "not '
                f'attributable", got {label!r:.60}'
            )
        if not _text(row.get("src_dataset")):
            raise HumanDataError(f'{where}: field "src_dataset" must be a non-empty string')
        evidence = EVIDENCE_SEPARATOR.join(row["references"])
        if not evidence.strip():
            data.skipped[NO_EVIDENCE] += 1
            continue
        data.pairs.append(
            LabelledPair(
                evidence=evidence,
                claim=row["claim"],
                label=ATTRIBUTIONBENCH_LABELS[key],
                subset=row["src_dataset"].strip(),
                where=where,
                file=str(path),
                index=index,
                texts=tuple(row["references"]),
            )
        )


def load_attributionbench(data_path: str | None) -> HumanData:
    """AttributionBench's labelled claims: ``data_path``, or the pinned test files."""
    data = HumanData("attributionbench")
    files = (
        [_local(data_path)]
        if data_path
        else [_pinned(pin, "AttributionBench") for pin in ATTRIBUTIONBENCH_FILES]
    )
    for path, source in files:
        attributionbench_pairs(path, data)
        data.sources.append(source)
    return data


# ExpertQA --------------------------------------------------------------------------------------


def load_expertqa_support(data_path: str | None) -> HumanData:
    """ExpertQA's per-claim human support labels: ``data_path``, or FullCite's pinned file.

    A claim without an evidence passage is left out (:data:`NO_EVIDENCE`). In the released
    files every ``Missing`` claim is such a claim, so ``all`` holds no human "not supported"
    pair: the data then says so in :attr:`HumanData.notes`.
    """
    data = HumanData("expertqa")
    if data_path:
        path, source = _local(data_path)
    else:
        path = expertqa_data_path(flag=DATA_PATH_FLAG)
        source = {**EXPERTQA_HUB.provenance(), **file_provenance(path)}
    data.sources.append(source)
    missing_without_evidence = 0
    for index, row in enumerate(load_expertqa(path, flag=DATA_PATH_FLAG)):
        pair = 0
        for system, answer in row["answers"].items():
            for i, claim in enumerate(answer.get("claims") or []):
                where = f'{path}:{index + 1}: answers["{system}"]["claims"][{i}]'
                support = claim.get("support")
                key = support.strip().lower() if isinstance(support, str) else None
                if key is None or not (key in EXPERTQA_SUPPORT or key in EXPERTQA_PARTIAL):
                    data.skipped["no support label"] += 1
                    continue
                text = claim.get("claim_string")
                if not isinstance(text, str):
                    raise HumanDataError(f'{where}: field "claim_string" must be a string')
                claim_text = " ".join(strip_markers(text, plain_only=True).split())
                passages = claim_passages(claim)
                if not passages:
                    data.skipped[NO_EVIDENCE] += 1
                    missing_without_evidence += key == "missing"
                    continue
                if not claim_text:
                    data.skipped[NO_CLAIM] += 1
                    continue
                partial = key in EXPERTQA_PARTIAL
                data.pairs.append(
                    LabelledPair(
                        evidence=EVIDENCE_SEPARATOR.join(p["text"] for p in passages),
                        claim=claim_text,
                        label=False if partial else EXPERTQA_SUPPORT[key],
                        subset=PARTIAL_SUBSET if partial else str(system),
                        where=where,
                        in_all=not partial,
                        file=str(path),
                        index=index,
                        pair=pair,
                    )
                )
                pair += 1
    negatives = sum(1 for p in data.pairs if p.in_all and not p.label)
    if not negatives:
        data.notes.append(
            f"expertqa: no human 'not supported' pair in all ({missing_without_evidence} "
            "Missing claims have no evidence passage in this file and are left out): its "
            "specificity cannot be measured and -S calibration refuses it; the 'not supported' "
            f"pairs it holds are the {PARTIAL_SUBSET} subset (Partial / Incomplete support)"
        )
    return data


# ALCE's human evaluation -----------------------------------------------------------------------


def _score(value: Any, allowed: tuple[int, ...], where: str, name: str) -> int:
    # A score written as 1.0 is the score 1 (ALCE's analysis compares them with ==).
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in allowed:
        raise HumanDataError(
            f'{where}: field "{name}" must be one of {", ".join(map(str, allowed))}, '
            f"got {value!r:.40}"
        )
    return int(value)


def _alce_items(content: Any, path: Path) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(dataset, system, question id, record) for every record of the file."""
    if not isinstance(content, dict):
        raise HumanDataError(f"{path}: expected an object mapping datasets to systems")
    for dataset, systems in content.items():
        if not isinstance(systems, dict):
            raise HumanDataError(f"{path}: {dataset}: expected an object mapping systems to items")
        for system, items in systems.items():
            if not isinstance(items, dict):
                raise HumanDataError(f"{path}: {dataset}/{system}: expected an object of items")
            for qid, item in items.items():
                if qid == "overall_results":
                    continue
                if not isinstance(item, dict):
                    raise HumanDataError(f"{path}: {dataset}/{system}/{qid}: expected an object")
                yield str(dataset), str(system), str(qid), item


def alce_human_pairs(path: Path, data: HumanData) -> None:
    """Add the pairs and sentences of ALCE's ``human_eval_citations_completed.json``."""
    content = read_json(path, "ALCE human-evaluation file", HumanDataError, f" ({DATA_PATH_FLAG})")
    for index, (dataset, system, qid, item) in enumerate(_alce_items(content, path)):
        record = f"{path}: {dataset}/{system}/{qid}"
        first_pair = len(data.pairs)
        sentences = item.get("sentences")
        auto_recall = item.get("automatic_recall_scores")
        auto_citations = item.get("automatic_citation_precision_scores")
        for name, value in (
            ("sentences", sentences),
            ("automatic_recall_scores", auto_recall),
            ("automatic_citation_precision_scores", auto_citations),
        ):
            if not isinstance(value, list):
                raise HumanDataError(f'{record}: field "{name}" must be a list')
        assert isinstance(sentences, list)
        assert isinstance(auto_recall, list) and isinstance(auto_citations, list)
        if not len(sentences) == len(auto_recall) == len(auto_citations):
            raise HumanDataError(
                f'{record}: "sentences", "automatic_recall_scores" and '
                '"automatic_citation_precision_scores" must have one entry per sentence'
            )
        group = f"{dataset}/{system}"
        for s, sentence in enumerate(sentences):
            where = f"{record}: sentences[{s}]"
            if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
                raise HumanDataError(f'{where}: expected an object with a string "text"')
            citations = sentence.get("citations")
            auto = auto_citations[s]
            if not isinstance(citations, list) or not isinstance(auto, list):
                raise HumanDataError(f'{where}: field "citations" must be a list')
            if len(citations) != len(auto):
                raise HumanDataError(
                    f'{where}: "citations" and automatic_citation_precision_scores[{s}] differ '
                    "in length"
                )
            human_recall = _score(
                sentence.get("sentence_recall_score"), (0, 1), where, "sentence_recall_score"
            )
            docs = []
            human_cites = []
            for c, citation in enumerate(citations):
                cwhere = f"{where}: citations[{c}]"
                if not isinstance(citation, dict) or not all(
                    isinstance(citation.get(k), str) for k in ("title", "text")
                ):
                    raise HumanDataError(f'{cwhere}: expected an object with "title" and "text"')
                human_cites.append(
                    _score(
                        citation.get("citation_precision_score"),
                        (0, 1, 2),
                        cwhere,
                        "citation_precision_score",
                    )
                )
                docs.append(format_doc(citation))
            entry = AlceSentence(
                group=group,
                item=qid,
                human_recall=human_recall,
                auto_recall=_score(auto_recall[s], (0, 1), record, f"automatic_recall_scores[{s}]"),
                human_citations=human_cites,
                auto_citations=[
                    _score(a, (0, 1, 2), record, f"automatic_citation_precision_scores[{s}]")
                    for a in auto
                ],
                recall_pair=None,
                citation_pairs=[],
                index=index,
            )
            claim = remove_citations(sentence["text"]).strip()
            if docs and claim:
                # eval.py's premise: the cited documents, each "Title: ...\n<text>", one a line.
                entry.recall_pair = len(data.pairs)
                data.pairs.append(
                    LabelledPair(
                        "\n".join(docs),
                        claim,
                        human_recall == 1,
                        f"{group}/recall",
                        where,
                        file=str(path),
                        index=index,
                        pair=len(data.pairs) - first_pair,
                    )
                )
                for c, (doc, score) in enumerate(zip(docs, human_cites, strict=True)):
                    entry.citation_pairs.append(len(data.pairs))
                    data.pairs.append(
                        LabelledPair(
                            doc,
                            claim,
                            score >= 1,
                            f"{group}/citation",
                            f"{where}: citations[{c}]",
                            file=str(path),
                            index=index,
                            pair=len(data.pairs) - first_pair,
                        )
                    )
            elif not docs:
                data.skipped["uncited sentence (no pair to judge)"] += 1
            else:
                data.skipped[NO_CLAIM] += 1
            data.alce_sentences.append(entry)


def load_alce_human(data_path: str | None) -> HumanData:
    """ALCE's human citation judgments: ``data_path``, or the pinned file."""
    data = HumanData("alce-human")
    path, source = _local(data_path) if data_path else _pinned(ALCE_HUMAN_FILE, "ALCE human eval")
    data.sources.append(source)
    alce_human_pairs(path, data)
    return data


# FullCite's human evaluation -------------------------------------------------------------------


def _incite_records(path: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    content = read_json(path, "FullCite human-evaluation file", HumanDataError)
    if not isinstance(content, list):
        raise HumanDataError(f"{path}: expected a JSON list of records")
    records: dict[str, tuple[int, dict[str, Any]]] = {}
    for i, record in enumerate(content):
        where = f"{path}: record {i}"
        if not isinstance(record, dict):
            raise HumanDataError(f"{where}: expected an object")
        for name in ("question", "generated_answer"):
            if not isinstance(record.get(name), str):
                raise HumanDataError(f'{where}: field "{name}" must be a string')
        citations = record.get("citations")
        if not isinstance(citations, list) or not all(isinstance(c, dict) for c in citations):
            raise HumanDataError(f'{where}: field "citations" must be a list of objects')
        records.setdefault(record["question"], (i, record))
    return records


def _responses(path: Path) -> list[Any] | None:
    """The ``responses`` list of a ratings file, or None for a file that holds none."""
    try:
        content = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError):
        return None
    responses = content.get("responses") if isinstance(content, dict) else None
    return responses if isinstance(responses, list) else None


def fullcite_human_pairs(data_file: Path, response_files: list[Path], data: HumanData) -> None:
    """Add a pair for every rated citation of the FullCite authors' human evaluation."""
    records = _incite_records(data_file)
    claims: dict[str, list[tuple[str, str]]] = {}
    for question, (i, record) in records.items():
        # The k-th citation of the answer is citations[k] of the record (the annotation UI's
        # citationIndex); each comes with the claim it follows.
        parsed = parse_citations(record["generated_answer"])
        cited = [(claim.text, c.doc_id) for claim in parsed.claims for c in claim.citations]
        if len(cited) != len(record["citations"]):
            raise HumanDataError(
                f'{data_file}: record {i}: "generated_answer" holds {len(cited)} citations, '
                f'"citations" lists {len(record["citations"])}'
            )
        claims[question] = cited
    for path in response_files:
        responses = _responses(path)
        assert responses is not None
        for r, response in enumerate(responses):
            where = f"{path}: responses[{r}]"
            if not isinstance(response, dict) or not isinstance(response.get("question"), str):
                raise HumanDataError(f'{where}: expected an object with a string "question"')
            found = records.get(response["question"])
            if found is None:
                raise HumanDataError(f'{where}: "question" is not in {data_file}')
            i, record = found
            index = response.get("citationIndex")
            if (
                isinstance(index, bool)
                or not isinstance(index, int)
                or not 0 <= index < len(record["citations"])
            ):
                raise HumanDataError(
                    f'{where}: field "citationIndex" must index record {i}\'s '
                    f"{len(record['citations'])} citations, got {index!r:.20}"
                )
            citation = record["citations"][index]
            doc_id = response.get("docId")
            if doc_id is not None and str(doc_id) != str(citation.get("doc_id")):
                raise HumanDataError(
                    f'{where}: "docId" {doc_id!r:.40} is not the doc_id of citation {index} of '
                    f"record {i} ({citation.get('doc_id')!r:.40})"
                )
            rating = response.get("q1_support")
            key = rating.strip().lower() if isinstance(rating, str) else None
            if key not in INCITE_YES_NO:
                if rating is not None:
                    raise HumanDataError(f'{where}: field "q1_support" must be "yes" or "no"')
                data.skipped["citation not rated"] += 1
                continue
            document = citation.get("full_document")
            claim = claims[response["question"]][index][0]
            if not _text(document):
                # The snippet is the model's words: it is never evidence in its document's place.
                data.skipped[NO_EVIDENCE] += 1
                continue
            if not claim:
                data.skipped[NO_CLAIM] += 1
                continue
            data.pairs.append(
                LabelledPair(
                    evidence=str(document).strip(),
                    claim=claim,
                    label=INCITE_YES_NO[key],
                    subset=str(record.get("source") or "unknown"),
                    where=where,
                    file=str(data_file),
                    index=i,
                    pair=index,
                )
            )


_INCITE_HINT = (
    f"clone {INCITE_REPO} (or put its public/{INCITE_DATA_NAME} and responses/*.json in one "
    f"folder) and pass {DATA_PATH_FLAG} with the clone or that folder"
)


def _incite_layout(path: Path) -> tuple[Path, list[Path]]:
    """The data file and the ratings files of a clone, a folder, or the data file itself.

    Accepted: the repository's layout (``public/human_evaluation_data.json`` beside
    ``responses/``), one folder holding both (ratings in it or in ``responses/``), or the path
    of ``human_evaluation_data.json`` (its ratings beside it, in ``responses/`` beside it, or
    in the repository's ``responses/`` one level up).
    """
    if path.is_file():
        data_file, folders = path, [path.parent, path.parent / "responses"]
        folders.append(path.parent.parent / "responses")
    elif path.is_dir():
        data_file = next(
            (
                f
                for f in (path / INCITE_DATA_NAME, path / "public" / INCITE_DATA_NAME)
                if f.is_file()
            ),
            path / INCITE_DATA_NAME,
        )
        folders = [path, path / "responses", data_file.parent]
    else:
        raise HumanDataError(f"{DATA_PATH_FLAG} {path} does not exist")
    if not data_file.is_file():
        raise HumanDataError(
            f"{DATA_PATH_FLAG} {path}: no {INCITE_DATA_NAME} in it or in its public/; "
            + _INCITE_HINT
        )
    candidates = sorted({f for folder in folders if folder.is_dir() for f in folder.glob("*.json")})
    responses = [f for f in candidates if f != data_file and _responses(f) is not None]
    if not responses:
        raise HumanDataError(
            f'{DATA_PATH_FLAG} {path}: no ratings file (a JSON object with a "responses" list) '
            f"beside {data_file.name} or in a responses/ folder; " + _INCITE_HINT
        )
    return data_file, responses


def load_fullcite_human(data_path: str | None) -> HumanData:
    """The FullCite authors' citation ratings: ``data_path``, or the pinned files.

    ``data_path`` is a clone of the ratings repository, a folder, or the data file itself
    (:func:`_incite_layout`).
    """
    data = HumanData("fullcite-human")
    if data_path:
        data_file, responses = _incite_layout(Path(data_path))
        data.sources += [file_provenance(p) for p in [data_file, *responses]]
    else:
        try:
            (data_file, source), *rated = [
                _pinned(pin, "FullCite human eval") for pin in INCITE_FILES
            ]
        except HumanDataError as e:
            # The download's own hint names one file; the ratings need the whole folder.
            why = str(e).split(" Download ")[0]
            raise HumanDataError(f"--data fullcite-human: {why}; {_INCITE_HINT}") from e
        responses = [path for path, _ in rated]
        data.sources += [source, *(s for _, s in rated)]
    fullcite_human_pairs(data_file, responses, data)
    return data


# LLM-AggreFact ---------------------------------------------------------------------------------

AGGREFACT_HUB = "lytang/LLM-AggreFact"
AGGREFACT_FIELDS = ("dataset", "doc", "claim", "label")
AGGREFACT_SUFFIXES = (".parquet", ".csv", ".jsonl", ".json")


def _aggrefact_hint() -> str:
    """How to get LLM-AggreFact, in the download command the installed huggingface_hub has."""
    command = hub_download_command(AGGREFACT_HUB, dataset=True)
    return (
        f"LLM-AggreFact is a gated Hugging Face dataset ({AGGREFACT_HUB}): accept its terms on "
        f"the hub, download it ({command} --local-dir llm-aggrefact) and pass {DATA_PATH_FLAG} "
        "with that folder or its test file"
    )


def _aggrefact_files(path: Path) -> list[Path]:
    """The test split's files: the file given, or a snapshot folder's ``data/test-*`` shards."""
    if path.is_file():
        if path.suffix.lower() not in AGGREFACT_SUFFIXES:
            raise HumanDataError(
                f"{DATA_PATH_FLAG} {path}: an LLM-AggreFact file is parquet (the hub's), csv, "
                f"jsonl or json (records with {', '.join(AGGREFACT_FIELDS)}), not "
                f"{path.suffix or 'a file without a suffix'}"
            )
        return [path]
    if not path.is_dir():
        raise HumanDataError(f"{DATA_PATH_FLAG} {path} does not exist")
    for folder in (path / "data", path):
        shards = sorted(
            f for f in folder.glob("test*") if f.is_file() and f.suffix in AGGREFACT_SUFFIXES
        )
        if shards:
            return shards
    raise HumanDataError(
        f"{DATA_PATH_FLAG} {path}: no test split in it (data/test-*.parquet, as the hub "
        f"snapshot holds it, or test*.csv / .jsonl); {_aggrefact_hint()}"
    )


def _aggrefact_rows(path: Path) -> list[tuple[str, Any]]:
    """(where, record) for every record of one file, in file order."""
    if path.suffix.lower() in (".jsonl",):
        return list(read_jsonl(path, "LLM-AggreFact file", HumanDataError, DATA_PATH_FLAG))
    import pandas as pd

    try:
        if path.suffix.lower() == ".parquet":
            table = pd.read_parquet(path)
        elif path.suffix.lower() == ".csv":
            # Empty cells stay empty strings: an empty doc is a record without evidence.
            table = pd.read_csv(path, dtype=str, keep_default_na=False)
        else:
            content = read_json(path, "LLM-AggreFact file", HumanDataError, f" ({DATA_PATH_FLAG})")
            if not isinstance(content, list):
                raise HumanDataError(f"{path}: expected a JSON list of records")
            return [(f"{path}: record {i}", row) for i, row in enumerate(content)]
    except HumanDataError:
        raise
    except Exception as e:  # pyarrow and pandas raise many kinds for a file they cannot read
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        raise HumanDataError(f"LLM-AggreFact file {path} cannot be read: {first}") from e
    missing = [f for f in AGGREFACT_FIELDS if f not in table.columns]
    if missing:
        raise HumanDataError(
            f"{path}: no column {', '.join(repr(m) for m in missing)}; an LLM-AggreFact file has "
            f"the columns {', '.join(AGGREFACT_FIELDS)}"
        )
    return [
        (f"{path}: row {i}", row)
        for i, row in enumerate(table[list(AGGREFACT_FIELDS)].to_dict("records"))
    ]


def _zero_one_label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return value.strip() == "1"
    return None


def load_llm_aggrefact(data_path: str | None) -> HumanData:
    """LLM-AggreFact's test split (Tang et al., 2024) from a user's copy of the gated dataset.

    Records hold ``dataset`` (the subset), ``doc`` (the evidence), ``claim`` and ``label``
    (1 supported, 0 not), as the hub's parquet files and their csv / jsonl exports do.
    """
    if not data_path:
        raise HumanDataError(f"--data llm-aggrefact needs {DATA_PATH_FLAG}: " + _aggrefact_hint())
    data = HumanData("llm-aggrefact")
    for path in _aggrefact_files(Path(data_path)):
        data.sources.append(file_provenance(path))
        for index, (where, row) in enumerate(_aggrefact_rows(path)):
            if not isinstance(row, dict):
                raise HumanDataError(
                    f"{where}: expected a record with {', '.join(AGGREFACT_FIELDS)}"
                )
            label = _zero_one_label(row.get("label"))
            if label is None:
                raise HumanDataError(
                    f'{where}: field "label" must be 0 or 1, got {row.get("label")!r:.40}'
                )
            if not _text(row.get("dataset")):
                raise HumanDataError(f'{where}: field "dataset" must be a non-empty string')
            for name in ("doc", "claim"):
                if not isinstance(row.get(name), str):
                    raise HumanDataError(f'{where}: field "{name}" must be a string')
            if not row["doc"].strip():
                data.skipped[NO_EVIDENCE] += 1
                continue
            if not row["claim"].strip():
                data.skipped[NO_CLAIM] += 1
                continue
            data.pairs.append(
                LabelledPair(
                    evidence=row["doc"],
                    claim=row["claim"],
                    label=label,
                    subset=row["dataset"].strip(),
                    where=where,
                    file=str(path),
                    index=index,
                )
            )
    return data


# CiteCheck ---------------------------------------------------------------------------------------


def citecheck_pairs(path: Path, data: HumanData) -> None:
    """Add the pairs of one CiteCheck JSON Lines file: ``quote``, ``statement``, ``label``."""
    records = read_jsonl(path, "CiteCheck file", HumanDataError, DATA_PATH_FLAG)
    for index, (where, row) in enumerate(records):
        if not isinstance(row, dict):
            raise HumanDataError(f"{where}: expected a JSON object")
        for name in ("quote", "statement"):
            if not isinstance(row.get(name), str):
                raise HumanDataError(f'{where}: field "{name}" must be a string')
        label = _zero_one_label(row.get("label"))
        if label is None:
            raise HumanDataError(
                f'{where}: field "label" must be 0 or 1, got {row.get("label")!r:.40}'
            )
        method = row.get("method")
        # An unknown method would make a subset of its own, silently: refused.
        if not _text(method) or str(method).strip() not in CITECHECK_METHODS:
            raise HumanDataError(
                f'{where}: field "method" must be one of CiteCheck\'s methods ('
                f"{', '.join(CITECHECK_METHODS)}), got {method!r:.40}"
            )
        if not row["quote"].strip():
            data.skipped[NO_EVIDENCE] += 1
            continue
        if not row["statement"].strip():
            data.skipped[NO_CLAIM] += 1
            continue
        data.pairs.append(
            LabelledPair(
                evidence=row["quote"],
                claim=row["statement"],
                label=label,
                subset=str(method).strip(),
                where=where,
                file=str(path),
                index=index,
            )
        )


def load_citecheck(data_path: str | None) -> HumanData:
    """CiteCheck's labelled citations: ``data_path``, or the pinned test split."""
    data = HumanData("citecheck")
    if data_path:
        path, source = _local(data_path)
    else:
        path, source = _pinned(CITECHECK_FILES[CITECHECK_SPLIT], "CiteCheck")
    citecheck_pairs(path, data)
    data.sources.append(source)
    return data


# A user's own JSON Lines ------------------------------------------------------------------------


def load_user_jsonl(data_path: str | None) -> HumanData:
    """A user's own labelled pairs (``--data jsonl --data-path FILE``)."""
    if not data_path:
        raise HumanDataError(f"--data jsonl needs {DATA_PATH_FLAG} FILE (the user's own pairs)")
    data = HumanData("jsonl")
    path, source = _local(data_path)
    data.sources.append(source)
    records = read_jsonl(path, "labelled-pairs file", HumanDataError, DATA_PATH_FLAG)
    for index, (where, row) in enumerate(records):
        row = _checked_row(where, row, (("evidence", "texts"), ("claim", "text")))
        if not isinstance(row.get("label"), bool):
            raise HumanDataError(f'{where}: field "label" must be true or false')
        subset = row.get("subset", "all")
        if not _text(subset):
            raise HumanDataError(f'{where}: field "subset" must be a non-empty string')
        evidence = EVIDENCE_SEPARATOR.join(row["evidence"])
        if not evidence.strip():
            data.skipped[NO_EVIDENCE] += 1
            continue
        data.pairs.append(
            LabelledPair(
                evidence,
                row["claim"],
                row["label"],
                subset.strip(),
                where,
                file=str(path),
                index=index,
                texts=tuple(row["evidence"]),
            )
        )
    return data


LOADERS = {
    "attributionbench": load_attributionbench,
    "expertqa": load_expertqa_support,
    "alce-human": load_alce_human,
    "fullcite-human": load_fullcite_human,
    "llm-aggrefact": load_llm_aggrefact,
    "citecheck": load_citecheck,
    "jsonl": load_user_jsonl,
}


def load_human_data(name: str, data_path: str | None = None) -> HumanData:
    """The labelled pairs of dataset ``name`` (one of :data:`DATASETS`).

    Raises:
        HumanDataError: For an unknown name, a file that cannot be had, a malformed record,
            or data with no labelled pairs.

    """
    loader = LOADERS.get(name)
    if loader is None:
        raise HumanDataError(f"--data {name}: unknown dataset; use one of {', '.join(DATASETS)}")
    data = loader(data_path)
    # Rates over no pairs are all undefined: a table of nulls says nothing a refusal does not.
    if not data.pairs:
        where = f"{DATA_PATH_FLAG} {data_path}" if data_path else f"--data {name}"
        left_out = ", ".join(f"{n} {why}" for why, n in data.skipped.items())
        raise HumanDataError(
            f"{where}: no labelled pairs (--data {name})"
            + (f"; left out: {left_out}" if left_out else "")
        )
    return data
