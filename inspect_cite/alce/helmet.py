r"""HELMET's cite ladder on ALCE's ASQA and QAMPARI: settings, files, samples and prompts.

HELMET (Yen et al., ICLR 2025; github princeton-nlp/HELMET) runs ALCE's ASQA and QAMPARI at
five input lengths by showing more of each question's top-2000 GTR passages, with its own
revised demonstrations, a chat template, greedy decoding and 100 questions per dataset. This
module reproduces its ``data.py`` (``load_alce`` + ``load_data``), its configs
(``configs/cite.yaml``, ``cite_short.yaml``, ``alce_nocite.yaml``, ``alce_nocite_short.yaml``;
``helmet_cite.yaml`` was ``cite.yaml``'s name until its commit 35587b8) and the output cleaning
of its ``eval_alce.py``, read at :data:`HELMET_COMMIT`:

- **Settings** (:func:`helmet_settings`): passages per length 30 / 75 / 165 / 345 / 700 for
  8k / 16k / 32k / 64k / 128k tokens; 2 demonstrations (0 in the no-citation control); at most
  300 new tokens (600 without citations); the chat template without a system message; greedy
  decoding, no stop sequence; 100 questions, seed 42.
- **Questions** (:func:`helmet_sample_indices`): HELMET shuffles the whole file with
  ``datasets``' ``shuffle(seed=42)`` (NumPy's ``default_rng(42).permutation``) and keeps the
  first 100, so every length runs the same 100 questions.
- **Demonstrations** (:func:`helmet_demo_draws`): after ``random.seed(42)``, each item of the
  file, in file order, draws ``random.sample(demos, shots)``; an item keeps its draw at every
  length. The demonstration separator is ``"\n\n\n"`` (HELMET does not read the file's
  ``demo_sep``), each demonstration shows all its documents, and documents are formatted with
  Python's ``str.format`` of the file's ``doc_prompt`` (fields of the document, ``ID`` from 1),
  joined by a blank line.
- **Prompt** (:class:`HelmetPromptBuilder`): the user message is the demonstrations, the
  instruction, ``"\n\nQuestion: "`` + question, a blank line and the passages; a raw prompt
  (no chat template) appends ``"\n\nAnswer:"``. Each passage is formatted once and joined once:
  the work is linear in the number of passages.
- **Truncation** (:func:`truncated_context`): HELMET cuts the end of the passages when the
  tokenized prompt exceeds ``input_max_length - generation_max_length`` tokens of the model's
  tokenizer, once, at the start of the token that many tokens from the end.
- **Scoring output** (:func:`helmet_scoring_output`): ``eval_alce.py`` replaces every run of
  newlines by one space instead of keeping eval.py's first line, removes ``<|im_end|>`` and
  does no other cleaning; without a chat template HELMET scores ``"Answer:"`` + the output.
  Its citation recall and precision skip ASQA/ELI5 sentences shorter than
  :data:`HELMET_MIN_STATEMENT_CHARS` characters (:func:`inspect_cite.alce.autoais.citation_scores`'
  ``min_statement_chars``). docs/alce.md, "Long context (HELMET)", lists every difference.

The demonstration files are downloaded from princeton-nlp/HELMET at :data:`HELMET_COMMIT` and
checked against their SHA-256 (never copied into this project); ``INSPECT_CITE_ALCE_PROMPT_DIR``
serves a folder of files with the same names instead, as for ALCE's own prompt files.
"""

import json
import os
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from inspect_cite.alce.items import REQUIRED_FIELDS, item_problems
from inspect_cite.alce.prompts import (
    PROMPT_DIR_ENV,
    PromptFile,
    prompt_dir_override,
)
from inspect_cite.checks.errors import ArgumentError, PreflightError
from inspect_cite.checks.record_check import problems_error
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.hub_files import cached_download, check_dataset_path, file_provenance
from inspect_cite.options.task_options import TaskOptionError, check_choice
from inspect_cite.text.think import strip_think

HELMET_REPO = "princeton-nlp/HELMET"
HELMET_COMMIT = "4526dfbdc512bd9ff721da336bff4e3e75ecfd27"
"""The HELMET commit whose configs, loader, demonstrations and scoring this module follows."""

HELMET_PROMPT_URL = "https://raw.githubusercontent.com/{repo}/{commit}/prompts/{name}.json"

# SHA-256 of prompts/<name>.json at HELMET_COMMIT (unchanged since HELMET's first commit).
HELMET_PROMPT_SHA256: dict[str, str] = {
    "asqa_revised": "99ebb9d7371895dc352a7f9135ef9e84c3757a9d9d4ce2091b4e2b1d7c39299c",
    "asqa_nocite": "512b525835de1d2d610334d31d002ffa9396474ac141c31ad12adec8d121ac8f",
    "qampari_revised": "d73e184ec6d9fd6ba821ea1e537d2dec96be602aa693706862acc1b3d9586104",
    "qampari_nocite": "0f2c2762e5a96031004c4220e3f3c9b65f6359b5fc44187ef687ae7127a8f4a1",
}

HELMET_DATA_REPO = "princeton-nlp/HELMET"
HELMET_DATA_ARCHIVE = "data.tar.gz"
HELMET_DATA_REVISION: str | None = None
"""The hub commit of ``data.tar.gz``: not pinned. Neither its full commit hash nor the archive's
SHA-256 could be read from a source this project can verify (the hub is unreachable here; its
pages show only the short id ``c5b85e7`` of the later README commit). Until both are known the
data is read from a local copy (``-T dataset_path`` or :data:`HELMET_DATA_DIR_ENV`) and the log
records that file's path and SHA-256."""
HELMET_DATA_DIR_ENV = "INSPECT_CITE_HELMET_DATA_DIR"
"""A folder holding HELMET's extracted ``<dataset>_eval_gtr_top2000.json`` files."""

HelmetContext = Literal["8k", "16k", "32k", "64k", "128k"]
"""HELMET's input lengths for the cite task."""
HelmetDataset = Literal["asqa", "qampari"]
"""The ALCE datasets HELMET runs (ELI5 is not part of HELMET)."""

# input length -> (passages shown, HELMET's input_max_length in tokens), from cite_short.yaml
# (8k-64k) and cite.yaml (128k).
CONTEXT_LENGTHS: dict[str, tuple[int, int]] = {
    "8k": (30, 8192),
    "16k": (75, 16384),
    "32k": (165, 32768),
    "64k": (345, 65536),
    "128k": (700, 131072),
}

HELMET_SHOTS = 2
HELMET_NOCITE_SHOTS = 0
HELMET_MAX_TOKENS = 300
HELMET_NOCITE_MAX_TOKENS = 600
HELMET_MAX_TEST_SAMPLES = 100
HELMET_SEED = 42
HELMET_DEMO_SEP = "\n\n\n"
HELMET_DOC_SEP = "\n\n"
HELMET_RAW_ANSWER_PREFIX = "Answer:"
"""Appended (after a blank line) to a raw prompt; prepended to its output before scoring."""
HELMET_MIN_STATEMENT_CHARS = 5
"""eval_alce.py judges no ASQA/ELI5 sentence shorter than this (stripped)."""

ScoringRules = Literal["alce", "helmet"]
"""Which evaluation script a scorer follows: ALCE's ``eval.py`` or HELMET's ``eval_alce.py``."""


class HelmetOptionError(TaskOptionError):
    """A HELMET setting was asked for that HELMET does not have."""


class HelmetDataError(PreflightError, ValueError):
    """HELMET's data or demonstration file is missing, corrupt or malformed."""


class HelmetTokenizerError(PreflightError, ValueError):
    """The tokenizer a HELMET row cuts its passages with cannot be had."""


@dataclass(frozen=True)
class HelmetSettings:
    """Everything HELMET fixes for one dataset at one input length (its config row).

    Attributes:
        dataset: ``asqa`` or ``qampari``.
        context: The input length (``8k`` ... ``128k``).
        nocite: The no-citation control (HELMET's ``alce_nocite*.yaml``).
        ndoc: Passages shown with the question.
        input_max_length: HELMET's token budget for prompt plus answer.
        max_tokens: New tokens at most (HELMET's ``generation_max_length``).
        shots: Demonstrations per prompt.
        max_test_samples: Questions run (the first of the seeded shuffle).
        seed: Seed of the question shuffle and of the demonstration draws.
        chat_template: HELMET sends the prompt through the model's chat template.
        system_message: HELMET's system message (None: no system message).
        temperature: 0: greedy decoding (HELMET's ``do_sample=False``).
        top_p: HELMET's ``top_p``.
        stop_newline: HELMET stops at a newline (False for the cite task).

    """

    dataset: HelmetDataset
    context: HelmetContext
    nocite: bool
    ndoc: int
    input_max_length: int
    max_tokens: int
    shots: int
    max_test_samples: int = HELMET_MAX_TEST_SAMPLES
    seed: int = HELMET_SEED
    chat_template: bool = True
    system_message: str | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    stop_newline: bool = False

    @property
    def helmet_name(self) -> str:
        """HELMET's dataset name for this row (``alce_asqa_165``, ``alce_asqa_nocite_165``)."""
        return f"alce_{self.dataset}{'_nocite' if self.nocite else ''}_{self.ndoc}"

    @property
    def prompt_name(self) -> str:
        """HELMET's demonstration file (``asqa_revised``, ``asqa_nocite``), without ``.json``."""
        return helmet_prompt_name(self.dataset, nocite=self.nocite)

    @property
    def data_file(self) -> str:
        """HELMET's data file for the dataset (``asqa_eval_gtr_top2000.json``)."""
        return helmet_data_file_name(self.dataset)

    def record(self) -> dict[str, Any]:
        """The settings for the log's metadata (``metadata["helmet"]``)."""
        return {
            "commit": HELMET_COMMIT,
            "name": self.helmet_name,
            "context": self.context,
            "nocite": self.nocite,
            "ndoc": self.ndoc,
            "input_max_length": self.input_max_length,
            # HELMET's name: the new tokens its budget keeps free (input_max_length minus
            # this), whatever --max-tokens the run's generate config was given.
            "generation_max_length": self.max_tokens,
            "shots": self.shots,
            "max_test_samples": self.max_test_samples,
            "seed": self.seed,
            "chat_template": self.chat_template,
            "system_message": self.system_message,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "stop_newline": self.stop_newline,
        }


def context_tokens(context: str) -> int:
    """The token budget of an input length (``"32k"`` -> 32768), to order runs by length.

    Raises:
        HelmetOptionError: For a length HELMET does not have.

    """
    check_choice(
        "context", context, HelmetContext, what="HELMET input length", error=HelmetOptionError
    )
    return CONTEXT_LENGTHS[context][1]


def helmet_settings(dataset: str, context: str, *, nocite: bool = False) -> HelmetSettings:
    """HELMET's settings for ``dataset`` at ``context`` (its configs at :data:`HELMET_COMMIT`).

    The no-citation control: HELMET's ``alce_nocite*.yaml`` run only ASQA; QAMPARI's no-citation
    demonstrations (``qampari_nocite.json``) ship with HELMET and are run the same way.

    Raises:
        HelmetOptionError: ``-T context=4k: unknown HELMET input length; use one of ...``, or
            a dataset HELMET does not run.

    """
    check_choice(
        "context", context, HelmetContext, what="HELMET input length", error=HelmetOptionError
    )
    if dataset not in get_args(HelmetDataset):
        raise HelmetOptionError(
            f"-T context={context}: HELMET runs ALCE's asqa and qampari only, not {dataset}"
        )
    ndoc, input_max_length = CONTEXT_LENGTHS[context]
    return HelmetSettings(
        dataset=dataset,  # type: ignore[arg-type]  # checked above
        context=context,  # type: ignore[arg-type]  # checked above
        nocite=nocite,
        ndoc=ndoc,
        input_max_length=input_max_length,
        max_tokens=HELMET_NOCITE_MAX_TOKENS if nocite else HELMET_MAX_TOKENS,
        shots=HELMET_NOCITE_SHOTS if nocite else HELMET_SHOTS,
    )


# --- files -------------------------------------------------------------------------------


def helmet_prompt_name(dataset: str, *, nocite: bool = False) -> str:
    """HELMET's demonstration file for a dataset (``asqa_revised`` or ``asqa_nocite``)."""
    return f"{dataset}_{'nocite' if nocite else 'revised'}"


def official_helmet_prompt_path(name: str) -> Path:
    """HELMET's demonstration file ``name``, from the verified cache or downloaded.

    The cached copy is checked against its pinned SHA-256 on every use; a corrupt copy is
    reported, moved aside and downloaded again.

    Raises:
        HelmetDataError: When the file is not cached and cannot be downloaded.

    """
    if name not in HELMET_PROMPT_SHA256:
        raise HelmetDataError(
            f"unknown HELMET demonstration file {name!r}; known: {sorted(HELMET_PROMPT_SHA256)}"
        )
    sha256 = HELMET_PROMPT_SHA256[name]
    url = HELMET_PROMPT_URL.format(repo=HELMET_REPO, commit=HELMET_COMMIT, name=name)
    dest = cache_dir("alce", "helmet", HELMET_COMMIT[:12]) / f"{name}.json"
    return cached_download(
        url,
        sha256,
        dest,
        error=HelmetDataError,
        what=f"HELMET demonstration file {dest.name}",
        fix=f"Download {url} yourself and pass -T prompt_file=PATH, or copy it to {dest}.",
    )


def helmet_prompt_path(name: str) -> Path:
    """The demonstration file a run reads: from ``INSPECT_CITE_ALCE_PROMPT_DIR``, else HELMET's.

    Raises:
        HelmetDataError: When the file is neither in that folder nor obtainable.

    """
    override = prompt_dir_override()
    if override is None:
        return official_helmet_prompt_path(name)
    path = override / f"{name}.json"
    if not path.is_file():
        raise HelmetDataError(
            f"demonstration file {path} does not exist ({PROMPT_DIR_ENV}={override}); add it, "
            f"or unset {PROMPT_DIR_ENV} to use HELMET's files"
        )
    return path


def load_helmet_prompt_file(
    settings: HelmetSettings, prompt_file: str | None = None
) -> tuple[PromptFile, dict[str, Any]]:
    """The demonstration file for ``settings`` and its provenance for the log.

    Args:
        settings: The HELMET row (its dataset and ``nocite`` name the file).
        prompt_file: A file of one's own in the same format (``-T prompt_file``).

    Raises:
        PromptFileError: When the file is malformed or holds fewer demonstrations than shots.
        HelmetDataError: When HELMET's file cannot be had.

    """
    if prompt_file is not None:
        path: Path = Path(prompt_file)
        flag = "-T prompt_file"
        provenance = None
    else:
        path = helmet_prompt_path(settings.prompt_name)
        flag = PROMPT_DIR_ENV if prompt_dir_override() else "HELMET's official file"
        provenance = None if prompt_dir_override() else _official_provenance(settings.prompt_name)
    loaded = PromptFile.load(path, flag=flag, shot=settings.shots, shot_flag="HELMET's shots")
    return loaded, provenance or file_provenance(path)


def _official_provenance(name: str) -> dict[str, Any]:
    return {
        "repo": HELMET_REPO,
        "commit": HELMET_COMMIT,
        "file": f"prompts/{name}.json",
        "sha256": HELMET_PROMPT_SHA256[name],
    }


def helmet_data_file_name(dataset: str) -> str:
    """HELMET's data file for a dataset: its top-2000 GTR passages per question."""
    return f"{dataset}_eval_gtr_top2000.json"


def helmet_data_path(dataset: str, dataset_path: str | None = None) -> tuple[Path, dict[str, Any]]:
    """HELMET's data file for ``dataset`` and its provenance (``path``, ``sha256``) for the log.

    Read from ``dataset_path``, else from :data:`HELMET_DATA_DIR_ENV`. HELMET's data is not
    downloaded (:data:`HELMET_DATA_REVISION`): without a local copy this says where to get it.

    Raises:
        HelmetDataError: Naming the flag, the archive and the member to extract.

    """
    if dataset_path is not None:
        check_dataset_path(dataset_path, HelmetDataError)
        return Path(dataset_path), file_provenance(dataset_path)
    name = helmet_data_file_name(dataset)
    folder = os.environ.get(HELMET_DATA_DIR_ENV)
    if folder:
        path = Path(folder, name)
        if not path.is_file():
            raise HelmetDataError(f"{HELMET_DATA_DIR_ENV}={folder} but {path} does not exist")
        return path, file_provenance(path)
    url = f"https://huggingface.co/datasets/{HELMET_DATA_REPO}/resolve/main/{HELMET_DATA_ARCHIVE}"
    raise HelmetDataError(
        f"-T context needs HELMET's {name}, which this project does not download: the hub "
        f"revision of {HELMET_DATA_ARCHIVE} is not pinned.\nDownload {url} (11.3 GB), extract "
        f"data/alce/{name}, and pass -T dataset_path=<path to {name}> or set "
        f"{HELMET_DATA_DIR_ENV} to the folder holding it."
    )


def read_helmet_items(path: Path, dataset: str, *, max_docs: int) -> list[dict[str, Any]]:
    """HELMET's data file, every item kept with only its first ``max_docs`` passages.

    Read as HELMET's loader reads it (``datasets``' ``load_dataset("json")``): a JSON list of
    items or JSON Lines, one item per line; and, as the ALCE tasks read their files, ALCE's
    result-file wrapper ``{"args": ..., "data": [items]}``. HELMET's files hold 2,000
    passages per question (twenty times ALCE's); a row shows at most 700. Each item's
    passages are cut as soon as the item is parsed, so the memory held is the file's text and
    the kept passages, not every passage as Python objects. Items are checked as the ALCE
    tasks check them (:mod:`inspect_cite.alce.items`), every problem named at once.

    Raises:
        HelmetDataError: Naming the file, and every item (or line) and field at fault.

    """

    def keep_shown(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        docs = obj.get("docs")
        if "question" in obj and isinstance(docs, list) and len(docs) > max_docs:
            obj["docs"] = docs[:max_docs]
        return obj

    try:
        # utf-8-sig: a byte-order mark (Windows editors) is not data.
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise HelmetDataError(f"dataset file {path}: cannot be read ({e}) (-T dataset_path)") from e
    try:
        data: Any = json.loads(text, object_pairs_hook=keep_shown)
    except json.JSONDecodeError as e:
        if e.msg != "Extra data":
            raise HelmetDataError(
                f"dataset file {path}: cannot be read as JSON or JSON Lines ({e}) (-T dataset_path)"
            ) from e
        data = _json_lines(path, text, keep_shown)
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]  # ALCE's result file (run.py's output): {"args", "data"}
    elif isinstance(data, dict) and "question" in data:
        data = [data]  # JSON Lines of one item
    if not isinstance(data, list) or not data:
        raise HelmetDataError(
            f"dataset file {path}: expected a non-empty JSON list of items, JSON Lines, or "
            '{"data": [items]} (-T dataset_path)'
        )
    problems = [
        problem.at(f"{path}:{i}")
        for i, item in enumerate(data)
        for problem in item_problems(item, REQUIRED_FIELDS[dataset])
    ]
    if problems:
        what = f"{dataset} dataset file {path} (-T dataset_path)"
        raise problems_error(what, problems, HelmetDataError)
    return data


def _json_lines(
    path: Path, text: str, hook: Callable[[list[tuple[str, Any]]], dict[str, Any]]
) -> list[Any]:
    """The items of a JSON Lines file (blank lines skipped); a bad line is named by number."""
    items = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line, object_pairs_hook=hook))
        except json.JSONDecodeError as e:
            raise HelmetDataError(
                f"dataset file {path}:{lineno}: not valid JSON ({e.msg}, column {e.colno}); "
                "read as JSON Lines, one item per line (-T dataset_path)"
            ) from e
    return items


# --- questions and demonstrations ---------------------------------------------------------


def helmet_sample_indices(
    n_items: int, *, seed: int = HELMET_SEED, max_test_samples: int = HELMET_MAX_TEST_SAMPLES
) -> list[int]:
    """The items HELMET runs, in its order: ``datasets``' ``shuffle(seed)``, then the first N.

    ``Dataset.shuffle(seed=s)`` orders the rows by ``numpy.random.default_rng(s).permutation``.
    """
    order = np.random.default_rng(seed).permutation(n_items)
    return [int(i) for i in order[:max_test_samples]]


def helmet_demo_draws(
    n_items: int, n_demos: int, shots: int, *, seed: int = HELMET_SEED
) -> list[list[int]]:
    """The demonstrations (indices into the file's ``demos``) each item of the file shows.

    HELMET seeds Python's global generator, then maps its loader over the file in order and
    each item calls ``random.sample(demos, shots)``: item ``i`` gets the ``i``-th draw. A
    private ``random.Random(seed)`` makes the same draws (``sample`` picks positions from the
    population's length alone) without touching the global generator.
    """
    rng = random.Random(seed)
    return [rng.sample(range(n_demos), shots) for _ in range(n_items)]


# --- prompts ------------------------------------------------------------------------------


def format_doc(doc_prompt: str, doc: Mapping[str, Any], number: int) -> str:
    """One passage as HELMET formats it: ``doc_prompt.format(**doc, ID=number)``.

    Raises:
        HelmetDataError: When the document lacks a field the template names, or has an
            ``ID`` field of its own (HELMET would stop with the same fault).

    """
    try:
        return doc_prompt.format(**doc, ID=number)
    except (KeyError, TypeError, IndexError, ValueError) as e:
        raise HelmetDataError(
            f"document {number}: cannot fill the doc_prompt {doc_prompt!r} ({e!r})"
        ) from e


def format_docs(doc_prompt: str, docs: Sequence[Mapping[str, Any]]) -> str:
    """Passages numbered from 1, joined by a blank line (each formatted once: linear work)."""
    return HELMET_DOC_SEP.join(format_doc(doc_prompt, doc, i) for i, doc in enumerate(docs, 1))


class HelmetPromptBuilder:
    """Builds HELMET's prompts for one run: every demonstration once, then one block per item.

    Args:
        prompt_file: HELMET's demonstration file (``asqa_revised.json`` or the like).
        ndoc: Passages shown with each question.

    """

    def __init__(self, prompt_file: PromptFile, *, ndoc: int) -> None:
        self.prompt_file = prompt_file
        self.ndoc = ndoc
        # A demonstration shows all its documents, whatever ndoc is.
        self.demos = [self._demo(demo) for demo in prompt_file.demos]

    def _demo(self, demo: Mapping[str, Any]) -> str:
        pf = self.prompt_file
        try:
            return pf.demo_prompt.format(
                **demo,
                instruction=pf.instruction,
                context=format_docs(pf.doc_prompt, demo.get("docs", [])),
            )
        except (KeyError, TypeError, IndexError, ValueError) as e:
            raise HelmetDataError(
                f"prompt file {pf.source}: cannot fill demo_prompt with a demonstration ({e!r})"
            ) from e

    def demo_text(self, demo_ids: Sequence[int]) -> str:
        """The demonstrations shown before the instruction (each followed by the separator)."""
        return "".join(self.demos[i] + HELMET_DEMO_SEP for i in demo_ids)

    def context(self, item: Mapping[str, Any]) -> str:
        """The passages of an item as HELMET shows them (the first ``ndoc``)."""
        return format_docs(self.prompt_file.doc_prompt, item["docs"][: self.ndoc])

    def user_message(
        self, item: Mapping[str, Any], demo_ids: Sequence[int], context: str | None = None
    ) -> str:
        """HELMET's user message (``user_template``) for an item.

        Args:
            item: ``question`` and ``docs``.
            demo_ids: The demonstrations it shows (:func:`helmet_demo_draws`).
            context: The passages, when already formatted (or truncated); default
                :meth:`context`.

        """
        passages = self.context(item) if context is None else context
        return (
            f"{self.demo_text(demo_ids)}{self.prompt_file.instruction}\n\n"
            f"Question: {item['question']}\n\n{passages}"
        )

    def raw_prompt(
        self, item: Mapping[str, Any], demo_ids: Sequence[int], context: str | None = None
    ) -> str:
        """HELMET's prompt without a chat template (``prompt_template``): ends ``Answer:``."""
        return f"{self.user_message(item, demo_ids, context)}\n\n{HELMET_RAW_ANSWER_PREFIX}"


def truncated_context(
    context: str,
    *,
    prompt_tokens: int,
    context_token_starts: Sequence[int],
    max_length: int,
    max_tokens: int,
) -> str:
    """The passages HELMET keeps when the prompt is over its token budget.

    HELMET's ``tokenize``: when the prompt (chat template applied) has more than
    ``max_length - max_tokens`` tokens, the passages are tokenized alone (special tokens
    added) and cut at the start of the token ``excess`` tokens from their end; the prompt is
    then rebuilt once, not measured again.

    Args:
        context: The passages (:meth:`HelmetPromptBuilder.context`).
        prompt_tokens: Tokens of the whole prompt.
        context_token_starts: Character offset where each token of ``context`` starts.
        max_length: HELMET's ``input_max_length``.
        max_tokens: HELMET's ``generation_max_length``.

    Raises:
        HelmetDataError: When the excess is more than the passages' tokens (HELMET fails too).

    """
    excess = prompt_tokens - (max_length - max_tokens)
    if excess <= 0:
        return context
    if excess > len(context_token_starts):
        raise HelmetDataError(
            f"the prompt is {prompt_tokens} tokens, {excess} over HELMET's budget of "
            f"{max_length} - {max_tokens}, more than the passages' {len(context_token_starts)}"
        )
    return context[: context_token_starts[-excess]]


def hf_truncated_context(
    tokenizer: Any,
    builder: HelmetPromptBuilder,
    item: Mapping[str, Any],
    demo_ids: Sequence[int],
    settings: HelmetSettings,
) -> str:
    """The passages HELMET's ``tokenize`` (its HF and vLLM models) keeps, with ``tokenizer``.

    The prompt is the user message through ``tokenizer.apply_chat_template`` (generation
    prompt added, no system message), tokenized without special tokens; without a chat
    template, the raw prompt with special tokens. Over the budget, a fast tokenizer's cut is
    :func:`truncated_context` (the passages tokenized with their offsets); a slow one's, as
    HELMET's, the decoded passage tokens less the excess (special tokens kept).
    """
    context = builder.context(item)
    if settings.chat_template:
        chat = [{"role": "user", "content": builder.user_message(item, demo_ids, context)}]
        text = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        n = len(tokenizer([text], add_special_tokens=False)["input_ids"][0])
    else:
        n = len(tokenizer([builder.raw_prompt(item, demo_ids, context)])["input_ids"][0])
    if n <= settings.input_max_length - settings.max_tokens:
        return context
    if not getattr(tokenizer, "is_fast", True):
        ids = tokenizer(context)["input_ids"]
        excess = n - (settings.input_max_length - settings.max_tokens)
        return str(tokenizer.decode(ids[:-excess]))
    offsets = tokenizer([context], return_offsets_mapping=True)["offset_mapping"][0]
    return truncated_context(
        context,
        prompt_tokens=n,
        context_token_starts=[start for start, _ in offsets],
        max_length=settings.input_max_length,
        max_tokens=settings.max_tokens,
    )


_TEXT_MARK = "\x00helmet-text\x00"


def _text_start(doc_prompt: str, doc: Mapping[str, Any], number: int) -> int | None:
    """Where the passage's ``text`` starts in its formatted form (None: the template has none)."""
    try:
        marked = doc_prompt.format(**{**doc, "text": _TEXT_MARK}, ID=number)
    except (KeyError, TypeError, IndexError, ValueError):
        return None
    at = marked.find(_TEXT_MARK)
    return None if at < 0 else at


@dataclass(frozen=True)
class ShownPassages:
    """Which of an item's passages a (possibly cut) prompt showed.

    Attributes:
        count: Passages the model saw some text of, from the first (the others were cut).
        partial_text: The text shown of the last of them, when the cut fell inside its text
            (None: every passage counted was shown whole).

    """

    count: int
    partial_text: str | None = None


def shown_passages(
    doc_prompt: str, docs: Sequence[Mapping[str, Any]], shown: str, *, bos: str | None = None
) -> ShownPassages:
    """The passages of ``docs`` that ``shown`` (the passages as the prompt holds them) shows.

    ``shown`` is the formatted passages (:func:`format_docs`) or a cut of them: a prefix (a
    fast tokenizer's cut), or a decoded prefix that may open with the tokenizer's ``bos``
    string and differ where decoding normalised text (a slow tokenizer's): what the model saw
    is the longest common start. A passage of which only its label or title was shown
    counts as not seen.
    """
    if bos and shown.startswith(bos):
        shown = shown[len(bos) :]
    full = format_docs(doc_prompt, docs)
    if shown == full:
        return ShownPassages(len(docs))
    if full.startswith(shown):
        kept = len(shown)  # a fast tokenizer's cut
    else:
        kept = 0
        limit = min(len(shown), len(full))
        while kept < limit and shown[kept] == full[kept]:
            kept += 1
    start = 0
    for number, doc in enumerate(docs, 1):
        formatted = format_doc(doc_prompt, doc, number)
        end = start + len(formatted)
        if kept >= end:
            start = end + len(HELMET_DOC_SEP)
            continue
        at = _text_start(doc_prompt, doc, number)
        text = str(doc.get("text", ""))
        if at is None:
            return ShownPassages(number - 1)
        seen = text[: max(0, kept - start - at)]
        if not seen.strip():
            return ShownPassages(number - 1)
        return ShownPassages(number, None if seen == text else seen)
    return ShownPassages(len(docs))


HELMET_TOKENIZER_PROVIDERS = ("hf", "vllm")
"""Inspect providers whose model's own Hugging Face tokenizer a HELMET row cuts with (HELMET's
HF and vLLM models; its API models count tokens their own ways)."""

TOKENIZER_FIX = "pass -T tokenizer=<the model's Hugging Face tokenizer: a hub id or a folder>"


@dataclass(frozen=True)
class HelmetTokenizer:
    """The tokenizer a HELMET row cuts its passages with, and what the log says of it.

    Attributes:
        tokenizer: A Hugging Face tokenizer, or None when nothing is cut.
        name: Where it was loaded from: its folder or hub id (``name_or_path``), else
            ``-T tokenizer``'s value or the model's name.
        reason: Why nothing is cut (no tokenizer), for the log.

    """

    tokenizer: Any
    name: str | None
    reason: str | None = None


def _load_tokenizer(name: str, *, what: str) -> Any:
    """``AutoTokenizer.from_pretrained(name)``: the cache first, the hub only when it answers.

    Raises:
        HelmetTokenizerError: ``<what>=<name>: cannot be loaded (<why>); <fix>``.

    """
    from transformers import AutoTokenizer

    from inspect_cite.checks.models import looks_like_path
    from inspect_cite.checks.network import ensure_hub_reachable, short_error
    from inspect_cite.checks.tokenizers import checked_tokenizer_problem

    # Checked first, as LongBench-Cite's tokenizer is: transformers' own failure (offline, an
    # uncached id) is several lines of OSError text, not one line naming the fix.
    problem = checked_tokenizer_problem(name)
    if problem is not None:
        raise HelmetTokenizerError(f"{what}={name}: {problem}; {TOKENIZER_FIX}")
    try:
        try:
            return AutoTokenizer.from_pretrained(name, local_files_only=True)
        except Exception:
            if looks_like_path(name):
                raise
        # Not cached: the hub client would retry an unreachable host for minutes.
        ensure_hub_reachable()
        return AutoTokenizer.from_pretrained(name)
    except Exception as e:
        raise HelmetTokenizerError(
            f"{what}={name}: its tokenizer cannot be loaded ({short_error(e)}); {TOKENIZER_FIX}"
        ) from e


def helmet_tokenizer(tokenizer: str | None, settings: HelmetSettings) -> HelmetTokenizer:
    """The tokenizer HELMET's row cuts the passages with: ``-T tokenizer``, else the model's.

    The model's own is the one Inspect's ``hf/`` provider loaded, or a ``vllm/`` model's
    (loaded from its name). A model served by another provider, or not known while the task
    is built (a task built in Python and then given to ``eval()``), needs ``-T tokenizer``:
    HELMET cuts every row, and an uncut prompt is not HELMET's. Inspect's ``mockllm/`` (what
    ``inspect-cite check`` builds with) has none: nothing is cut, and the log says so. With
    HELMET's chat template the tokenizer must have one.

    Raises:
        HelmetTokenizerError: One line naming ``-T tokenizer`` (or the model) and the fix.

    """
    from inspect_ai.model import ModelName

    from inspect_cite.checks.run import declared_model_name, eval_model

    flag = f"-T context={settings.context}"
    budget = f"{settings.input_max_length:,} - {settings.max_tokens} tokens"
    if tokenizer is not None:
        loaded, name = _load_tokenizer(tokenizer, what="-T tokenizer"), tokenizer
    else:
        # `inspect-cite check --model X` builds with a stand-in and declares X: X's provider
        # is checked, and its tokenizer loaded from its name (never its weights).
        declared = declared_model_name()
        model = declared if declared is not None else eval_model()
        if model is None:
            raise HelmetTokenizerError(
                f"{flag}: HELMET cuts the passages to {budget} of the model's tokenizer, and "
                f"the model is not known while the task is built (a task built in Python): "
                f"{TOKENIZER_FIX}"
            )
        model_name = ModelName(model)
        if model_name.api == "mockllm":
            return HelmetTokenizer(None, None, "mockllm/ has no tokenizer: passages not cut")
        if model_name.api not in HELMET_TOKENIZER_PROVIDERS:
            raise HelmetTokenizerError(
                f"{flag}: HELMET cuts the passages to {budget} of the model's tokenizer, and "
                f"{model_name} is served by {model_name.api}/, whose tokenizer is not here: "
                f"{TOKENIZER_FIX}"
            )
        api = getattr(model, "api", None)
        name = str(getattr(api, "base_model", None) or model_name.name)
        loaded = getattr(api, "tokenizer", None)
        if loaded is None:
            loaded = _load_tokenizer(name, what=f"--model {model_name}")
    if settings.chat_template and not getattr(loaded, "chat_template", None):
        raise HelmetTokenizerError(
            f"{flag}: the tokenizer of {name} has no chat template, which HELMET's cite rows "
            f"send the prompt through; {TOKENIZER_FIX}"
        )
    # Where the tokenizer was loaded from (a provider's `-M model_path` folder, not the
    # model's name): what the log records.
    return HelmetTokenizer(loaded, str(getattr(loaded, "name_or_path", None) or name))


@dataclass(frozen=True)
class HelmetItem:
    """One question HELMET runs, with what it is shown.

    Attributes:
        index: Its position in the data file.
        item: The item (its ``docs`` cut to the ``ndoc`` passages of the row).
        demo_ids: The demonstrations it shows (indices into the file's ``demos``).
        prompt: The user message (or the raw prompt without a chat template).
        shown: The passages the prompt shows (fewer than ``ndoc`` when the token budget cut
            it).

    """

    index: int
    item: dict[str, Any]
    demo_ids: list[int]
    prompt: str
    shown: ShownPassages


def helmet_items(
    items: Sequence[Mapping[str, Any]],
    prompt_file: PromptFile,
    settings: HelmetSettings,
    *,
    context_of: Callable[[HelmetPromptBuilder, Mapping[str, Any], list[int]], str] | None = None,
    bos: str | None = None,
) -> list[HelmetItem]:
    """The questions HELMET runs for ``settings``, in its order, with their prompts.

    Args:
        items: The whole data file, in file order (the draws depend on every position).
        prompt_file: The demonstration file.
        settings: The HELMET row.
        context_of: Returns an item's passages (e.g. truncated with the model's tokenizer,
            :func:`hf_truncated_context`); default: all ``ndoc`` passages.
        bos: The tokenizer's start-of-text string, which a slow tokenizer's cut opens with.

    """
    builder = HelmetPromptBuilder(prompt_file, ndoc=settings.ndoc)
    draws = helmet_demo_draws(
        len(items), len(prompt_file.demos), settings.shots, seed=settings.seed
    )
    chosen = helmet_sample_indices(
        len(items), seed=settings.seed, max_test_samples=settings.max_test_samples
    )
    out = []
    for i in chosen:
        item = items[i]
        docs = list(item["docs"][: settings.ndoc])
        context = None if context_of is None else context_of(builder, item, draws[i])
        shown = (
            ShownPassages(len(docs))
            if context is None
            else shown_passages(prompt_file.doc_prompt, docs, context, bos=bos)
        )
        build = builder.user_message if settings.chat_template else builder.raw_prompt
        out.append(
            HelmetItem(
                index=i,
                item={**item, "docs": docs},
                demo_ids=draws[i],
                prompt=build(item, draws[i], context),
                shown=shown,
            )
        )
    return out


def helmet_evidence(
    metadata: Mapping[str, Any],
) -> tuple[Literal["prompt"] | dict[str, list[str]], dict[str, str]]:
    """How a HELMET sample's passages were seen, for its evidence record.

    Every passage of ``metadata["docs"]`` was shown (``"prompt"``), unless the token budget
    cut the prompt: then only the first ``metadata["helmet"]["passages_shown"]`` were, the
    last of them possibly in part (``metadata["helmet"]["partial_text"]``: the text shown).

    Returns:
        ``via`` and ``texts`` for :func:`inspect_cite.evidence.record.record_evidence`.

    """
    helmet = metadata.get("helmet")
    docs = metadata.get("docs")
    if not isinstance(helmet, Mapping) or not isinstance(docs, list):
        return "prompt", {}
    count = helmet.get("passages_shown")
    if not isinstance(count, int) or count >= len(docs):
        return "prompt", {}
    seen = [str(doc["id"]) for doc in docs[:count] if isinstance(doc, Mapping) and "id" in doc]
    texts = {}
    partial = helmet.get("partial_text")
    if seen and isinstance(partial, str):
        texts[seen[-1]] = partial
    return {doc_id: ["prompt"] for doc_id in seen}, texts


# --- scoring ------------------------------------------------------------------------------

_NEWLINES = re.compile(r"\n+")


def helmet_scoring_output(
    text: str, *, prompt_opened: bool | None = None, raw_prompt: bool = False
) -> str:
    """The output as HELMET's ``eval_alce.py`` scores it.

    The reasoning a thinking model starts with is removed (HELMET's ``--thinking``), every run
    of newlines becomes one space and ``<|im_end|>`` is removed; nothing is stripped and no
    trailing ``End.`` is removed (eval.py's first-line cut and run.py's cleaning are not
    applied). Without a chat template HELMET scores ``"Answer:"`` + the output.
    """
    answer = strip_think(text, prompt_opened=prompt_opened)
    if raw_prompt:
        answer = HELMET_RAW_ANSWER_PREFIX + answer
    return _NEWLINES.sub(" ", answer).replace("<|im_end|>", "")


def check_rules(rules: str, *, who: str) -> None:
    """Refuse a ``rules`` argument that names no evaluation script.

    Raises:
        ArgumentError: ``citation_nli: rules must be alce or helmet, got 'x'``.

    """
    if rules not in get_args(ScoringRules):
        raise ArgumentError(
            f"{who}: rules must be {' or '.join(get_args(ScoringRules))}, got {rules!r}"
        )


def scoring_output(
    text: str,
    rules: ScoringRules,
    metadata: Mapping[str, Any],
    *,
    prompt_opened: bool | None = None,
) -> str:
    """The output a scorer reads: eval.py's first line (``alce``) or eval_alce.py's (``helmet``).

    Under ``helmet`` a sample built without a chat template (``metadata["helmet"]
    ["chat_template"]`` false) is scored as ``"Answer:"`` + its output, as HELMET does.
    """
    if rules == "helmet":
        helmet = metadata.get("helmet")
        raw = isinstance(helmet, Mapping) and helmet.get("chat_template") is False
        return helmet_scoring_output(text, prompt_opened=prompt_opened, raw_prompt=raw)
    return alce_scoring_output(text, prompt_opened=prompt_opened)
