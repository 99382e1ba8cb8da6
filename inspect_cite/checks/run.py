"""What the eval that is building a task says: its model, roles, generate config.

Checked while Inspect builds the task (the model under test, the roles bound with
``--model-role``, the eval's ``--temperature`` and ``--extra-body``), so that a run that cannot
finish stops before its first sample.
"""

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import GenerateConfig, ModelName

from inspect_cite.checks.errors import PreflightError
from inspect_cite.generation.thinking import thinking_conflict

NATIVE_CITATION_PROVIDERS = ("anthropic",)
"""Inspect providers that return document citations (``ContentText.citations``)."""

NO_DOCUMENT_CITATIONS = frozenset(
    "openai openai-api openai-api-completions google hf vllm vllm-completions sglang "
    "cloudflare mistral grok together fireworks moonshot meta litellm-proxy deepseek "
    "sambanova ollama openrouter perplexity llama-cpp-python azureai bedrock sagemaker "
    "transformer_lens nnterp none hf-inference-providers groq".split()
)
"""Inspect's own providers that never return document citations (see
:func:`native_citations_problem`)."""


SAMPLING_PROVIDER = "hf"
"""Inspect's provider that samples unless its model was loaded with ``do_sample=false``, and
then cannot be asked for temperature 0 (transformers refuses to sample at it)."""

_CANNOT_SAMPLE_AT_0 = (
    f"the {SAMPLING_PROVIDER}/ provider samples, and cannot sample at a temperature of 0"
)


@dataclass(frozen=True)
class RoleModel:
    """A model bound to a model role, as far as a check needs it (nothing is loaded).

    Attributes:
        model: ``provider/name`` (e.g. ``hf//abs/dir``, ``openai/gpt-4o``).
        model_args: Its model arguments (``do_sample``, ``device``, ...).

    """

    model: str
    model_args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def provider(self) -> str:
        """The provider, ``hf`` in ``hf//abs/dir``."""
        return self.model.partition("/")[0]


# The roles `inspect-cite check` was given (its own stand-in models answer for them).
_declared_roles: dict[str, list[RoleModel]] | None = None
# The model `inspect-cite check --model` was given (its stand-in model answers for it).
_declared_model: str | None = None


@contextmanager
def declared_model(model: str | None) -> Iterator[None]:
    """Have the model checks read ``model`` while a task is built with a stand-in model.

    ``inspect-cite check --model X`` builds the task with Inspect's ``mockllm`` so that
    nothing is loaded; what depends on the model under test (its provider, a HELMET row's
    tokenizer) reads ``X`` from here instead (:func:`declared_model_name`).
    """
    global _declared_model
    previous, _declared_model = _declared_model, model
    try:
        yield
    finally:
        _declared_model = previous


def declared_model_name() -> str | None:
    """The model ``inspect-cite check --model`` declared (``provider/name``), or None."""
    return _declared_model


@contextmanager
def declared_roles(roles: Mapping[str, list[RoleModel]]) -> Iterator[None]:
    """Have the role checks read ``roles`` while a task is built with stand-in models.

    ``inspect-cite check`` builds a task with Inspect's ``mockllm`` in every role, so that
    nothing is loaded; the checks of what a role's model can do (:func:`check_role` with a
    temperature) read the models the run will bind from here instead.
    """
    global _declared_roles
    previous, _declared_roles = _declared_roles, {k: list(v) for k, v in roles.items()}
    try:
        yield
    finally:
        _declared_roles = previous


def bound_role_models(role: str) -> list[RoleModel] | None:
    """The models bound to ``role`` for the eval building the task; None when unknown."""
    if _declared_roles is not None:
        return _declared_roles.get(role, [])
    from inspect_ai.model import model_roles

    if eval_model() is None:
        return None
    bound = model_roles().get(role)
    models = [] if bound is None else bound if isinstance(bound, list) else [bound]
    return [RoleModel(str(ModelName(m)), dict(m.model_args)) for m in models]


def eval_model() -> Any:
    """The model of the eval that is building the task (an Inspect ``Model``), or None.

    Inspect makes the model active before it builds the tasks it was given by name, so a
    task can check what depends on the model (its provider) before any sample. A task built
    in Python and then passed to ``eval()`` is built before: then nothing can be known.
    """
    try:
        # Private: whether an eval is building the task now (its model is active). There is
        # no public way to tell "no model yet" from "built outside an eval".
        from inspect_ai.model._model import active_model
    except ImportError:
        return None
    return active_model()


def eval_generate_config() -> Any:
    """The generate config given to the eval that is building the task (``--temperature``...).

    An Inspect ``GenerateConfig``, or None outside an eval (see :func:`eval_model`).
    """
    if eval_model() is None:
        return None
    try:
        # Private, as above: the eval-level config is only reachable through the context
        # Inspect sets with the active model.
        from inspect_ai.model._generate_config import active_generate_config
    except ImportError:
        return None
    return active_generate_config()


def bound_model_roles() -> set[str] | None:
    """The model roles bound for the eval that is building the task; None when unknown.

    Inspect binds ``--model-role`` (``eval(model_roles=...)``) before it builds the tasks
    it was given by name, so ``model_roles()`` tells them. A task built in Python and then
    passed to ``eval()`` is built before its roles exist: then nothing can be known.
    """
    from inspect_ai.model import model_roles

    if eval_model() is None:
        return None
    return set(model_roles())


def active_model_name() -> str | None:
    """``provider/model`` of the model an eval is building the task for; None when unknown."""
    from inspect_ai.model import ModelName

    if _declared_model is not None:
        return _declared_model
    model = eval_model()
    return None if model is None else str(ModelName(model))


def native_citations_problem(model: str) -> str | None:
    """Why ``model`` (``provider/name``) cannot return document citations, or None.

    Inspect's providers were read for where they make ``DocumentCitation``s from the
    documents they were sent (inspect_ai 0.3.285): only ``anthropic/`` does (its
    ``char_location`` citations, also through ``anthropic/bedrock/`` and ``anthropic/vertex/``).
    ``openai/``'s Responses API makes them only from its own file search, ``google/``,
    ``perplexity/``, ``grok/`` and ``mistral/`` return URL citations only, and the others none.
    ``mockllm/`` replays what it is given and a plugin's own provider cannot be known: both
    pass.
    """
    provider = model.split("/", 1)[0]
    if provider in NATIVE_CITATION_PROVIDERS or provider not in NO_DOCUMENT_CITATIONS:
        return None
    names = ", ".join(f"{p}/" for p in NATIVE_CITATION_PROVIDERS)
    return (
        f"the {provider}/ provider cannot return document citations; only {names} models "
        "can (Claude, also as anthropic/bedrock/ and anthropic/vertex/)"
    )


def check_native_citations(model: str | None, *, what: str, fix: str) -> None:
    """Refuse a model whose provider cannot return document citations (where it is known).

    Args:
        model: ``provider/name``; None (not known yet) passes.
        what: What needs the citations, e.g. ``-T strategy=native``.
        fix: The alternative to offer.

    Raises:
        PreflightError: One line naming the providers that can, and the fix.

    """
    problem = None if model is None else native_citations_problem(model)
    if problem is not None:
        raise PreflightError(f"{what} with {model}: {problem}. {fix}")


def check_role(
    roles: Iterable[str], *, what: str, fix: str, temperature: float | None = None
) -> None:
    """Refuse to build a task when none of ``roles`` is bound (where that can be known).

    Args:
        roles: Role names any one of which will do (e.g. ``annotator``, ``grader``).
        what: What needs the role, e.g. ``-T judge=true``.
        fix: The alternative to offer.
        temperature: The temperature the role is asked at, where the task fixes it (LongCite's
            grader: 0): a model that cannot be asked at it is refused too.

    Raises:
        PreflightError: Naming what needs the role and the fix.

    """
    roles = list(roles)
    bound = bound_model_roles()
    if _declared_roles is not None:
        bound = set(_declared_roles)
    if bound is not None and not bound & set(roles):
        raise PreflightError(
            f"{what} needs a model bound to the role '{roles[0]}', and none is.\n{fix}"
        )
    if temperature is None:
        return
    for role in roles:
        for model in bound_role_models(role) or []:
            problem = role_sampling_problem(role, model, temperature, what=what)
            if problem is not None:
                raise PreflightError(problem)


def role_sampling_problem(
    role: str, model: RoleModel, temperature: float, *, what: str
) -> str | None:
    """Why ``model``, bound to ``role``, cannot be asked at ``temperature``; or None.

    As :func:`check_sampling` for the model under test: an ``hf/`` model loaded without
    ``do_sample=false`` samples, and transformers refuses a temperature of 0, so every call
    would fail after the model under test had answered every sample.
    """
    if (
        model.provider != SAMPLING_PROVIDER
        or temperature > 0
        or model.model_args.get("do_sample") is False
    ):
        return None
    return (
        f"--model-role {role}={model.model}: {what} asks the '{role}' role at temperature "
        f"{temperature:g}, and {_CANNOT_SAMPLE_AT_0}.\nPass do_sample=false to decode greedily: "
        f"--model-role '{role}={{model: {model.model}, model_args: {{do_sample: false}}}}'."
    )


def check_sampling(task_config: GenerateConfig) -> None:
    """Refuse a temperature the model under test cannot sample at, while the task is built.

    Inspect's ``hf/`` provider samples unless ``-M do_sample=false``, and transformers refuses
    to sample at a temperature of 0 or less: without this check ``--temperature 0`` fails at
    the first sample, after the weights were loaded. Other providers read 0 as greedy.

    Args:
        task_config: The task's generate config (``--temperature`` overrides its temperature).

    Raises:
        PreflightError: Naming ``--temperature`` and the fix, ``-M do_sample=false``.

    """
    try:
        # Private: the model an eval is building the task for (as in bound_model_roles).
        from inspect_ai.model._model import active_model
    except ImportError:
        return
    model = active_model()
    if model is None or ModelName(model).api != SAMPLING_PROVIDER:
        return
    temperature = model.config.temperature
    if temperature is None:
        temperature = task_config.temperature
    if temperature is None or temperature > 0 or model.model_args.get("do_sample") is False:
        return
    raise PreflightError(
        f"--temperature {temperature:g}: {_CANNOT_SAMPLE_AT_0}.\nPass -M do_sample=false to "
        "decode greedily (or a temperature above 0)."
    )


def check_thinking_switch(thinking: bool, task_config: GenerateConfig) -> None:
    """Refuse, while the task is built, model settings that contradict ``-T thinking``.

    The same check runs again as each sample is generated (``solvers/thinking``), for tasks
    built outside an eval, where the model is not known yet.

    Args:
        thinking: The task's ``-T thinking``.
        task_config: The task's generate config (the eval's ``--extra-body`` is merged in).

    Raises:
        PreflightError: Naming ``-M enable_thinking`` or ``--extra-body`` and the fix.

    """
    model = eval_model()
    if model is None:
        return
    config = model.config.merge(task_config)
    given = eval_generate_config()
    if given is not None:
        config = config.merge(given)
    conflict = thinking_conflict(model, thinking, config)
    if conflict is not None:
        raise PreflightError(str(conflict))
