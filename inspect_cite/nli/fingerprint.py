"""What a spec's text does not say about the model behind it: the disk cache's second key part.

The NLI disk cache must not hand one model's decisions to another that the same spec names: a
local directory whose weights were replaced, a ``python:`` function edited between runs, a hub
id whose ``main`` moved. So decisions on disk are keyed by identity plus a fingerprint:

- a local model directory: SHA-256 over the content of each top-level file (config, tokenizer,
  weights). A file's digest is remembered in the cache file, keyed by its resolved path, size,
  mtime, ctime and inode, so the weights are read once, not at every run; replacing a file
  changes its ctime (and usually its inode), so it is read again.
- a hub id: the commit of ``main`` that transformers will load (the hub's answer, or the local
  hub cache when offline or unreachable, as transformers does).
- ``python:``: the content of the file defining the function, read when it is imported.
- ``model:``: the model Inspect resolves (a role resolves per eval). Weights this process (or a
  server it starts) loads are keyed as above: a local directory (the model name or
  ``model_path``) by content, a hub id by its revision (``revision`` among the model args, else
  ``main``'s commit). An API model is keyed by its provider model name, already in the
  identity, and the base URL it was given.
- ``remote:``: the URL and the served model the spec names; without ``#model``, the one model
  the server lists at ``/v1/models``, or no disk caching (``inspect_cite.nli.remote``).
"""

import hashlib
import inspect
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from inspect_cite.downloads.download import sha256_file
from inspect_cite.downloads.http_client import redact_url

logger = logging.getLogger(__name__)

FileDigest = Callable[[Path], str]
"""The SHA-256 of a file's content (possibly remembered)."""


def file_signature(path: Path) -> str:
    """What changes whenever a file's content is replaced: size, mtime, ctime, inode, device."""
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}"


def directory_fingerprint(directory: Path, digest: FileDigest = sha256_file) -> str:
    """SHA-256 over the names and contents of a model directory's top-level files.

    Hidden entries and subdirectories are skipped: ``from_pretrained`` reads top-level files.
    """
    h = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        h.update(f"{path.name}\0{digest(path.resolve())}\n".encode())
    return f"sha256:{h.hexdigest()}"


def hub_revision(repo_id: str) -> str | None:
    """The commit of ``main`` that transformers loads for ``repo_id``, or None if unknown."""
    from huggingface_hub import HfApi, constants, try_to_load_from_cache

    if not constants.HF_HUB_OFFLINE:
        try:
            sha = HfApi().model_info(repo_id).sha
            if sha:
                return sha
        except Exception as e:  # unreachable or unknown: transformers then uses the local cache
            logger.debug(f"hub revision of {repo_id}: {e}")
    cached = try_to_load_from_cache(repo_id, "config.json")
    if isinstance(cached, str):
        # <cache>/models--org--name/snapshots/<commit>/config.json
        return Path(cached).parent.name
    return None


def model_fingerprint(name: str, digest: FileDigest = sha256_file) -> str:
    """The fingerprint of a transformers model given as a local directory or a hub id."""
    path = Path(name)
    if path.is_dir():
        return directory_fingerprint(path, digest)
    revision = hub_revision(name)
    return f"rev:{revision}" if revision else "rev:unresolved"


HUB_LOADERS = ("hf", "nnterp", "vllm", "sglang")
"""Inspect providers that load a model name as a hub id or directory themselves (in this
process, or a server they start), unless given a base URL."""


def llm_fingerprint(
    provider: str,
    name: str,
    model_args: Mapping[str, Any],
    base_url: str | None,
    digest: FileDigest = sha256_file,
) -> str:
    """What decides an Inspect model's replies beyond its ``provider/name``.

    Args:
        provider: The Inspect provider (``hf``, ``openai``, ...).
        name: The model name given to the provider.
        model_args: The model's args (``-M``; ``model_path``, ``revision``).
        base_url: The server the model was pointed at, if any.
        digest: The SHA-256 of a file (possibly remembered).

    """
    weights = str(model_args.get("model_path") or name)
    path = Path(weights).expanduser()
    if path.is_dir():
        return directory_fingerprint(path, digest)
    if provider in HUB_LOADERS and not base_url:
        revision = model_args.get("revision") or hub_revision(weights)
        return f"rev:{revision}" if revision else "rev:unresolved"
    # An API: the provider's model name decides; another server may serve another model.
    return f"api:{redact_url(base_url)}" if base_url else "api"


def function_fingerprint(fn: Any) -> str:
    """SHA-256 of the source file defining ``fn`` (its helpers and constants included)."""
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else type(fn)
    try:
        source = inspect.getsourcefile(target)
    except TypeError:
        source = None
    if source is None or not os.path.isfile(source):
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        source = getattr(module, "__file__", None)
    if source is not None and os.path.isfile(source):
        return f"sha256:{sha256_file(Path(source))}"
    # Builtins and C extensions: their behaviour comes with the interpreter and the package.
    return (
        f"builtin:{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}@{sys.version}"
    )
