"""Factories that take their shared options from the builder they forward them to.

The three ALCE tasks (and the three FullCite tasks, and SUMM/SNIPPET) share most of their
options. Writing each option out in every ``@task`` signature repeats its name, type and
default six times, and the copies drift. Instead a task declares only its dataset's own
parameters plus ``**options``, and :func:`forwards_to` gives it the builder's signature for the
rest. Inspect reads a task's parameters through :func:`inspect.signature` (which ``-T`` names
it accepts, and every value with its default in the log), and so do ``help()`` and
:func:`inspect_cite.cli_values.accept_cli_values`: all of them see the whole list, typed, with
the builder's defaults.
"""

import inspect
import typing
from collections.abc import Callable, Collection
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def forwards_to(builder: Callable[..., Any], *, omit: Collection[str] = ()) -> Callable[[F], F]:
    """Decorate a factory whose ``**options`` go to ``builder``: its signature gains them.

    The factory's own parameters come first, as written; then, keyword-only, each of the
    builder's parameters that has a default or is keyword-only, unless the factory declares
    it itself or ``omit`` names it. Place it under ``@task``/``@solver`` and
    ``accept_cli_values``.

    Args:
        builder: The function the factory hands ``**options`` to.
        omit: Builder parameters this factory does not offer (e.g. ASQA-only options).

    Raises:
        TypeError: At import, when the factory has no ``**options``, ``omit`` names a parameter
            the builder lacks, or a builder parameter without a default is neither declared
            by the factory nor omitted.

    """

    def decorate(fn: F) -> F:
        own = inspect.signature(fn)
        if not any(p.kind is p.VAR_KEYWORD for p in own.parameters.values()):
            raise TypeError(f"{fn.__name__} forwards to {builder.__name__}: it needs **options")
        declared = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        names = {p.name for p in declared}
        builder_params = inspect.signature(builder).parameters
        if unknown := set(omit) - set(builder_params):
            raise TypeError(
                f"{fn.__name__}: omit names {sorted(unknown)}, not in {builder.__name__}"
            )
        # A class's parameters are its __init__'s (its own hints are its attributes').
        hints = typing.get_type_hints(
            vars(builder)["__init__"] if isinstance(builder, type) else builder
        )
        forwarded = []
        for p in builder_params.values():
            offered = p.kind is p.KEYWORD_ONLY or (
                p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty
            )
            if not offered or p.name in names or p.name in omit:
                continue
            if p.default is p.empty:
                raise TypeError(
                    f"{fn.__name__}: {builder.__name__}'s {p.name} has no default; declare it"
                )
            forwarded.append(
                p.replace(kind=p.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
            )
        # Keyword-only after the factory's own: they reach the factory only through **options.
        fn.__signature__ = own.replace(parameters=[*declared, *forwarded])  # type: ignore[attr-defined]
        fn.__annotations__ = {
            **{p.name: p.annotation for p in forwarded},
            **fn.__annotations__,
        }
        return fn

    return decorate
