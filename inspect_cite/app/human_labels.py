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
- ``jsonl``: a user's own file, one ``{"evidence": [str, ...], "claim": str, "label": bool,
  "subset": str}`` per line (``subset`` optional); ``--data-path`` is required.
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

EXPERTQA_SUPPORT = {"complete": True, "missing": False}
EXPERTQA_PARTIAL = ("partial", "incomplete")
PARTIAL_SUBSET = "partial"

DATASETS = ("attributionbench", "expertqa", "alce-human", "fullcite-human", "jsonl")
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

    """

    evidence: str
    claim: str
    label: bool
    subset: str
    where: str
    in_all: bool = True


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

    """

    group: str
    item: str
    human_recall: int
    auto_recall: int
    human_citations: list[int]
    auto_citations: list[int]
    recall_pair: int | None
    citation_pairs: list[int]


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

    """

    name: str
    pairs: list[LabelledPair] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    alce_sentences: list[AlceSentence] = field(default_factory=list)


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


# AttributionBench -----------------------------------------------------------------------------


def attributionbench_pairs(path: Path, data: HumanData) -> None:
    """Add the pairs of one AttributionBench JSON Lines file (GitHub or Hugging Face copy)."""
    for where, row in read_jsonl(path, "AttributionBench file", HumanDataError, DATA_PATH_FLAG):
        if not isinstance(row, dict):
            raise HumanDataError(f"{where}: expected a JSON object")
        if not _text(row.get("claim")):
            raise HumanDataError(f'{where}: field "claim" must be a non-empty string')
        if not _evidence_list(row.get("references")):
            raise HumanDataError(f'{where}: field "references" must be a list of strings')
        label = row.get("attribution_label")
        key = label.strip().lower() if isinstance(label, str) else None
        if key not in ATTRIBUTIONBENCH_LABELS:
            raise HumanDataError(
                f'{where}: field "attribution_label" must be "attributable" or "not '
                f'attributable", got {label!r:.60}'
            )
        if not _text(row.get("src_dataset")):
            raise HumanDataError(f'{where}: field "src_dataset" must be a non-empty string')
        data.pairs.append(
            LabelledPair(
                evidence=EVIDENCE_SEPARATOR.join(row["references"]),
                claim=row["claim"],
                label=ATTRIBUTIONBENCH_LABELS[key],
                subset=row["src_dataset"].strip(),
                where=where,
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
    """ExpertQA's per-claim human support labels: ``data_path``, or FullCite's pinned file."""
    data = HumanData("expertqa")
    if data_path:
        path, source = _local(data_path)
    else:
        path = expertqa_data_path(flag=DATA_PATH_FLAG)
        source = {**EXPERTQA_HUB.provenance(), **file_provenance(path)}
    data.sources.append(source)
    for line, row in enumerate(load_expertqa(path, flag=DATA_PATH_FLAG), start=1):
        for system, answer in row["answers"].items():
            for i, claim in enumerate(answer.get("claims") or []):
                where = f'{path}:{line}: answers["{system}"]["claims"][{i}]'
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
                if not claim_text or not passages:
                    data.skipped["no claim text or no evidence passage"] += 1
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
                    )
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
    for dataset, system, qid, item in _alce_items(content, path):
        record = f"{path}: {dataset}/{system}/{qid}"
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
            )
            claim = remove_citations(sentence["text"]).strip()
            if docs and claim:
                # eval.py's premise: the cited documents, each "Title: ...\n<text>", one a line.
                entry.recall_pair = len(data.pairs)
                data.pairs.append(
                    LabelledPair(
                        "\n".join(docs), claim, human_recall == 1, f"{group}/recall", where
                    )
                )
                for c, (doc, score) in enumerate(zip(docs, human_cites, strict=True)):
                    entry.citation_pairs.append(len(data.pairs))
                    data.pairs.append(
                        LabelledPair(
                            doc, claim, score >= 1, f"{group}/citation", f"{where}: citations[{c}]"
                        )
                    )
            elif not docs:
                data.skipped["uncited sentence (no pair to judge)"] += 1
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
            if not _text(document) or not claim:
                # The snippet is the model's words: it is never evidence in its document's place.
                data.skipped["no document text or no claim text"] += 1
                continue
            data.pairs.append(
                LabelledPair(
                    evidence=str(document).strip(),
                    claim=claim,
                    label=INCITE_YES_NO[key],
                    subset=str(record.get("source") or "unknown"),
                    where=where,
                )
            )


def load_fullcite_human(data_path: str | None) -> HumanData:
    """The FullCite authors' citation ratings: a folder ``data_path``, or the pinned files."""
    data = HumanData("fullcite-human")
    if data_path:
        folder = Path(data_path)
        if not folder.is_dir():
            raise HumanDataError(
                f"{DATA_PATH_FLAG} {folder}: fullcite-human takes a folder holding "
                f'{INCITE_DATA_NAME} and the ratings (JSON files with a "responses" list)'
            )
        data_file = folder / INCITE_DATA_NAME
        candidates = sorted({*folder.glob("*.json"), *folder.glob("responses/*.json")})
        responses = [p for p in candidates if p != data_file and _responses(p) is not None]
        if not responses:
            raise HumanDataError(
                f"{DATA_PATH_FLAG} {folder}: no ratings file (a JSON object with a "
                '"responses" list) in it'
            )
        data.sources += [file_provenance(p) for p in [data_file, *responses] if p.is_file()]
    else:
        (data_file, source), *rated = [_pinned(pin, "FullCite human eval") for pin in INCITE_FILES]
        responses = [path for path, _ in rated]
        data.sources += [source, *(s for _, s in rated)]
    fullcite_human_pairs(data_file, responses, data)
    return data


# A user's own JSON Lines ------------------------------------------------------------------------


def load_user_jsonl(data_path: str | None) -> HumanData:
    """A user's own labelled pairs (``--data jsonl --data-path FILE``)."""
    if not data_path:
        raise HumanDataError(f"--data jsonl needs {DATA_PATH_FLAG} FILE (the user's own pairs)")
    data = HumanData("jsonl")
    path, source = _local(data_path)
    data.sources.append(source)
    for where, row in read_jsonl(path, "labelled-pairs file", HumanDataError, DATA_PATH_FLAG):
        if not isinstance(row, dict):
            raise HumanDataError(f"{where}: expected a JSON object")
        if not _evidence_list(row.get("evidence")):
            raise HumanDataError(f'{where}: field "evidence" must be a list of strings')
        if not _text(row.get("claim")):
            raise HumanDataError(f'{where}: field "claim" must be a non-empty string')
        if not isinstance(row.get("label"), bool):
            raise HumanDataError(f'{where}: field "label" must be true or false')
        subset = row.get("subset", "all")
        if not _text(subset):
            raise HumanDataError(f'{where}: field "subset" must be a non-empty string')
        data.pairs.append(
            LabelledPair(
                EVIDENCE_SEPARATOR.join(row["evidence"]),
                row["claim"],
                row["label"],
                subset.strip(),
                where,
            )
        )
    return data


LOADERS = {
    "attributionbench": load_attributionbench,
    "expertqa": load_expertqa_support,
    "alce-human": load_alce_human,
    "fullcite-human": load_fullcite_human,
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
