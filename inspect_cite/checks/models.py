"""Whether a model folder or hub id can be loaded, checked before any sample is generated.

Tasks call these while Inspect builds them, so that a run which cannot finish stops at once
with one short message (naming the flag, the value, why, and the fix) instead of failing
after every sample was generated. Nothing heavy is loaded:

- a local directory must exist and hold a model of the right kind (``config.json`` or a
  sentence-transformers ``modules.json``, weights, tokenizer files; a classifier needs an
  entailment label, a seq2seq NLI model an encoder-decoder), and its weight files must be
  readable: headers and sizes of safetensors files, the shards an index lists, the container
  of ``pytorch_model.bin`` (:func:`weights_problem`, no tensor is read);
- a Hugging Face hub id must be in the local cache (checked the same way) or, unless
  ``HF_HUB_OFFLINE`` is set, the hub must answer one request for its ``config.json``
  (short timeout, no retries);
- ``nli=true`` (ALCE's T5-11B) needs a CUDA GPU with about 23 GB free, unless
  ``INSPECT_CITE_NLI_ALLOW_CPU=1`` (the NLI checks, built on these, are
  :mod:`inspect_cite.nli.checked`);
- a model role (``model:<role>`` NLI, the FullCite judge or annotator) must be bound with
  ``--model-role`` when Inspect builds the task;
- provider-native document citations (``-T strategy=native``) need a provider that returns
  them: Inspect's other providers are refused.

Loading the weights stays lazy; a check that passed is remembered for the process.
"""

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.network import (
    HUB_TIMEOUT,
    hub_download_command,
    hub_offline,
    short_error,
)
from inspect_cite.checks.once import problem_once

ModelKind = Literal[
    "sentence-transformers", "seq2seq", "classifier", "question-answering", "causal-lm", "any"
]
"""What a model reference must load as (``causal-lm``: by ``AutoModelForCausalLM``, as the
``hf/`` provider loads an LLM judge; ``any``: any transformers model, e.g. MAUVE's LM)."""


LIGHT_NLI = "minicheck:lytang/MiniCheck-Flan-T5-Large"
"""The lighter NLI a refusal offers: MiniCheck-Flan-T5-Large (0.8B parameters, runs on a CPU),
the one README and docs/nli.md recommend for a machine without the GPU T5-11B needs."""

_WEIGHTS = ("*.safetensors", "*.bin", "*.pt", "*.pth", "*.h5", "*.msgpack", "*.ckpt", "*.gguf")
_TOKENIZER = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "tokenizer.model",
)

REFETCH = "download or copy the model again"
"""The fix for a model folder whose weight files are cut or corrupt."""
MISSING_SHARD = "missing shard"


def entailment_label(config: Any, where: str) -> int:
    """The index of a classifier's entailment label, read from ``id2label`` (or ``label2id``).

    Raises:
        ValueError: When no single label name starts with "entail".

    """
    labels: dict[int, str] = {int(i): str(n) for i, n in (config.id2label or {}).items()}
    labels.update({int(i): str(n) for n, i in (getattr(config, "label2id", None) or {}).items()})
    found = sorted(i for i, name in labels.items() if name.lower().startswith("entail"))
    if len(found) != 1:
        raise ValueError(
            f"classifier NLI model {where}: cannot tell which label is entailment "
            f"(id2label={config.id2label}); it needs exactly one label named 'entailment'"
        )
    return found[0]


def _files(directory: Path, patterns: Iterable[str]) -> bool:
    """Whether ``directory`` or a folder in it (sentence-transformers modules) has a match."""
    return any(
        p.is_file()
        for pattern in patterns
        for glob in (pattern, f"*/{pattern}")
        for p in directory.glob(glob)
    )


def _read_config(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _kind_problem(config: dict[str, Any], kind: ModelKind, where: str) -> str | None:
    """Why a model's ``config.json`` does not fit ``kind``, or None (unknown counts as fit)."""
    architectures = [str(a) for a in config.get("architectures") or []]
    if kind == "seq2seq":
        seq2seq = config.get("is_encoder_decoder") is True or any(
            "ConditionalGeneration" in a or "Seq2Seq" in a for a in architectures
        )
        if architectures and not seq2seq:
            return f"a {', '.join(architectures)}, not a seq2seq (encoder-decoder) model"
    elif kind == "classifier":
        labels = SimpleNamespace(
            id2label=config.get("id2label") or {0: "LABEL_0", 1: "LABEL_1"},
            label2id=config.get("label2id"),
        )
        try:
            entailment_label(labels, where)
        except ValueError:
            return "no label named 'entailment' in its config.json (id2label)"
    elif kind == "question-answering":
        if architectures and not any("QuestionAnswering" in a for a in architectures):
            return f"a {', '.join(architectures)}, not an extractive QA model"
    elif kind == "causal-lm":
        # Imported here: it imports torch, which only a local LLM needs.
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

        model_type = config.get("model_type")
        remote_code = "AutoModelForCausalLM" in (config.get("auto_map") or {})
        if model_type and model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and not remote_code:
            what = ", ".join(architectures) or model_type
            return f"a {what}, not a causal LM (AutoModelForCausalLM cannot load it)"
    return None


def _safetensors_problem(path: Path) -> str | None:
    """Why a safetensors file cannot be read, or None; reads its header only."""
    from safetensors import safe_open

    try:
        # Opening parses the header and checks that the file holds every tensor's bytes
        # (data_offsets); the tensors are only memory-mapped, never read.
        with safe_open(str(path), framework="numpy"):
            return None
    except Exception as e:  # the library's SafetensorError, or an OSError reading the file
        why = str(e).removeprefix("Error while deserializing header: ") or type(e).__name__
        return f"is cut or corrupt ({why})"


def _torch_bin_problem(path: Path) -> str | None:
    """Why a ``torch.save`` file cannot be opened, or None; reads no tensor."""
    try:
        if zipfile.is_zipfile(path):
            # The zip format's central directory is at the end: a cut file has none.
            with zipfile.ZipFile(path):
                return None
        with open(path, "rb") as f:
            head = f.read(2)
    except (OSError, zipfile.BadZipFile) as e:
        return f"is cut or corrupt ({short_error(e)})"
    # The legacy format is a pickle stream, opened by a PROTO opcode (0x80, protocol 2-5).
    if len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return None
    return "is cut or corrupt (not a readable zip or pickle file)"


def _index_problem(index: Path) -> tuple[list[Path], str | None]:
    """The shard files a ``*.index.json`` lists, or why it cannot be used."""
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        names = set(data["weight_map"].values())
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return [], f"is unreadable ({short_error(e)})"
    if not all(isinstance(n, str) and n and Path(n).name == n for n in names):
        return [], "lists a shard that is not a file name"
    shards = [index.parent / n for n in sorted(names)]
    missing = [p.name for p in shards if not p.is_file()]
    if missing:
        return [], f"lists {MISSING_SHARD} {missing[0]}"
    return shards, None


def _module_folders(directory: Path) -> list[Path]:
    """The folders a sentence-transformers ``modules.json`` names (they may hold weights)."""
    try:
        modules = json.loads((directory / "modules.json").read_text(encoding="utf-8"))
        paths = [m.get("path") for m in modules]
    except (OSError, ValueError, TypeError, AttributeError):
        return []
    return [directory / p for p in paths if isinstance(p, str) and p and (directory / p).is_dir()]


def weights_problem(directory: Path) -> str | None:
    """Why the weight files in ``directory`` (or its module folders) cannot be read, or None.

    Reads headers only: a safetensors file's header must parse and the file must hold every
    tensor's bytes; the shards a ``*.index.json`` lists must exist and check out; a
    ``pytorch_model*.bin`` must open as a zip (or legacy pickle) container. Pickle weights in
    a folder that has safetensors ones are not read by transformers, and are not checked.
    """
    for folder in [directory, *_module_folders(directory)]:
        # transformers reads safetensors where a folder has them, else the pickle weights.
        files = sorted(folder.glob("*.safetensors"))
        indexes = sorted(folder.glob("*.safetensors.index.json"))
        if not files and not indexes:
            files = sorted(folder.glob("pytorch_model*.bin"))
            indexes = sorted(folder.glob("pytorch_model*.bin.index.json"))
        for index in indexes:
            shards, problem = _index_problem(index)
            if problem is not None:
                return f"{index.relative_to(directory)} {problem}; {REFETCH}"
            files += shards
        for path in dict.fromkeys(files):
            check = _safetensors_problem if path.suffix == ".safetensors" else _torch_bin_problem
            problem = check(path)
            if problem is not None:
                return f"{path.relative_to(directory)} {problem}; {REFETCH}"
    return None


def directory_problem(directory: Path, kind: ModelKind) -> str | None:
    """Why ``directory`` cannot be loaded as a model of ``kind``, or None. Loads nothing."""
    if not directory.is_dir():
        return "a file, not a model directory"
    if kind == "sentence-transformers":
        if not (directory / "modules.json").is_file() and not (directory / "config.json").is_file():
            return "no modules.json or config.json in it (not a sentence-transformers model)"
    elif not (directory / "config.json").is_file():
        return "no config.json in it (not a transformers model)"
    if not _files(directory, _WEIGHTS):
        return "no weight files in it (*.safetensors, *.bin)"
    if not _files(directory, _TOKENIZER):
        return "no tokenizer files in it (tokenizer.json, vocab.txt, spiece.model, ...)"
    return _kind_problem(_read_config(directory), kind, str(directory)) or weights_problem(
        directory
    )


def looks_like_path(value: str) -> bool:
    """Whether a model reference is meant as a local path (not a hub id ``org/name``)."""
    if value.startswith(("/", "./", "../", "~", ".\\", "..\\")) or "\\" in value:
        return True
    return value.count("/") > 1 or Path(value).expanduser().exists()


def hub_problem(repo_id: str, kind: ModelKind) -> str | None:
    """Why a hub id cannot be loaded: not cached and (offline or the hub does not answer)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        return "neither an existing directory nor a Hugging Face hub id (org/name)"
    try:
        snapshot = Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:  # not cached (or a broken cache entry): the hub is asked below
        snapshot = None
    if snapshot is not None:
        problem = directory_problem(snapshot, kind)
        if problem is None:
            return None
        if not problem.startswith(("no weight files", "no tokenizer files")) and (
            MISSING_SHARD not in problem
        ):
            return problem
        # A partial snapshot: the missing files would be downloaded.
    return hub_file_problem(
        repo_id, "config.json", "no config.json in its hub repository (not a transformers model)"
    )


def hub_file_problem(
    repo_id: str, filename: str, missing: str | None, *, download: str | None = None
) -> str | None:
    """Why a file of a hub repository that is not cached cannot be downloaded now, or None.

    Offline (``HF_HUB_OFFLINE``) it cannot; else the hub must answer one request for the
    file's metadata (short timeout, no retries).

    Args:
        repo_id: The repository (``org/name``).
        filename: The file asked about.
        missing: What to say when the repository has no such file (None: not a problem).
        download: The command that fetches what is needed (default: the whole repository).

    """
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import EntryNotFoundError, GatedRepoError, RepositoryNotFoundError

    if hub_offline():
        return (
            "not in the Hugging Face cache, and HF_HUB_OFFLINE is set (download it while "
            f"online: {download or hub_download_command(repo_id)})"
        )
    try:
        get_hf_file_metadata(
            hf_hub_url(repo_id, filename), timeout=HUB_TIMEOUT, retry_on_errors=False
        )
    except GatedRepoError:
        return "gated on the hub: accept its terms on huggingface.co and set HF_TOKEN"
    except RepositoryNotFoundError:
        return "no such model on the Hugging Face hub (or it is private: set HF_TOKEN)"
    except EntryNotFoundError:
        return missing
    except Exception as e:  # network errors of any HTTP client: the hub did not answer
        return f"not in the Hugging Face cache, and the hub did not answer ({short_error(e)})"
    return None


def model_problem(value: str, kind: ModelKind) -> str | None:
    """Why a model reference (local directory or hub id) cannot be loaded, or None."""
    if looks_like_path(value):
        path = Path(value).expanduser()
        if not path.exists():
            return f"directory {path} does not exist"
        return directory_problem(path, kind)
    return hub_problem(value, kind)


def check_model(value: str, *, flag: str, kind: ModelKind, fix: str) -> None:
    """Refuse a model reference that cannot be loaded, before anything is generated.

    Args:
        value: A local directory or a Hugging Face hub id.
        flag: How the user gave it, e.g. ``-T similarity_model`` (``-T x=DIR`` is the fix's form).
        kind: What it must load as.
        fix: The alternative to offer, e.g. ``Pass a local folder: -T similarity_model=DIR``.

    Raises:
        PreflightError: Naming the flag, the value, why, and the fix.

    """
    problem = problem_once(("model", value, kind), lambda: model_problem(value, kind))
    if problem is not None:
        raise PreflightError(f"{flag}={value}: {problem}.\n{fix}")
