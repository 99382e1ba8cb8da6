r"""ALCE's official prompt files and ALCE's prompt construction (run.py / utils.py).

Kept in the shared core because tasks build VANILLA's prompt and the baseline solvers
(CLOSEDBOOK, SUMM/SNIPPET, INTERACT, INLINESEARCH) build their own variant from a sample's
question and documents (``alce_tasks.strategies.STRATEGIES`` says which builds which).

The prompt files are fetched from princeton-nlp/ALCE at a pinned commit and checked against
SHA-256 sums, never copied into this project. ``INSPECT_CITE_ALCE_PROMPT_DIR`` names a folder of
ALCE-format files (``<dataset>_<variant>.json``) to read instead, for every task and solver of a
run (the log then records each file's path and hash instead of ALCE's commit).

Construction reproduces run.py byte for byte: sequential placeholder replacement, the
``"Answer:"`` + answer concatenation without a space, ``"{D}\\n"`` deletion when no
documents are shown, and the summary/extraction filtering.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from inspect_cite.alce.items import demo_problem
from inspect_cite.benchmarks.alce import AlceDatasetName
from inspect_cite.checks.errors import ArgumentError, PreflightError
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.hub_files import cached_download, file_provenance

# ALCE's run.py sends this system message to chat models.
ALCE_SYSTEM_MESSAGE = (
    "You are a helpful assistant that answers the following questions with proper citations."
)

ALCE_REPO = "princeton-nlp/ALCE"
ALCE_PROMPT_COMMIT = "246c476a4edfc564266b7346b6e29ef4861ae937"
ALCE_PROMPT_URL = "https://raw.githubusercontent.com/{repo}/{commit}/prompts/{name}.json"
PROMPT_DIR_ENV = "INSPECT_CITE_ALCE_PROMPT_DIR"

TASK_PROMPT_KEY = "alce_prompt"
"""The ``Sample.metadata`` key of the prompt an ALCE task built (run.py's), which its solver sends.

The sample's input is the item's question, so that Inspect's sample list tells the samples
apart (every prompt begins with the same instruction and demonstrations)."""


def check_dataset_argument(dataset: str | None, *, who: str) -> None:
    """Refuse a solver's or scorer's ``dataset`` argument that names no ALCE dataset.

    Raises:
        ArgumentError: Naming ``who`` and the choices.

    """
    if dataset is not None and dataset not in get_args(AlceDatasetName):
        raise ArgumentError(
            f"{who}: dataset must be one of {', '.join(get_args(AlceDatasetName))} (or left out, "
            f"to read metadata['dataset']), got {dataset!r}"
        )


PromptVariant = Literal[
    "default", "light_inst", "closedbook", "sum_or_ext", "interact_doc_id", "interact_search"
]
UseShorter = Literal["summary", "extraction"]

# SHA-256 of prompts/<name>.json at ALCE_PROMPT_COMMIT.
PROMPT_SHA256: dict[str, str] = {
    "asqa_closedbook": "c0f7eb01e9dcd698e88cce9740bed278b2386ed39e23398c0359f217c464e852",
    "asqa_default": "a5d1085a4745897d34138b8b3d9781dafaa9e8b8ff00140c4521d43ba8c7b5c1",
    "asqa_interact_doc_id": "1d587daac5f9170eec4d4d7802eb071b606b01b9be5e502921d0b39d95c7ad88",
    "asqa_interact_search": "e8eb0f94bfe4c3ac375e9641186891ed7f824dc2a0bac506ed5f0d36bc57c422",
    "asqa_light_inst": "2ef85f34e0b88b871644852713750299acd325289fb64856a8f9baf561da8293",
    "asqa_sum_or_ext": "98cb243542e56409c42ae3f1f4c94bd17ad441425b95355ad662ed6de9a81c75",
    "eli5_closedbook": "b3d87b7448ef1e65e94078b5449eba514105f75073fde51d5689674b18cc068b",
    "eli5_default": "0c00ba7f9e790325201465a0783927e9c0a8a57032485ca90f2009f4390fd7cc",
    "eli5_interact_doc_id": "4afc22681b03ddb773a1e86fdcc3aae754ac065df6021240e9fd8a57460c345b",
    "eli5_interact_search": "80a9d626b629fed871ec2580e17e0f84ef7c2924d8e7e79a51345b4e40d05528",
    "eli5_light_inst": "1304750b8c4016eea6fd114091b094db6cd20f1d16ddb46cfe4e19ba6ac1e22e",
    "eli5_sum_or_ext": "e5266cdf2e63d7ac71289646937105c95165168771b233d1f1f5520f5e813561",
    "qampari_closedbook": "3d1f4c5a461f347a5ed9a5676926e26682e5e62b79f3128ab9ffc3c5b06213e7",
    "qampari_default": "5785af9382fe33afcf83855d2ec4caca974effdd8350091a4145035abe98a87c",
    "qampari_interact_doc_id": "281389e080a591e569899aea18b73ec6f357af132178ad3c4dc1ccd2fdc1cf7f",
    "qampari_interact_search": "4aeaa03b28460e65dd538ae254a4dff14d816be1f9ad509110bc9e0ca271ea5e",
    "qampari_light_inst": "6aa820f5a26a0e8c76e7a0eecabe86635091cad3c4140245fcf8175fd66277ad",
    "qampari_sum_or_ext": "fde9a740a3d9f025202090c63e3f2d8a69e58b002cd7dc80476ded3596ea31b0",
}

_REQUIRED_FIELDS = ("instruction", "demo_sep", "demo_prompt", "doc_prompt", "demos")


class PromptFileError(PreflightError, ValueError):
    """A prompt file is missing, unreadable or malformed."""


@dataclass(frozen=True)
class PromptFile:
    """The contents of an ALCE prompt file."""

    instruction: str
    demo_sep: str
    demo_prompt: str
    doc_prompt: str
    demos: list[dict[str, Any]]
    source: str

    @classmethod
    def load(
        cls,
        path: str | Path,
        flag: str = "-T prompt_file",
        shot: int | None = None,
        shot_flag: str = "shot",
    ) -> "PromptFile":
        """Read and validate a prompt file, naming the file, every problem and the flag.

        Args:
            path: The file.
            flag: Where the user named it (``-T prompt_file``, ``-S prompt_file`` or
                ``INSPECT_CITE_ALCE_PROMPT_DIR``), for the message.
            shot: Demonstrations the run draws from it, checked with the fields.
            shot_flag: How the user gave ``shot`` (``-T shot``), for the message.

        Raises:
            PromptFileError: Listing every problem of the file at once.

        """
        path = Path(path)
        data = read_json(path, "prompt file", PromptFileError, flag=flag)
        problems = prompt_file_problems(data)
        demos = data.get("demos") if isinstance(data, dict) else None
        if shot is not None and isinstance(demos, list):
            problem = shot_problem(shot, len(demos), shot_flag)
            if problem is not None:
                problems.append(problem)
        if problems:
            raise PromptFileError(f"prompt file {path}: {'; '.join(problems)} ({flag})")
        return cls(
            instruction=data["instruction"],
            demo_sep=data["demo_sep"],
            demo_prompt=data["demo_prompt"],
            doc_prompt=data["doc_prompt"],
            demos=data["demos"],
            source=str(path),
        )


def prompt_file_problems(data: Any) -> list[str]:
    """Everything that keeps a parsed prompt file from being used ([] when nothing does).

    The format (docs/alce.md, "Prompt files"): a JSON object with the strings
    ``instruction``, ``demo_sep``, ``demo_prompt``, ``doc_prompt`` and the list ``demos``.
    """
    if not isinstance(data, dict):
        return [f"expected a JSON object with the fields {', '.join(_REQUIRED_FIELDS)}"]
    missing = [key for key in _REQUIRED_FIELDS if key not in data]
    problems = []
    if missing:
        fields = ", ".join(f'"{key}"' for key in missing)
        problems.append(f"missing field{'s' if len(missing) > 1 else ''} {fields}")
    for key in _REQUIRED_FIELDS[:-1]:
        if key in data and not isinstance(data[key], str):
            problems.append(f'field "{key}" must be a string')
    demos = data.get("demos")
    if "demos" in data and not isinstance(demos, list):
        problems.append('field "demos" must be a list')
    elif isinstance(demos, list):
        # Demonstrations show documents only where the demo prompt has a {D} slot.
        demo_prompt = data.get("demo_prompt")
        needs_docs = isinstance(demo_prompt, str) and "{D}" in demo_prompt
        for i, demo in enumerate(demos):
            problem = demo_problem(demo, needs_docs)
            if problem is not None:
                problems.append(f"demos[{i}] {problem}")
    return problems


def prompt_name(dataset: AlceDatasetName, variant: PromptVariant) -> str:
    """The official prompt file name for a dataset and variant (without ``.json``)."""
    return f"{dataset}_{variant}"


def official_prompt_path(name: str, flag: str = "-T prompt_file") -> Path:
    """Return the cached official prompt file, downloading and verifying it if needed.

    Args:
        name: The file's name without ``.json`` (``asqa_default``).
        flag: The option that gives a file of one's own instead, for the message: ``-T
            prompt_file`` for a task, ``-S prompt_file`` for a solver on a task of one's own.

    Raises:
        PromptFileError: When the file is not cached and cannot be downloaded.

    """
    if name not in PROMPT_SHA256:
        raise PromptFileError(f"unknown ALCE prompt file {name!r}; known: {sorted(PROMPT_SHA256)}")
    return PROMPT_FILES.fetch(ALCE_PROMPT_URL, name, PROMPT_SHA256[name], flag=flag)


@dataclass(frozen=True)
class PinnedAlceFiles:
    """One folder of princeton-nlp/ALCE, fetched at the pinned commit into a verified cache."""

    folder: str
    """The folder in the repository and in the cache (``prompts``)."""

    suffix: str
    """The files' suffix (``.json``)."""

    what: str
    """What a file is, for messages (``ALCE prompt file``)."""

    flag: str
    """The ``-T`` option that gives a local file instead (``-T prompt_file``)."""

    error: Callable[[str], Exception]
    """Builds the exception raised when a file cannot be had."""

    def fetch(self, url: str, name: str, sha256: str, flag: str | None = None) -> Path:
        """The file ``name``, from the verified cache or downloaded.

        The cached copy is checked against ``sha256`` on every use; a corrupt one is
        reported and moved aside, then fetched again.

        Args:
            url: Where files are downloaded from, with ``{repo}``, ``{commit}`` and ``{name}``.
            name: The file's name without the suffix.
            sha256: Its pinned SHA-256.
            flag: The option the message names instead of :attr:`flag` (``-S prompt_file``).

        Raises:
            Exception: ``error(...)`` naming the file, why, the URL and the fix.

        """
        url = url.format(repo=ALCE_REPO, commit=ALCE_PROMPT_COMMIT, name=name)
        dest = cache_dir("alce", self.folder, ALCE_PROMPT_COMMIT[:12]) / f"{name}{self.suffix}"
        return cached_download(
            url,
            sha256,
            dest,
            error=self.error,
            what=f"{self.what} {dest.name}",
            fix=f"Download {url} yourself and pass {flag or self.flag}=PATH, or copy it to {dest}.",
        )


PROMPT_FILES = PinnedAlceFiles(
    "prompts", ".json", "ALCE prompt file", "-T prompt_file", PromptFileError
)


def prompt_dir_override() -> Path | None:
    """The folder ``INSPECT_CITE_ALCE_PROMPT_DIR`` names, or ``None`` when it is unset."""
    value = os.environ.get(PROMPT_DIR_ENV, "")
    return Path(value) if value else None


def alce_prompt_path(name: str, flag: str = "-T prompt_file") -> Path:
    """The prompt file ``name`` (e.g. ``asqa_default``) a run reads.

    From ``INSPECT_CITE_ALCE_PROMPT_DIR`` when it is set, else ALCE's official file
    (:func:`official_prompt_path`; ``flag`` is the option its message offers instead).

    Raises:
        PromptFileError: When the file is neither in that folder nor obtainable.

    """
    override = prompt_dir_override()
    if override is None:
        return official_prompt_path(name, flag=flag)
    path = override / f"{name}.json"
    if not path.is_file():
        raise PromptFileError(
            f"prompt file {path} does not exist ({PROMPT_DIR_ENV}={override}); add it, "
            f"or unset {PROMPT_DIR_ENV} to use ALCE's official prompt files"
        )
    return path


def load_prompt_file(
    dataset: AlceDatasetName,
    variant: PromptVariant,
    prompt_file: str | None = None,
    flag: str = "-T prompt_file",
    shot: int | None = None,
    shot_flag: str = "shot",
) -> PromptFile:
    """The prompt file a run reads for a dataset's variant: ``prompt_file``, else ALCE's.

    Args:
        dataset: The ALCE dataset.
        variant: The prompt variant.
        prompt_file: The user's own file, named by ``flag``.
        flag: How the user named ``prompt_file`` (``-T prompt_file`` or ``-S prompt_file``).
        shot: Demonstrations the run draws from it (checked with its fields), given by
            ``shot_flag``.
        shot_flag: How the user gave ``shot``.

    Raises:
        PromptFileError: When the file cannot be had, or is not a valid ALCE prompt file.

    """
    if prompt_file is None:
        # A file that cannot be had is refused offering the user's own through `flag`.
        path: str | Path = alce_prompt_path(prompt_name(dataset, variant), flag=flag)
        flag = PROMPT_DIR_ENV if prompt_dir_override() else "ALCE's official file"
    else:
        path = prompt_file
    return PromptFile.load(path, flag=flag, shot=shot, shot_flag=shot_flag)


def prompt_provenance(
    dataset: AlceDatasetName, variant: PromptVariant, prompt_file: str | None = None
) -> dict[str, Any]:
    """Where the prompt file :func:`load_prompt_file` reads comes from, for the log."""
    if prompt_file is not None:
        return file_provenance(prompt_file)
    name = prompt_name(dataset, variant)
    if prompt_dir_override() is not None:
        return file_provenance(alce_prompt_path(name))
    return {
        "commit": ALCE_PROMPT_COMMIT,
        "file": f"prompts/{name}.json",
        "sha256": PROMPT_SHA256[name],
    }


def make_doc_prompt(
    doc: dict[str, Any], doc_id: int, doc_prompt: str, use_shorter: str | None = None
) -> str:
    """One document block, as ALCE's ``make_doc_prompt`` (sequential replacement kept)."""
    text = doc["text"] if use_shorter is None else doc[use_shorter]
    return (
        doc_prompt.replace("{T}", doc["title"])
        .replace("{P}", text)
        .replace("{ID}", str(doc_id + 1))
    )


def shorter_docs(docs: list[dict[str, Any]], ndoc: int, key: str) -> list[dict[str, Any]]:
    """ALCE's ``get_shorter_text``: walk docs in order, skip "irrelevant" summaries/extractions.

    A document without ``key`` stops the walk; when nothing was kept yet, it is kept with its full
    text standing in for ``key`` (ALCE writes ``item[key] = item["text"]``; here on a copy).
    """
    kept: list[dict[str, Any]] = []
    for doc in docs:
        if key not in doc:
            if not kept:
                kept.append({**doc, key: doc["text"]})
            break
        if "irrelevant" in doc[key] or "Irrelevant" in doc[key]:
            continue
        kept.append(doc)
        if len(kept) >= ndoc:
            break
    return kept


def shown_docs(
    docs: list[dict[str, Any]], ndoc: int, use_shorter: str | None
) -> list[dict[str, Any]]:
    """The documents ALCE puts in the prompt (and keeps for scoring) for one item."""
    return shorter_docs(docs, ndoc, use_shorter) if use_shorter is not None else docs[:ndoc]


def make_demo(
    item: dict[str, Any],
    prompt: str,
    ndoc: int,
    doc_prompt: str,
    instruction: str,
    use_shorter: str | None = None,
    test: bool = False,
) -> str:
    """One demonstration or the test block, as ALCE's ``make_demo``."""
    prompt = prompt.replace("{INST}", instruction).replace("{Q}", item["question"])
    if "{D}" in prompt:
        if ndoc == 0:
            prompt = prompt.replace("{D}\n", "")
        else:
            doc_list = shown_docs(item["docs"], ndoc, use_shorter)
            text = "".join(
                make_doc_prompt(doc, doc_id, doc_prompt, use_shorter=use_shorter)
                for doc_id, doc in enumerate(doc_list)
            )
            prompt = prompt.replace("{D}", text)
    if not test:
        answer = item["answer"]
        answer = "\n" + "\n".join(answer) if isinstance(answer, list) else answer
        return prompt.replace("{A}", "").rstrip() + answer
    return prompt.replace("{A}", "").rstrip()


def shot_problem(shot: int, n_demos: int, flag: str = "shot") -> str | None:
    """Why ``shot`` demonstrations cannot be drawn from ``n_demos``, or None."""
    if shot <= n_demos:
        return None
    return f"{flag}={shot} needs {shot} demos, it has {n_demos}"


def check_shot(shot: int, prompt_file: PromptFile) -> None:
    """Refuse more demonstrations than the prompt file holds, naming the file.

    Raises:
        PromptFileError: ``prompt file X: shot=2 needs 2 demos, it has 0``.

    """
    problem = shot_problem(shot, len(prompt_file.demos))
    if problem is not None:
        raise PromptFileError(f"prompt file {prompt_file.source}: {problem}")


def demo_ids(n_demos: int, shot: int, seed: int) -> list[int]:
    """Demo choice as run.py: ``np.random.seed(seed)``, then ``np.random.choice`` (no replacement).

    A private ``RandomState`` gives the same draws as the global seed without touching global state.
    """
    rng = np.random.RandomState(seed)
    return [int(i) for i in rng.choice(n_demos, shot, replace=False)]


def quick_test_ids(n_demos: int, shot: int, seed: int, n_items: int, quick_test: int) -> list[int]:
    """run.py's ``--quick_test``: the items drawn, from the same stream right after the demos.

    run.py seeds NumPy's global generator once, draws the demonstrations, then
    ``np.random.choice(len(eval_data), quick_test, replace=False)``; the items keep that order.
    """
    if quick_test > n_items:
        raise ArgumentError(f"quick_test={quick_test} but the data file has only {n_items} items")
    rng = np.random.RandomState(seed)
    rng.choice(n_demos, shot, replace=False)
    return [int(i) for i in rng.choice(n_items, quick_test, replace=False)]


def check_counts(*, shot: int, ndoc: int, ndoc_in_demo: int | None = None) -> None:
    """Refuse a negative number of demonstrations or documents.

    Raises:
        ArgumentError: Naming the argument (``ndoc must be 0 or more, got -1``).

    """
    for name, value in (("shot", shot), ("ndoc", ndoc), ("ndoc_in_demo", ndoc_in_demo)):
        if value is not None and value < 0:
            raise ArgumentError(f"{name} must be 0 or more, got {value}")


class AlcePromptBuilder:
    """Builds ALCE prompts for one run: the demonstrations once, then one test block per item.

    Args:
        prompt_file: The ALCE prompt file.
        shot: Demonstrations drawn (run.py's ``--shot``).
        ndoc: Documents shown with the question (``--ndoc``).
        seed: Seed of the demonstration draw (``--seed``).
        use_shorter: Show documents' ``summary`` or ``extraction`` (``--use_shorter``).
        ndoc_in_demo: Documents shown in each demonstration; None: ``ndoc`` (run.py's
            ``--fewer_doc_in_demo --ndoc_in_demo N``; ``--no_doc_in_demo`` is 0).

    """

    def __init__(
        self,
        prompt_file: PromptFile,
        shot: int = 2,
        ndoc: int = 5,
        seed: int = 42,
        use_shorter: UseShorter | None = None,
        ndoc_in_demo: int | None = None,
    ) -> None:
        check_counts(shot=shot, ndoc=ndoc, ndoc_in_demo=ndoc_in_demo)
        check_shot(shot, prompt_file)
        self.prompt_file = prompt_file
        self.ndoc = ndoc
        self.use_shorter = use_shorter
        self.demo_ids = demo_ids(len(prompt_file.demos), shot, seed)
        head = ""
        for i in self.demo_ids:
            head += make_demo(
                prompt_file.demos[i],
                prompt=prompt_file.demo_prompt,
                ndoc=ndoc if ndoc_in_demo is None else ndoc_in_demo,
                doc_prompt=prompt_file.doc_prompt,
                instruction=prompt_file.instruction,
                use_shorter=use_shorter,
            )
            head += prompt_file.demo_sep
        self.head = head

    def build(self, item: dict[str, Any], ndoc: int | None = None) -> str:
        """The full prompt for an item: demonstrations, then the test block (ends "Answer:").

        Args:
            item: ``question`` and ``docs``.
            ndoc: Documents the item shows (default: as many as each demonstration).

        """
        return self.head + make_demo(
            item,
            prompt=self.prompt_file.demo_prompt,
            ndoc=self.ndoc if ndoc is None else ndoc,
            doc_prompt=self.prompt_file.doc_prompt,
            instruction=self.prompt_file.instruction,
            use_shorter=self.use_shorter,
            test=True,
        )

    def docs(self, item: dict[str, Any], ndoc: int | None = None) -> list[dict[str, Any]]:
        """The documents kept with the item for scoring (full passages, in prompt order)."""
        return shown_docs(item["docs"], self.ndoc if ndoc is None else ndoc, self.use_shorter)
