"""One way for a benchmark's task builder to validate, record and use its ``-T`` options.

Both benchmarks' builders (``alce_tasks.task.alce_task``, ``fullcite_tasks.task.fullcite_task``)
refuse a value that is not one of an option's choices with :func:`check_choice`, give
duplicate sample ids a suffix with :func:`unique_sample_ids`, and record their options in the
log's ``metadata["parameters"]`` with :func:`recorded_options`. Each benchmark's strategies
are a table in its own module (``alce_tasks.strategies``, ``fullcite_tasks.strategies``):
strategy name -> solver builder.
"""

from collections.abc import Collection, Iterable, Mapping
from typing import Any, get_args

from inspect_ai.dataset import Sample

from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.http_client import redact_text

SECRET_OPTIONS = ("nli",)
"""Options whose value may hold a credential (a ``remote:`` NLI's URL): the log gets a
redacted copy, while the solvers and scorers are built with the value as given."""


class TaskOptionError(PreflightError, ValueError):
    """A task was given options it cannot run with (each benchmark has its own subclass)."""


def check_choice(
    name: str,
    value: Any,
    choices: Any,
    *,
    what: str | None = None,
    hint: str = "",
    error: type[TaskOptionError] = TaskOptionError,
) -> None:
    """Refuse, naming the ``-T`` flag and the choices, a value that is not one of them.

    Args:
        name: The task parameter (``-T <name>``).
        value: The value given.
        choices: The parameter's ``Literal`` type (or, where more values are accepted than
            the type names, the accepted values).
        what: What a choice is, for the message (default: ``name``).
        hint: Added to the message, e.g. another option to use instead.
        error: The benchmark's error class.

    Raises:
        TaskOptionError: ``-T <name>=<value>: unknown <what>; use one of <choices><hint>``.

    """
    allowed = get_args(choices) or tuple(choices)
    if value not in allowed:
        raise error(
            f"-T {name}={value}: unknown {what or name}; use one of {', '.join(allowed)}{hint}"
        )


MAX_SEED = 2**32 - 1
"""The largest seed a task takes: numpy's ``np.random.seed`` takes 0 .. 2**32 - 1 (run.py seeds
numpy with ALCE's ``-T seed``; FullCite takes the same range)."""


def check_seed(value: Any, *, error: type[TaskOptionError] = TaskOptionError) -> None:
    """Refuse, naming ``-T seed``, a seed that is not a whole number from 0 to :data:`MAX_SEED`.

    Raises:
        TaskOptionError: ``-T seed=<value>: must be a whole number from 0 to 4294967295``.

    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise error(f"-T seed={value}: must be a whole number from 0 to {MAX_SEED}")


def unique_sample_ids(samples: Iterable[Sample]) -> list[Sample]:
    """The samples, each id suffixed with ``-<index>`` when any id occurs twice."""
    samples = list(samples)
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        for i, s in enumerate(samples):
            s.id = f"{s.id}-{i}"
    return samples


def recorded_options(
    options: Mapping[str, Any], *, omit: Collection[str] = (), **resolved: Any
) -> dict[str, Any]:
    """The task's options as the log's ``metadata["parameters"]`` records them.

    Args:
        options: The builder's arguments as given, in its signature's order (``locals()``
            at its top).
        omit: Options not recorded here (the dataset; another dataset's own options).
        **resolved: Values the builder resolved (a strategy's default, a flag another one
            turns on) or adds: each replaces the given value, in its place.

    Returns:
        The options by name, :data:`SECRET_OPTIONS` redacted.

    """
    record = {name: value for name, value in options.items() if name not in omit}
    record.update(resolved)
    for name in SECRET_OPTIONS:
        if isinstance(record.get(name), str):
            record[name] = redact_text(record[name])
    return record
