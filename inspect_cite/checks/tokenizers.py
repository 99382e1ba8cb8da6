"""Whether a Hugging Face tokenizer (a hub id or a local folder) can be had, before a run.

Several tasks load a tokenizer only where it is used (LongBench-Cite's ``citation_length``
when the first sample is scored; a HELMET row's cut while the task is built, through
transformers, whose offline failure is several lines of ``OSError`` text). Checked here without
loading anything, so that each can refuse it in one line:

- a local folder must exist and hold tokenizer files (``tokenizer_config.json``,
  ``tokenizer.json``, ``tokenizer.model``, ``vocab.txt``, ...);
- a hub id must have its tokenizer files in the Hugging Face cache or, unless
  ``HF_HUB_OFFLINE`` is set, the hub must answer one short request for its
  ``tokenizer_config.json``.
"""

from pathlib import Path

from inspect_cite.checks.models import hub_file_problem, looks_like_path
from inspect_cite.checks.network import hub_download_command
from inspect_cite.checks.once import problem_once

TOKENIZER_FILES = (
    "tokenizer_config.json",
    "tokenizer.json",
    "tokenizer.model",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
)
"""Files of which a tokenizer folder (or a cached hub snapshot) holds at least one."""


def _folder_problem(path: Path) -> str | None:
    if not path.exists():
        return f"folder {path} does not exist"
    if not path.is_dir():
        return f"{path} is a file, not a tokenizer folder"
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        return f"no tokenizer files in {path} ({', '.join(TOKENIZER_FILES[:3])}, ...)"
    return None


def _cached(repo_id: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    for name in TOKENIZER_FILES:
        try:
            if isinstance(try_to_load_from_cache(repo_id, name), str):
                return True
        except Exception:  # a malformed cache entry: not cached
            continue
    return False


def _hub_problem(repo_id: str) -> str | None:
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        return "neither an existing folder nor a Hugging Face hub id (org/name)"
    if _cached(repo_id):
        return None
    # A repository without tokenizer_config.json keeps its tokenizer in other files: loading
    # it will tell.
    # Its tokenizer files, config and code (GLM-4's tokenizer is a .py), not the weights.
    download = (
        f'{hub_download_command(repo_id)} --include "*token*" --include "*.json" --include "*.py"'
    )
    return hub_file_problem(repo_id, "tokenizer_config.json", None, download=download)


def tokenizer_problem(name: str) -> str | None:
    """Why the tokenizer ``name`` (a hub id or a local folder) cannot be had, or None."""
    if looks_like_path(name):
        return _folder_problem(Path(name).expanduser())
    return _hub_problem(name)


def checked_tokenizer_problem(name: str) -> str | None:
    """:func:`tokenizer_problem`, asked once per process for each name (it may ask the hub)."""
    return problem_once(("tokenizer", name), lambda: tokenizer_problem(name))
