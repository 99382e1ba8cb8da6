"""``--model-role`` of ``inspect-cite check``: read as ``inspect eval`` reads it, checked unloaded.

``inspect eval`` loads the model under test, then each role's model, and only then builds the
task, so a role's model that cannot be had (``--model-role grader=hf//tmp/nope``) stops the run
with a traceback after the model under test has loaded, before any check of this project's
runs. ``inspect-cite check`` reads the roles as Inspect does, checks each model without
loading it (:func:`inspect_cite.nli.checked.llm_problem`), and hands them to the task's own
role checks (:func:`inspect_cite.checks.run.declared_roles`), so one message names every
problem first.
"""

from typing import Any

import yaml

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.run import RoleModel
from inspect_cite.nli.checked import is_api_model, llm_problem
from inspect_cite.options.cli_values import cli_value

ROLE_FLAG = "--model-role"

_FORMS = "ROLE=MODEL, ROLE=MODEL,MODEL or ROLE={model: MODEL, model_args: {...}}"


def _role_model(role: str, text: str, value: Any) -> RoleModel:
    if isinstance(value, str) and value:
        return RoleModel(value)
    if isinstance(value, dict) and isinstance(value.get("model"), str):
        args = value.get("model_args") or {}
        if isinstance(args, dict):
            return RoleModel(value["model"], args)
    raise PreflightError(f"{ROLE_FLAG} {role}={text}: expected {_FORMS}")


def parse_roles(values: list[str]) -> tuple[dict[str, list[RoleModel]], list[PreflightError]]:
    """Each ``--model-role`` as the models it binds, and the values that cannot be read.

    Args:
        values: ``ROLE=MODEL`` (or a list, or YAML with ``model`` and ``model_args``), as
            ``inspect eval --model-role`` takes them.

    Returns:
        The models per role (a role whose value cannot be read binds none), and a refusal
        for each such value.

    """
    roles: dict[str, list[RoleModel]] = {}
    refused = []
    for given in values:
        role, sep, text = given.partition("=")
        role = role.strip()
        if not sep or not role:
            refused.append(PreflightError(f"{ROLE_FLAG} {given}: expected {_FORMS}"))
            continue
        roles[role] = []
        try:
            value = cli_value(text)
        except yaml.YAMLError:
            refused.append(PreflightError(f"{ROLE_FLAG} {role}={text}: expected {_FORMS}"))
            continue
        for item in value if isinstance(value, list) else [value]:
            item = item.strip() if isinstance(item, str) else item
            if item == "":
                continue  # a trailing comma, as Inspect drops it
            try:
                roles[role].append(_role_model(role, text, item))
            except PreflightError as e:
                refused.append(e)
    return roles, refused


def role_problems(roles: dict[str, list[RoleModel]]) -> list[PreflightError]:
    """A refusal for each role's model that Inspect could not make: loads nothing.

    Weights Inspect would load (``hf/``, ``nnterp/``, a folder for ``vllm/``) must be a causal
    LM in a folder or the Hugging Face cache; an API model's client must be made (its package
    and key). ``model_args``' ``model_path`` names the weights where it is given, as for ``hf/``.
    """
    refused = []
    for role, models in roles.items():
        for model in models:
            path = model.model_args.get("model_path")
            checked = f"{model.provider}/{path}" if isinstance(path, str) else model.model
            problem = llm_problem(checked)
            if problem is None:
                continue
            fix = (
                ""
                if is_api_model(checked)
                else f"\nGive a causal LM: {ROLE_FLAG} {role}={model.provider}//abs/dir "
                "or a cached hub id."
            )
            refused.append(PreflightError(f"{ROLE_FLAG} {role}={model.model}: {problem}.{fix}"))
    return refused
