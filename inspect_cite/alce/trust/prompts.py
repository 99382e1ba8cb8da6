"""The authors' refusal-instructed prompt files (``*_rejection.json``), pinned and checked.

The files are fetched at run time from declare-lab/trust-align at the commit that released
trust-eval 0.1.5 (the repository renamed them ``*_refusal.json`` later), verified against the
git blob id its tree records and the SHA-256 below, and cached; they are never copied into
this project. ``INSPECT_CITE_TRUST_PROMPT_DIR`` names a folder of files in the same format
(``<dataset>[_closedbook]_rejection.json``) read instead, for a whole run.

A file holds ``instruction``, ``demo_sep``, ``demo_prompt``, ``doc_prompt`` (ALCE's
placeholders ``{INST}``, ``{Q}``, ``{D}``, ``{A}``, ``{ID}``, ``{T}``, ``{P}``) and two demo
lists instead of ALCE's one: ``positive_demos`` (answered) and ``reject_demos`` (refused).
trust-eval's generator draws ``ceil(shot / 2)`` positive and ``shot // 2`` refusal demos
(``numpy.random.choice`` without replacement, seeded once per run) and shuffles them with
Python's unseeded ``random.shuffle``, so its demo order is not reproducible.
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from inspect_cite.alce.prompts import make_demo
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.download import sha256_file
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.hub_files import PinnedGitHubFile, cached_pinned_file, file_provenance

TRUST_REPO = "declare-lab/trust-align"
TRUST_PROMPT_COMMIT = "6557e2aed58e82679a0c43ae4ef54cebcc078ec1"
"""trust-align's commit that set trust-eval's version to 0.1.5 (2025-02-11)."""
PROMPT_DIR_ENV = "INSPECT_CITE_TRUST_PROMPT_DIR"

# name -> (git blob id at TRUST_PROMPT_COMMIT, SHA-256), for trust_eval/docs/prompts/<name>.json.
PROMPT_PINS: dict[str, tuple[str, str]] = {
    "asqa_rejection": (
        "b7d7f04378d1042b90894eeed8dd7558a24f1c05",
        "c8ca5e06cc3d311d1e172991c7af9d7bd0a80870e9a712ae0dd9d60ea1b01838",
    ),
    "asqa_closedbook_rejection": (
        "66617645bde0df38924ac64cffd430cb114be10a",
        "f374f18a6ca0ebcf515d0c24998068bfa593f57084237f8f7f12353e94052680",
    ),
    "qampari_rejection": (
        "758c704343183ba3b48342b0594150d6428a3a69",
        "95be6ebc68e6a3e5d0cd6cccfee2391100e67fb98dde0f98d4b9cebae5f4bc07",
    ),
    "qampari_closedbook_rejection": (
        "0ec34cfcfbe8b54cb571ec77b3ffbb7330031620",
        "05dba3c1ce5acaea6ad5962612a1531130b9ff22d2ca667afc02f2d41ff6e67a",
    ),
    "eli5_rejection": (
        "7973dcb2d6bc3946d7ca25987028976efac8cf8e",
        "20b09c02657897eb26f7317505d60f8006e72206ded6684ab24f0b2e21684d2b",
    ),
    "eli5_closedbook_rejection": (
        "8311e8db9a1cd3025d782fb3ede822c52d742713",
        "8a9c23ed46cfe08c06b7acd384dc38c768a9592de61d84ff1e6e91fe4d844d2c",
    ),
    # The authors ship ExpertQA's prompt as a copy of ELI5's (same blob).
    "expertqa_rejection": (
        "7973dcb2d6bc3946d7ca25987028976efac8cf8e",
        "20b09c02657897eb26f7317505d60f8006e72206ded6684ab24f0b2e21684d2b",
    ),
}

_FIELDS = ("instruction", "demo_sep", "demo_prompt", "doc_prompt", "positive_demos", "reject_demos")


class TrustPromptError(PreflightError, ValueError):
    """A TRUST-SCORE prompt file is missing, unreadable or malformed."""


def prompt_name(dataset: str, closedbook: bool = False) -> str:
    """``<dataset>[_closedbook]_rejection`` (ExpertQA has no closed-book file).

    Raises:
        TrustPromptError: For a dataset or variant the authors ship no file for.

    """
    name = f"{dataset}{'_closedbook' if closedbook else ''}_rejection"
    if name not in PROMPT_PINS:
        raise TrustPromptError(
            f"no TRUST-SCORE prompt file {name}.json; the authors ship "
            f"{', '.join(sorted(PROMPT_PINS))}"
        )
    return name


def pinned_prompt(name: str) -> PinnedGitHubFile:
    """The pinned file ``trust_eval/docs/prompts/<name>.json``."""
    blob, _ = PROMPT_PINS[name]
    return PinnedGitHubFile(
        TRUST_REPO, TRUST_PROMPT_COMMIT, f"trust_eval/docs/prompts/{name}.json", blob
    )


def trust_prompt_path(name: str) -> tuple[Path, dict[str, Any]]:
    """A verified local copy of a prompt file and its provenance for the log.

    ``$INSPECT_CITE_TRUST_PROMPT_DIR/<name>.json`` when the variable is set (provenance: path
    and SHA-256), else the pinned file from the cache, downloaded once.

    Raises:
        TrustPromptError: When the file is missing from the folder, or cannot be downloaded,
            or does not have its pinned SHA-256.

    """
    folder = os.environ.get(PROMPT_DIR_ENV)
    if folder:
        path = Path(folder, f"{name}.json")
        if not path.is_file():
            raise TrustPromptError(f"{PROMPT_DIR_ENV}={folder} but {path} does not exist")
        return path, file_provenance(path)
    pin = pinned_prompt(name)
    directory = cache_dir("trust", "prompts", TRUST_PROMPT_COMMIT[:12])
    path = cached_pinned_file(
        pin, directory, TrustPromptError, name=f"TRUST-SCORE prompt {name}", flag="-T prompt_file"
    )
    digest = sha256_file(path)
    if digest != PROMPT_PINS[name][1]:
        raise TrustPromptError(f"{path}: SHA-256 {digest}, expected {PROMPT_PINS[name][1]}")
    return path, {**pin.provenance(), "sha256": digest}


@dataclass(frozen=True)
class TrustPromptFile:
    """A refusal-instructed prompt file's contents."""

    instruction: str
    demo_sep: str
    demo_prompt: str
    doc_prompt: str
    positive_demos: list[dict[str, Any]]
    reject_demos: list[dict[str, Any]]
    source: str

    @classmethod
    def load(cls, path: str | Path, flag: str = PROMPT_DIR_ENV) -> "TrustPromptFile":
        """Read and check a prompt file, naming the file, every problem and ``flag``.

        Raises:
            TrustPromptError: Listing every problem at once.

        """
        path = Path(path)
        data = read_json(path, "prompt file", TrustPromptError, flag=flag)
        problems = []
        if not isinstance(data, dict):
            problems.append("expected a JSON object")
            data = {}
        for key in _FIELDS:
            kind = list if key.endswith("demos") else str
            if not isinstance(data.get(key), kind):
                problems.append(f'"{key}" must be a {kind.__name__}')
        for key in ("positive_demos", "reject_demos"):
            for i, demo in enumerate(data.get(key) or []):
                if not isinstance(demo, dict) or not isinstance(demo.get("question"), str):
                    problems.append(f'"{key}"[{i}] needs a string "question"')
        if problems:
            raise TrustPromptError(f"prompt file {path}: {'; '.join(problems)} ({flag})")
        return cls(**{key: data[key] for key in _FIELDS}, source=str(path))


class TrustPromptBuilder:
    """Builds the refusal-instructed prompts of a run, one per item, as trust-eval's generator.

    trust-eval seeds NumPy once (``np.random.seed(seed)``) and, for each item in file order,
    draws ``ceil(shot / 2)`` positive and ``shot // 2`` refusal demonstrations (``choice``
    without replacement), then shuffles them with Python's unseeded ``random.shuffle``: its
    demonstrations differ per item and their order is not reproducible. Here the draws are the
    same stream's (a private ``RandomState``), and the demonstrations keep the draw's order
    (positives, then refusals), so a run can be repeated. Each demonstration and the test
    block are ALCE's (:func:`inspect_cite.alce.prompts.make_demo`), joined by ``demo_sep``.

    Args:
        prompt_file: The refusal-instructed prompt file.
        shot: Demonstrations per prompt.
        ndoc: Documents shown with the question.
        seed: Seed of the demonstration draws.
        ndoc_in_demo: Documents shown in each demonstration (None: ``ndoc``).

    """

    def __init__(
        self,
        prompt_file: TrustPromptFile,
        shot: int = 2,
        ndoc: int = 5,
        seed: int = 42,
        ndoc_in_demo: int | None = None,
    ) -> None:
        positives, rejects = (shot + 1) // 2, shot // 2
        for name, wanted, have in (
            ("positive_demos", positives, len(prompt_file.positive_demos)),
            ("reject_demos", rejects, len(prompt_file.reject_demos)),
        ):
            if wanted > have:
                raise TrustPromptError(
                    f"-T shot={shot} draws {wanted} of {prompt_file.source}'s {name}, which "
                    f"holds {have}"
                )
        self.prompt_file = prompt_file
        self.shot, self.ndoc, self.ndoc_in_demo = shot, ndoc, ndoc_in_demo
        self._rng = np.random.RandomState(seed)

    def build(self, item: dict[str, Any]) -> tuple[str, list[tuple[str, int]]]:
        """The next item's prompt (items in file order) and its demonstrations' ids."""
        pf = self.prompt_file
        pos = self._rng.choice(len(pf.positive_demos), (self.shot + 1) // 2, replace=False)
        rej = self._rng.choice(len(pf.reject_demos), self.shot // 2, replace=False)
        demos = [("positive", int(i)) for i in pos] + [("reject", int(i)) for i in rej]
        head = ""
        for kind, i in demos:
            demo = (pf.positive_demos if kind == "positive" else pf.reject_demos)[i]
            head += make_demo(
                demo,
                prompt=pf.demo_prompt,
                ndoc=self.ndoc if self.ndoc_in_demo is None else self.ndoc_in_demo,
                doc_prompt=pf.doc_prompt,
                instruction=pf.instruction,
            )
            head += pf.demo_sep
        test = make_demo(
            item,
            prompt=pf.demo_prompt,
            ndoc=self.ndoc,
            doc_prompt=pf.doc_prompt,
            instruction=pf.instruction,
            test=True,
        )
        return head + test, demos
