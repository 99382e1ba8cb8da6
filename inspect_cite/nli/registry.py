"""From an NLI spec string to a shared backend instance."""

import os
import threading
from collections.abc import Callable
from pathlib import Path

from inspect_cite.downloads.http_client import redact_text
from inspect_cite.models.batching import BatchQueue
from inspect_cite.nli.base import NLIConfigError, NLIResult, Pair
from inspect_cite.nli.cache import NLI_CACHE_ENV, DiskCache
from inspect_cite.nli.cached import CachedNLI
from inspect_cite.nli.classifier import ClassifierNLI
from inspect_cite.nli.fingerprint import FileDigest, model_fingerprint
from inspect_cite.nli.hf import LazyModel
from inspect_cite.nli.minicheck import MiniCheckNLI, parse_minicheck
from inspect_cite.nli.python_fn import PythonNLI
from inspect_cite.nli.remote import RemoteNLI
from inspect_cite.nli.seq2seq import TRUE_MODEL, Seq2SeqNLI

NLI_SPECS = """\
  true                          google/t5_xxl_true_nli_mixture (ALCE's T5-11B; GPU with ~23 GB)
  seq2seq:<hub id or dir>       any TRUE-format seq2seq model ("premise: P hypothesis: H" -> "1")
  classifier:<hub id or dir>    a sequence-classification NLI model (label "entailment")
  minicheck:<hub id or dir>[#<options>]
                                a MiniCheck model scored as MiniCheck's code does; options,
                                comma-separated: its family (read from config.json unless named:
                                roberta-large, deberta-v3-large, flan-t5-large,
                                bespoke-minicheck-7b), chunk_size=N, max_model_len=N
  model:<model name or role>    an LLM through Inspect, asked yes/no (e.g. model:grader)
  python:<module or file.py>:<callable>
                                a function (premise, hypothesis) -> bool | float (>= 0.5 entails)
  remote:<base url>#<model>     an NLI classifier served with vLLM's /classify API"""
"""Every NLI spec form, the one list of them (``--nli``/``-T nli``/``-S nli`` take any)."""

_KINDS = ("seq2seq", "classifier", "minicheck", "model", "python", "remote")

_lock = threading.Lock()
_backends: dict[tuple[str, str | None], CachedNLI] = {}
_disks: dict[str, DiskCache] = {}


def parse_nli_spec(spec: str) -> tuple[str, str]:
    """Split a spec into (kind, argument); ``true`` becomes ``("true", TRUE_MODEL)``.

    Raises:
        NLIConfigError: For an unknown or incomplete spec, listing the valid forms.

    """
    spec = spec.strip()
    if spec == "true":
        return "true", TRUE_MODEL
    kind, sep, arg = spec.partition(":")
    if not sep or kind not in _KINDS or not arg.strip():
        raise NLIConfigError(f"unknown NLI spec {redact_text(spec)!r}; use one of:\n{NLI_SPECS}")
    if kind == "minicheck":
        parse_minicheck(arg)  # its options' syntax; nothing is read
    return kind, arg.strip()


def _make(spec: str, disk: DiskCache | None) -> CachedNLI:
    kind, arg = parse_nli_spec(spec)
    if kind == "model":
        # Imported here: it needs Inspect, which the model backends do not (a GPU machine
        # running bench/bench_nli_gpu.py has torch and transformers, not Inspect).
        from inspect_cite.nli.llm import ModelNLI

        llm = ModelNLI(arg)
        return CachedNLI(lambda: llm.identity, llm, disk, fingerprint=llm.fingerprint)
    engine: Seq2SeqNLI | ClassifierNLI | MiniCheckNLI | PythonNLI | RemoteNLI
    if kind in ("true", "seq2seq"):
        engine = Seq2SeqNLI(arg, true_checks=kind == "true")
    elif kind == "classifier":
        engine = ClassifierNLI(arg)
    elif kind == "minicheck":
        engine = MiniCheckNLI(arg)
    elif kind == "remote":
        engine = RemoteNLI(arg)
    else:
        engine = PythonNLI(arg)
    # A user function is cheap per pair: batch whatever is queued, without waiting for more.
    queue: BatchQueue[Pair, NLIResult | Exception] = BatchQueue(
        engine,
        max_batch=engine.queue_batch if isinstance(engine, LazyModel) else 64,
        max_wait=0.0 if kind == "python" else 0.02,
    )
    return CachedNLI(engine.identity, queue.submit, disk, queue, fingerprint=_fingerprint(engine))


def _fingerprint(
    engine: "Seq2SeqNLI | ClassifierNLI | MiniCheckNLI | PythonNLI | RemoteNLI",
) -> Callable[[FileDigest], str | None] | None:
    """What identifies the engine's model beyond its spec (None: the identity names it)."""
    if isinstance(engine, MiniCheckNLI):
        return engine.fingerprint
    if isinstance(engine, PythonNLI):
        source = engine.fingerprint
        return lambda digest: source
    if isinstance(engine, Seq2SeqNLI | ClassifierNLI):
        name = engine.model_name
        return lambda digest: model_fingerprint(name, digest)
    if engine.model is None:
        return lambda digest: engine.served_model()
    return None  # remote:<url>#<model> names its served model


def get_nli(spec: str = "true", cache_path: str | None = None) -> CachedNLI:
    """The process-wide NLI backend for ``spec`` (models load once, on first use).

    Args:
        spec: Which NLI to use: ``true``, ``seq2seq:<model>``, ``classifier:<model>``,
            ``minicheck:<model>``, ``model:<model name or role>`` or
            ``python:<module>:<callable>``.
        cache_path: A SQLite file caching decisions across runs; defaults to
            ``$INSPECT_CITE_NLI_CACHE`` (unset: decisions are cached in memory only).

    Raises:
        NLIConfigError: For an invalid spec or a ``python:`` function that cannot be imported.
        NLICacheError: For a cache path that cannot hold the cache (a directory, not SQLite).

    """
    spec = spec.strip()
    path = cache_path or os.environ.get(NLI_CACHE_ENV) or None
    if path is not None:
        path = str(Path(path).expanduser().resolve())
    key = (spec, path)
    with _lock:
        backend = _backends.get(key)
        if backend is None:
            disk = None
            if path is not None:
                disk = _disks.get(path)
                if disk is None:
                    disk = _disks[path] = DiskCache(path)
            backend = _backends[key] = _make(spec, disk)
        return backend


def reset_nli() -> None:
    """Forget every shared backend and close disk caches (tests, benchmarks)."""
    with _lock:
        _backends.clear()
        for disk in _disks.values():
            disk.close()
        _disks.clear()
