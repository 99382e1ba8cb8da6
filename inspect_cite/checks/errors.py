"""The error a user fixes by changing a flag, a file or the machine: shown as its message alone."""

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from rich.markup import escape

try:
    # Private, but the only way to have Inspect print an error raised while it builds a task
    # as its message alone: its exception hook prints a PrerequisiteError without the
    # traceback and the exception group around it (150-270 lines otherwise). No public
    # import exists in inspect_ai 0.3.285.
    from inspect_ai._util.error import PrerequisiteError as _Prerequisite
except ImportError:  # a later inspect_ai moved it: the message is still right, only longer
    _Prerequisite = Exception  # type: ignore[assignment,misc]


class PreflightError(_Prerequisite):  # type: ignore[misc,valid-type]
    """What a run needs is missing or unusable: a flag, a file, a model or the machine.

    Raised before any sample is generated. ``str(error)`` is the message; ``inspect eval``
    prints it alone, without a traceback. Not a ``ValueError`` itself; the project's data and
    spec errors are both (``class AlceDataError(PreflightError, ValueError)``). Inspect reads
    a ValueError raised while it builds a ``--scorer`` given by registry name as "couldn't be
    loaded"; the hook of :func:`report_uncaught_refusals` prints the refusal it replaced.

    Args:
        message: What is wrong and the fix, naming the flag (e.g. ``-T nli=...``).

    """

    def __init__(self, message: str) -> None:
        # Messages quote the user's flags back; a URL's credentials must not reach a terminal
        # or log, wherever the message was written.
        from inspect_cite.downloads.http_client import redact_text

        message = redact_text(message)
        Exception.__init__(self, message)
        # Inspect prints `message` as rich markup: "[1]" or "[x]" in a path must stay text.
        self.message = escape(message)


class ArgumentError(PreflightError, ValueError):
    """A solver or scorer argument that cannot be used, refused when the factory is called.

    A ``ValueError`` for Python callers (what these factories raised before); a
    :class:`PreflightError`, so that ``inspect eval --solver`` and ``inspect score --scorer
    scorers/<name>.py`` print the message alone instead of a traceback. With a registry name
    (``--scorer scorers/<name>``) Inspect's loader reads the ValueError as "couldn't be loaded"
    and raises that instead; the hook of :func:`report_uncaught_refusals` prints this message
    in its place (docs/scale.md, Robustness). The message names the argument (e.g. ``retries
    must be >= 0, got -1``).
    """


class ArgumentTypeError(PreflightError, TypeError):
    """A solver or scorer argument of the wrong type, or one the factory does not take.

    A ``TypeError``, as Python raises for these, and deliberately not a ``ValueError``, so that
    ``inspect score --scorer scorers/<name>`` prints the message too. The message names the
    flag, the option and what it takes (e.g. ``-S threshold must be a number, got 'abc'``).
    """


class TaskArgumentTypeError(ArgumentTypeError, ValueError):
    """A task's ``-T`` value of the wrong type, or an option the task does not take.

    Also a ``ValueError``, as the tasks' other ``-T`` checks are: Inspect builds a task outside
    the ``--scorer`` loader, so no message is lost.
    """


class PreflightErrors(PreflightError, ValueError):
    """Several independent things a run needs are missing: all of them, in one message.

    A ``ValueError`` as the data errors it gathers are, for Python callers.

    Args:
        errors: The refusals of the checks that failed, in the order they ran.

    """

    def __init__(self, errors: list[PreflightError]) -> None:
        self.errors = errors
        items = []
        for i, error in enumerate(errors, 1):
            first, *rest = str(error).splitlines() or [""]
            items.append("\n".join([f"{i}. {first}", *(f"   {line}" for line in rest)]))
        super().__init__(f"{len(errors)} problems stop this run:\n" + "\n".join(items))


class Refusals:
    """Collects the refusals of independent checks, so that one run reports all of them.

    Example::

        refusals = Refusals()
        with refusals.check():
            check_data()
        with refusals.check():
            check_prompt_file()
        refusals.raise_any()

    """

    def __init__(self) -> None:
        self.errors: list[PreflightError] = []

    def __bool__(self) -> bool:
        return bool(self.errors)

    @contextmanager
    def check(self, *, passing: tuple[type[PreflightError], ...] = ()) -> Iterator[None]:
        """Run a check; a :class:`PreflightError` it raises is kept instead of propagating.

        Args:
            passing: Refusals that propagate at once (a ``-T`` value the task cannot take is
                reported alone, before what the run's files and models lack).

        """
        try:
            yield
        except passing:
            raise
        except PreflightError as e:
            # A check that gathered several problems itself adds each: one numbered list.
            for error in e.errors if isinstance(e, PreflightErrors) else [e]:
                # Two checks may need the same missing file: it is named once.
                if str(error) not in (str(seen) for seen in self.errors):
                    self.errors.append(error)

    def raise_any(self) -> None:
        """Raise what was collected: one refusal as it is, several as :class:`PreflightErrors`."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise PreflightErrors(self.errors)


def _refusal(error: BaseException | None) -> PreflightError | None:
    """The PreflightError an uncaught exception is, holds in its exception group, or replaced.

    Inspect's ``--scorer`` loader (``scorer_from_spec`` in inspect_ai 0.3.285) catches a
    ``ValueError`` raised while it builds a scorer given by registry name and raises its own
    ``PrerequisiteError`` ("The scorer ... couldn't be loaded") in its place, inside its
    ``except`` block, so the refusal it replaced is that error's ``__context__``. Only Inspect's
    own prerequisite errors are looked through: any other exception keeps its traceback.
    """
    if isinstance(error, PreflightError):
        return error
    for inner in getattr(error, "exceptions", None) or ():
        found = _refusal(inner)
        if found is not None:
            return found
    if isinstance(error, _Prerequisite) and _Prerequisite is not Exception:
        seen: set[int] = set()
        cause = error.__cause__ or error.__context__
        while cause is not None and id(cause) not in seen:
            seen.add(id(cause))
            if isinstance(cause, PreflightError):
                return cause
            cause = cause.__cause__ or cause.__context__
    return None


ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], Any]


class _RefusalHook:
    """``sys.excepthook`` that prints an uncaught refusal's message to stderr, alone."""

    def __init__(self, inner: ExceptHook) -> None:
        self.inner = inner

    def __call__(
        self, kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        refusal = _refusal(error)
        if refusal is None:
            self.inner(kind, error, traceback)
            return
        # Plain text, not wrapped to the terminal: the message names paths and flags to copy.
        print(f"\n{refusal}\n", file=sys.stderr, flush=True)


def report_uncaught_refusals() -> None:
    """Have a refusal that nobody catches end the process with its message on stderr.

    Inspect's exception hook prints a PrerequisiteError through its rich console, which
    ``--display none`` silences (scripts and CI then see exit code 1 and nothing else), and
    on stdout otherwise. Called when a refusal leaves a task, solver or scorer factory (that
    is, once Inspect's hook is in place): the hook installed here prints the message to
    stderr, once, under every display, and hands any other exception to the hook it wraps.
    A caller that catches the error (``inspect_ai.eval`` in Python) sees no output from it.
    """
    if not isinstance(sys.excepthook, _RefusalHook):
        sys.excepthook = _RefusalHook(sys.excepthook)
