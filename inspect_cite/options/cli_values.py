"""Task, solver and scorer arguments as Inspect's CLI hands them over.

``inspect eval -T key=value`` (and ``-S``, ``-M``) YAML-parses each value, so ``-T nli=true``
arrives as the boolean ``True``, ``-T dataset_path=2024`` as the integer ``2024`` and
``-T nli=null`` as ``None``. A parameter annotated as text (``str``, ``str | None``, a
``Literal`` of strings) gets such a scalar back as the text that was typed: ``True`` is
``"true"``, ``2024`` is ``"2024"``. What cannot be text (a list, a mapping, or ``null`` where
a value is required) is refused with one message naming the flag.

A parameter annotated as a number or a boolean (``int``, ``float``, ``bool``, each possibly
``| None``) refuses what is not one (``-T ndoc=abc``, ``-T qa=maybe``), and an option the
factory does not take (``-S max_position=3``) is refused with the options it does take, before
anything is built. YAML leaves ``1e-3`` (no decimal point) as text; a number parameter reads it.

A task's parameter it does not take (``-T ndocs=3``) is refused too, naming the close match,
however the task is run. Inspect hands a task only the arguments its signature names and drops
the others with a logged warning (``inspect eval`` shows it; ``inspect_ai.eval(task,
task_args=...)`` from Python, under ``display="none"`` or in a notebook, shows nothing), unless
the signature takes ``**kwargs``: so the signature a ``-T`` factory shows ends in ``**options``,
every task argument reaches it, and it refuses those it does not take.

A refusal (:class:`inspect_cite.checks.errors.PreflightError`) leaving a decorated factory is
printed to stderr if nobody catches it, whatever Inspect's ``--display``
(:func:`inspect_cite.checks.errors.report_uncaught_refusals`).
"""

import difflib
import functools
import inspect
import numbers
import os
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, Union

import numpy as np
import yaml

from inspect_cite.checks.errors import (
    ArgumentTypeError,
    PreflightError,
    TaskArgumentTypeError,
    report_uncaught_refusals,
)

F = TypeVar("F", bound=Callable[..., Any])

_SCALARS = (bool, int, float)


def cli_value(text: str) -> Any:
    """A ``-T`` or ``--model-role`` value as ``inspect eval`` reads it: YAML; ``a,b`` a list."""
    value = yaml.safe_load(text)
    if isinstance(value, str) and "," in value:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if isinstance(node, yaml.ScalarNode) and node.style is None:
            return value.split(",")
    return value


def yaml_text(value: bool | int | float) -> str:
    """The text a YAML scalar was typed as (``True`` -> ``"true"``, ``7`` -> ``"7"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _members(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (Union, types.UnionType):
        return tuple(m for arg in typing.get_args(hint) for m in _members(arg))
    return (hint,)


def _text_param(hint: Any) -> tuple[bool, bool, bool] | None:
    """For a text-typed annotation: (accepts None, accepts containers, accepts scalars)."""
    members = _members(hint)
    is_text = any(
        m is str
        or (typing.get_origin(m) is typing.Literal and all(isinstance(a, str) for a in m.__args__))
        for m in members
    )
    if not is_text:
        return None
    origins = {typing.get_origin(m) or m for m in members}
    containers = bool(origins & {list, dict, tuple, set})
    return type(None) in members, containers, bool(origins & set(_SCALARS))


# What a number or boolean parameter must be, as the message says it.
_TAKES = {"int": "an integer", "float": "a number", "bool": "true or false"}


def _typed_param(hint: Any) -> tuple[str, bool] | None:
    """Kind (``int``, ``float``, ``bool``) and whether None is allowed, for a number or flag."""
    members = set(_members(hint))
    optional = type(None) in members
    members.discard(type(None))
    if members == {bool}:
        return "bool", optional
    if members == {int}:
        return "int", optional
    if members in ({float}, {float, int}):
        return "float", optional
    return None


def _number_text(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value  # refused as it was typed


def _fits(kind: str, value: Any) -> bool:
    if isinstance(value, np.bool_):
        value = bool(value)
    if kind == "bool":
        # 0 and 1 are how some callers spell a flag; text (``maybe``) is a typo, not a choice.
        return isinstance(value, bool) or (isinstance(value, numbers.Integral) and value in (0, 1))
    if isinstance(value, bool):
        return False
    if kind == "int":
        return isinstance(value, numbers.Integral)
    return isinstance(value, numbers.Real)


def _shown(value: Any) -> str:
    return yaml_text(value) if isinstance(value, _SCALARS) else str(value)


def as_text(value: Any, *, name: str, flag: str, optional: bool = False) -> Any:
    """``value`` with a YAML scalar turned back into its text.

    Args:
        value: What the CLI (or a caller) passed.
        name: The parameter's name.
        flag: ``-T`` for tasks, ``-S`` for solvers and scorers.
        optional: Whether ``None`` (``null``) is a valid value.

    Raises:
        PreflightError: For ``None`` where a value is required, or a list or mapping.

    """
    if isinstance(value, str):
        return value
    if value is None:
        if optional:
            return None
        raise PreflightError(f"{flag} {name}=null: {name} needs a value")
    if isinstance(value, _SCALARS):
        return yaml_text(value)
    if isinstance(value, dict) and len(value) == 1:
        # YAML reads `-T nli=remote:` (a prefix with nothing after it) as {"remote": None}.
        [(key, inner)] = value.items()
        if isinstance(key, str) and inner is None:
            return f"{key}:"
    raise PreflightError(
        f"{flag} {name}={value!r}: {name} takes text (a name, spec or path), "
        f"not a {type(value).__name__}"
    )


def unknown_parameter_problem(name: str, value: Any, owner: str, known: Sequence[str]) -> str:
    """What a refusal says of a ``-T`` parameter a task does not take.

    Args:
        name: The parameter given.
        value: Its value (shown as YAML, as it was typed).
        owner: The task (or tasks) that do not take it, e.g. ``alce_tasks/asqa``.
        known: The parameters the task takes (the close match is offered, else all).

    Returns:
        ``-T ndocs=3: alce_tasks/asqa takes no parameter 'ndocs'; did you mean -T ndoc?``

    """
    shown = yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()
    refused = f"-T {name}={shown}: {owner} takes no parameter"
    if not known:
        return f"{refused}s"  # a task without parameters has no list to offer
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"did you mean -T {close[0]}?" if close else f"its parameters: {', '.join(known)}"
    return f"{refused} {name!r}; {hint}"


def _task_name(fn: Callable[..., Any]) -> str:
    """The name Inspect registers a task of an installed package under: ``package/name``.

    A task file Inspect loaded by its path (``inspect eval longcite_tasks/longbench_cite.py``,
    ``inspect-cite check FILE@task``) is a module named by that path: when its folder is a
    package, the name is still ``package/name``, whichever way the function was reached.
    """
    module = fn.__module__
    if os.sep in module:
        folder = Path(module).parent
        if (folder / "__init__.py").is_file():
            return f"{folder.name}/{fn.__name__}"
        return fn.__name__
    package, dot, _ = module.partition(".")
    return f"{package}/{fn.__name__}" if dot else fn.__name__


def accept_cli_values(flag: str) -> Callable[[F], F]:
    """Decorate a task, solver or scorer factory so its text parameters take typed CLI values.

    Place it under ``@task``/``@solver``/``@scorer``; the signature seen by Inspect is kept.

    Args:
        flag: How the parameters are given on the command line: ``-T`` or ``-S``.

    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        # Parameters a factory takes through **options (inspect_cite.options.forwarding) are typed
        # in its signature; its own may be strings there (`from __future__ import annotations`).
        hints = {
            name: p.annotation
            for name, p in signature.parameters.items()
            if p.annotation is not p.empty and not isinstance(p.annotation, str)
        } | typing.get_type_hints(fn, include_extras=False)
        params = {
            name: kind
            for name, hint in hints.items()
            if name != "return" and (kind := _text_param(hint)) is not None
        }

        typed = {
            name: number
            for name, hint in hints.items()
            if name != "return" and (number := _typed_param(hint)) is not None
        }
        takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())

        refused = TaskArgumentTypeError if flag == "-T" else ArgumentTypeError

        def build(*args: Any, **kwargs: Any) -> Any:
            unknown = [] if takes_any else [k for k in kwargs if k not in signature.parameters]
            if unknown and flag == "-T":
                known = list(signature.parameters)
                raise refused(
                    "; ".join(
                        unknown_parameter_problem(name, kwargs[name], _task_name(fn), known)
                        for name in unknown
                    )
                )
            if unknown:
                name = unknown[0]
                options = (
                    f"its options are {', '.join(signature.parameters)}"
                    if signature.parameters
                    else "it takes no options"
                )
                raise refused(
                    f"{flag} {name}={_shown(kwargs[name])}: unexpected keyword argument "
                    f"'{name}' for {fn.__name__}; {options}"
                )
            bound = signature.bind_partial(*args, **kwargs)
            for name, value in bound.arguments.items():
                if (number := typed.get(name)) is not None:
                    number_kind, number_optional = number
                    if number_kind == "float" and isinstance(value, str):
                        value = bound.arguments[name] = _number_text(value)
                    if number_kind == "bool" and isinstance(value, str):
                        # From Python (eval(task_args={"qa": "true"})) a flag can come as
                        # the text the CLI would have parsed; other text is a typo.
                        flag_text = value.strip().lower()
                        if flag_text in ("true", "false"):
                            value = bound.arguments[name] = flag_text == "true"
                    if value is None and not number_optional:
                        raise refused(f"{flag} {name}=null: {name} needs a value")
                    if value is not None and not _fits(number_kind, value):
                        raise refused(f"{flag} {name} must be {_TAKES[number_kind]}, got {value!r}")
                    continue
                kind = params.get(name)
                if kind is None:
                    continue
                optional, containers, scalars = kind
                if value is None:
                    keep = optional
                elif isinstance(value, _SCALARS):
                    keep = scalars
                elif isinstance(value, list | dict | tuple | set):
                    keep = containers
                else:
                    # A str, or an object a Python caller passes where the annotation allows
                    # it too (a Solver for `base`, a Model for `model`): not a CLI value.
                    keep = True
                if not keep:
                    bound.arguments[name] = as_text(value, name=name, flag=flag)
            return fn(*bound.args, **bound.kwargs)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return build(*args, **kwargs)
            except PreflightError:
                # Inspect builds factories once its exception hook is in place: an uncaught
                # refusal must reach stderr under every --display (none silences Inspect's).
                report_uncaught_refusals()
                raise

        # The signature Inspect sees is the factory's own: Inspect hands a task only the -T
        # arguments it names. Widening it with **options (so that a task refuses an unknown
        # one itself) broke `inspect eval-set` over two families, whose -T arguments reach
        # every task; an unknown -T is refused by `inspect-cite check` and by direct calls.
        return typing.cast(F, wrapper)

    return decorate
