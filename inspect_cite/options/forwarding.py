"""Factories that take their shared options from the builder they forward them to.

The three ALCE tasks (and the three FullCite tasks, the ALCE baseline solvers, and the FullCite
posthoc and constrained solvers) share most of their options. Writing each option out in every
``@task`` signature repeats its name, type and default six times, and the copies drift. Instead
a task declares only its dataset's own parameters plus ``**options``, and :func:`forwards_to`
gives it the builder's signature for the rest. Inspect reads a task's parameters through
:func:`inspect.signature` (which ``-T`` names it accepts, and every value with its default in
the log), and so do ``help()`` and :func:`inspect_cite.options.cli_values.accept_cli_values`: all of
them see the whole list, typed, with the builder's defaults. The builder's docs of those options
are appended to the factory's docstring, so ``help()`` shows them in one place.
"""

import functools
import inspect
import sys
import textwrap
import typing
from collections.abc import Callable, Collection
from contextvars import ContextVar
from typing import Any, TypeVar

import docstring_parser

F = TypeVar("F", bound=Callable[..., Any])

# The option docs a factory took over, for a factory that forwards to it in turn.
_OPTION_DOCS = "__forwarded_option_docs__"

# The names of the arguments the caller gave the forwarding factory that is running now.
_GIVEN: ContextVar[frozenset[str] | None] = ContextVar("forwarded_given", default=None)


def given_arguments() -> frozenset[str] | None:
    """The parameters the caller of the running forwarding factory gave it, by name.

    A factory's body (or the builder it calls) reads this to tell a value the user chose from
    a default, even one equal to the default (``-T shot=2``): Inspect passes a task only the
    ``-T`` values given, and ``eval-retry`` only those the log records as passed. None outside
    a forwarding factory's call (a builder called directly from Python).
    """
    return _GIVEN.get()


def forwards_to(
    builder: Callable[..., Any], *, omit: Collection[str] = (), order: str | None = None
) -> Callable[[F], F]:
    """Decorate a factory whose ``**options`` go to ``builder``: its signature gains them.

    The factory's own parameters come first, as written; then each of the builder's
    parameters that is keyword-only, or positional-or-keyword with a default, unless the
    factory declares it itself or ``omit`` names it. ``order`` can rearrange them: Inspect
    hashes task and solver arguments in signature order to recognise an eval-set's finished
    runs, so a factory that once wrote its parameters out keeps their order. The factory can
    be called positionally in that order; its arguments reach it by name. Place it under
    ``@task``/``@solver`` and ``accept_cli_values``.

    Args:
        builder: The function (or class) the factory hands ``**options`` to.
        omit: Builder parameters this factory does not offer (e.g. ASQA-only options).
        order: Every parameter's name, space-separated, in the order the signature shows.

    Raises:
        TypeError: At import, when the factory has no ``**options``, already forwards, or
            has a positional-only or keyword-only parameter of its own,
            ``omit`` names a parameter the builder lacks, a builder parameter without a
            default is neither declared by the factory nor omitted, or ``order`` does not name
            each parameter once.

    """

    def decorate(fn: F) -> F:
        if "__signature__" in vars(fn):
            raise TypeError(f"{fn.__name__} already forwards its options")
        own = inspect.signature(fn)
        if not any(p.kind is p.VAR_KEYWORD for p in own.parameters.values()):
            raise TypeError(f"{fn.__name__} forwards to {builder.__name__}: it needs **options")
        declared = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in declared):
            # `call` passes every argument by name, after binding positional ones in order.
            raise TypeError(
                f"{fn.__name__}: a forwarding factory's own parameters must be "
                "positional-or-keyword"
            )
        names = {p.name for p in declared}
        builder_params = inspect.signature(builder).parameters
        if unknown := set(omit) - set(builder_params):
            raise TypeError(
                f"{fn.__name__}: omit names {sorted(unknown)}, not in {builder.__name__}"
            )
        # A class's parameters are its __init__'s (its own hints are its attributes').
        hints = typing.get_type_hints(builder.__init__ if isinstance(builder, type) else builder)  # type: ignore[misc]
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
                p.replace(kind=p.POSITIONAL_OR_KEYWORD, annotation=hints.get(p.name, p.annotation))
            )
        params = {p.name: p for p in [*declared, *forwarded]}
        if order is not None:
            if sorted(order.split()) != sorted(params):
                raise TypeError(
                    f"{fn.__name__}: order must name each of {sorted(params)} once, got {order!r}"
                )
            params = {name: params[name] for name in order.split()}
        signature = own.replace(parameters=list(params.values()))

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            # Bound by the full signature (a positional argument gets its name; an unknown
            # keyword fails here), then passed by name: forwarded ones land in **options.
            arguments = signature.bind(*args, **kwargs).arguments
            token = _GIVEN.set(frozenset(arguments))
            try:
                return fn(**arguments)
            finally:
                _GIVEN.reset(token)

        call.__signature__ = signature  # type: ignore[attr-defined]
        _set_annotations(
            call,
            {
                **{p.name: p.annotation for p in forwarded if p.annotation is not p.empty},
                **typing.get_type_hints(fn),
            },
        )
        _append_option_docs(call, builder, [p.name for p in forwarded])
        return typing.cast(F, call)

    return decorate


def _set_annotations(fn: Callable[..., Any], annotations: dict[str, Any]) -> None:
    """Set ``fn``'s annotations so that a later ``functools.wraps`` keeps them.

    From Python 3.14 (PEP 649) ``functools.wraps`` copies ``__annotate__``, which a plain
    ``__annotations__`` assignment clears; Inspect's @task/@solver wrap the factory.
    """
    fn.__annotations__ = dict(annotations)
    if sys.version_info >= (3, 14):

        def annotate(format: int) -> dict[str, Any]:
            if format != 1:  # annotationlib.Format.VALUE; others are computed from it
                raise NotImplementedError(format)
            return dict(annotations)

        fn.__annotate__ = annotate  # type: ignore[attr-defined]


def _append_option_docs(
    fn: Callable[..., Any], builder: Callable[..., Any], names: list[str]
) -> None:
    """Append the builder's docs of the forwarded options to ``fn``'s docstring."""
    docs = {
        p.arg_name: p.description or ""
        for p in docstring_parser.parse(builder.__doc__ or "").params
    }
    docs |= getattr(builder, _OPTION_DOCS, {})
    taken = {name: docs[name] for name in names if name in docs}
    own = {p.arg_name: p.description or "" for p in docstring_parser.parse(fn.__doc__ or "").params}
    setattr(fn, _OPTION_DOCS, own | taken)
    if not taken or not fn.__doc__:
        return
    where = f"{builder.__module__}.{builder.__qualname__}"
    lines = [f"Options (from ``{where}``):"]
    for name, text in taken.items():
        lines.append(
            textwrap.fill(
                f"{name}: {text}", width=92, initial_indent="    ", subsequent_indent="        "
            )
        )
    fn.__doc__ = inspect.cleandoc(fn.__doc__) + "\n\n" + "\n".join(lines) + "\n"
