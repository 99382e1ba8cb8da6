"""From an NLI spec as a user gave it to a checked backend: the one way in.

Every task, solver, scorer and command that takes an NLI spec (``-T nli``, ``-S nli``,
``--nli``) goes through here, in up to three steps, each including the ones before it:

- :func:`nli_spec`: the value as a spec, its syntax checked (nothing is imported or loaded);
- :func:`check_nli`: its model, server, function or role usable here, checked once per spec
  per process (:func:`inspect_cite.checks.once.problem_once`), before anything is generated;
- :func:`checked_nli`: the process-wide backend (:func:`inspect_cite.nli.registry.get_nli`;
  its weights still load on first use).

A task that only needs to refuse early calls :func:`check_nli` (or :func:`nli_spec` when the
NLI may go unused); its scorers then call :func:`checked_nli`, whose check is remembered.
Each refusal is one :class:`inspect_cite.checks.errors.PreflightError` naming the flag and the spec
(:func:`nli_message`).
"""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.models import LIGHT_NLI, looks_like_path, model_problem
from inspect_cite.checks.network import connect_problem
from inspect_cite.checks.once import problem_once
from inspect_cite.checks.run import bound_model_roles
from inspect_cite.nli.base import NLIConfigError
from inspect_cite.nli.cache import NLI_CACHE_ENV, cache_path_problem
from inspect_cite.nli.cached import CachedNLI
from inspect_cite.nli.fingerprint import HUB_LOADERS
from inspect_cite.nli.minicheck import minicheck_problem
from inspect_cite.nli.python_fn import load_callable
from inspect_cite.nli.registry import get_nli, parse_nli_spec
from inspect_cite.nli.remote import RemoteNLI
from inspect_cite.nli.seq2seq import (
    ALLOW_CPU_ENV,
    TRUE_MIN_FREE_GPU_GB,
    cpu_allowed,
    true_resource_problem,
)

SCORER_FLAG = "-S nli"
"""How a scorer's or solver's ``nli`` is given (``inspect score -S nli=...``)."""

_GIVEN_AS: ContextVar[str] = ContextVar("nli_flag", default=SCORER_FLAG)


@contextmanager
def given_as(flag: str) -> Iterator[None]:
    """Name the spec of the scorers and solvers built in this block by ``flag`` in refusals.

    A task builds its scorers under ``given_as("-T nli")``: the user gave the spec to the task,
    and a refusal names the task's flag, not the scorer's.
    """
    token = _GIVEN_AS.set(flag)
    try:
        yield
    finally:
        _GIVEN_AS.reset(token)


def nli_message(flag: str, spec: str, problem: str) -> str:
    """``<flag>=<spec>: <problem>``, naming the spec once.

    The ``python:`` and ``remote:`` backends start their own errors with the spec (redacted
    where it holds a secret), so those are prefixed with the flag alone.
    """
    kind = spec.strip().partition(":")[0]
    if kind and problem.startswith(f"{kind}:"):
        return f"{flag}={problem}"
    return f"{flag}={spec}: {problem}"


def nli_spec(spec: Any, *, flag: str) -> str:
    """The spec as text, its syntax checked; nothing is imported or loaded.

    Args:
        spec: The value given: ``true``, ``seq2seq:``, ``classifier:``, ``minicheck:``,
            ``remote:``, ``model:`` or ``python:`` (``True``, as YAML reads ``-T nli=true``,
            is ``true``).
        flag: How the user gave it: ``-T nli``, ``-S nli`` or ``--nli``.

    Raises:
        PreflightError: Naming the flag, the spec and the valid forms.

    """
    return _parsed(spec, flag)[0]


def check_nli(spec: Any, *, flag: str) -> str:
    """The spec, refused before anything is generated if its model cannot be used here.

    Also refuses an ``INSPECT_CITE_NLI_CACHE`` that cannot hold the decision cache. A spec
    that passed is not checked again in this process, but for ``model:<role>`` (roles are
    bound per eval).

    Args:
        spec: As :func:`nli_spec` takes it.
        flag: How the user gave it: ``-T nli``, ``-S nli`` or ``--nli``.

    Raises:
        PreflightError: Naming the flag, the spec, why, and the alternative (or the cache).

    """
    # Not remembered: the variable may change between runs of one process.
    cache = os.environ.get(NLI_CACHE_ENV)
    if cache and (problem := cache_path_problem(Path(cache).expanduser())) is not None:
        raise PreflightError(problem)
    spec, kind, arg = _parsed(spec, flag)
    refusal = problem_once(
        ("nli", spec),
        lambda: _nli_refusal(spec, kind, arg, flag),
        remember=kind != "model",
    )
    if refusal is not None:
        raise PreflightError(refusal)
    return spec


def checked_nli(spec: Any, *, flag: str | None = None, cache_path: str | None = None) -> CachedNLI:
    """The process-wide backend of a spec that :func:`check_nli` passed.

    Args:
        spec: As :func:`nli_spec` takes it.
        flag: How the user gave it (default ``-S nli``, a scorer's or solver's argument, or
            what :func:`given_as` names).
        cache_path: A SQLite file caching decisions across runs (default
            ``$INSPECT_CITE_NLI_CACHE``).

    Raises:
        PreflightError: As :func:`check_nli`; ``NLICacheError`` for a ``cache_path`` that
            cannot hold the cache.

    """
    spec = check_nli(spec, flag=flag or _GIVEN_AS.get())
    return get_nli(spec, cache_path)


def _parsed(spec: Any, flag: str) -> tuple[str, str, str]:
    """(spec as text, kind, argument), or the refusal naming the flag."""
    # -T values are YAML: `nli=true` arrives as the boolean where no annotation made it text.
    if spec is True:
        spec = "true"
    if not isinstance(spec, str):
        raise PreflightError(f"{flag} must be an NLI spec such as true; got {spec!r}")
    try:
        kind, arg = parse_nli_spec(spec)
    except NLIConfigError as e:
        raise PreflightError(nli_message(flag, spec, str(e))) from e
    return spec, kind, arg


def _nli_refusal(spec: str, kind: str, arg: str, flag: str) -> str | None:
    """The refusal of a parsed spec that cannot be used here, naming the flag; or None."""
    problem = _nli_problem(kind, arg, flag)
    return None if problem is None else nli_message(flag, spec, problem)


def _nli_problem(kind: str, arg: str, flag: str) -> str | None:
    """Why a parsed NLI spec cannot be used here, with the fix on the following lines; or None."""
    if kind == "true" and not cpu_allowed():
        problem = true_resource_problem()
        if problem is not None:
            return (
                f"ALCE's T5-11B NLI needs a ~{TRUE_MIN_FREE_GPU_GB:.0f} GB GPU; "
                f"{problem.split(' (')[0]}.\n"
                "Use a lighter NLI (not comparable with published ALCE numbers), e.g.\n"
                f"  {flag}={LIGHT_NLI}\n"
                f"or set {ALLOW_CPU_ENV}=1 to run T5-11B without that GPU (very slow)."
            )
    if kind in ("true", "seq2seq", "classifier"):
        problem = model_problem(arg, "classifier" if kind == "classifier" else "seq2seq")
        if problem is None:
            return None
        if kind != "true":
            return (
                f"{problem}.\nGive an existing model directory ({flag}={kind}:DIR) or a hub id "
                "in the Hugging Face cache."
            )
        return (
            f"{arg} {problem}.\nDownload it (45 GB) into the Hugging Face cache, or use a "
            f"lighter NLI (not comparable with published ALCE numbers):\n  {flag}={LIGHT_NLI}"
        )
    if kind == "minicheck":
        return minicheck_problem(arg, flag)
    if kind == "python":
        try:
            load_callable(arg)
        except NLIConfigError as e:
            return str(e)
        return None
    if kind == "remote":
        try:
            base = RemoteNLI(arg).base
        except NLIConfigError as e:
            return str(e)
        problem = connect_problem(base)
        if problem is None:
            return None
        return f"the NLI server does not answer: {problem}.\nStart it, or choose another {flag}."
    # model:<name or role>: a role must be bound; a model name is resolved by Inspect.
    if "/" not in arg:
        bound = bound_model_roles()
        if bound is not None and arg not in bound:
            return (
                f"no model is bound to the role '{arg}'.\n"
                f"Pass --model-role {arg}=<model>, or {flag}=model:<provider/model>."
            )
        return None
    return _local_llm_problem(arg, flag)


def _api_model_problem(arg: str) -> str | None:
    """Why Inspect cannot make a client for the API model ``provider/name``; or None.

    Made as Inspect makes it for the eval (its provider's package and key, checked when the
    client is built; nothing is sent): a missing package or key is known before generation.
    """
    from inspect_ai.model import get_model
    from rich.text import Text

    try:
        get_model(arg)
    except Exception as e:  # Inspect's PrerequisiteError, or an unknown provider's ValueError
        # Inspect words it for its console (rich markup, several lines): one plain line here.
        lines = Text.from_markup(str(e)).plain.splitlines()
        text = " ".join(line.strip() for line in lines if line.strip())
        return text.removeprefix("ERROR:").strip().rstrip(".")
    return None


def is_api_model(model: str) -> bool:
    """Whether Inspect calls ``provider/name`` through an API client (it loads no weights)."""
    # Imported here: it needs Inspect, which the model backends do not (see registry._make).
    from inspect_cite.nli.llm import SAMPLING_PROVIDERS

    provider = model.partition("/")[0]
    return provider not in SAMPLING_PROVIDERS and provider not in HUB_LOADERS


def llm_problem(model: str) -> str | None:
    """Why Inspect cannot make the LLM ``provider/name`` here, or None; loads nothing.

    An API model's client must be made (its provider's package and key); weights Inspect loads
    itself (``hf/``, ``nnterp/``, a folder for ``vllm/`` or ``sglang/``) must be a causal LM in
    a folder or the Hugging Face cache (or, online, on the hub).
    """
    from inspect_cite.nli.llm import SAMPLING_PROVIDERS

    if is_api_model(model):
        return _api_model_problem(model)
    provider, _, name = model.partition("/")
    # Other loaders (vllm/, sglang/) take a served name too: only a path is theirs to load.
    if provider not in SAMPLING_PROVIDERS and not looks_like_path(name):
        return None
    return model_problem(name, "causal-lm")


def _local_llm_problem(arg: str, flag: str) -> str | None:
    """Why ``provider/name``, an LLM judge, cannot answer: as :func:`llm_problem`, with a fix."""
    problem = llm_problem(arg)
    if problem is None:
        return None
    if is_api_model(arg):
        return f"{problem} (fix that, or choose another {flag})"
    provider = arg.partition("/")[0]
    return f"{problem}.\nGive a causal LM: {flag}=model:{provider}//abs/dir or a cached hub id."
