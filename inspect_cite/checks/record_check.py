"""The one check of a data record's fields: every loader reads wrong types as one clear error.

A loader checks each field it reads, at every depth, with :class:`RecordCheck`, so a wrong type
anywhere is one error naming the file, the record and the field path
(``snippets[2].offsetInBeginSection``), never a TypeError deep in the loader. Used by the FullCite
loaders (``fullcite_tasks.data``) and the core's ExpertQA reader
(:mod:`inspect_cite.benchmarks.expertqa_file`). A file's records are all checked before it is
refused: :func:`each_problem` runs a record's check on every record and :func:`problems_error` names
every record at fault in one error (ALCE's items, :mod:`inspect_cite.alce.items`, too).
"""

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

FieldPath = tuple[str | int, ...]
T = TypeVar("T")

_MISSING = object()
# How much of a wrong value an error message quotes.
_QUOTE_CHARS = 40


@dataclass(frozen=True)
class Kind:
    """A JSON shape a field must have.

    Attributes:
        name: What the message says is expected (``an integer``).
        test: Whether a value has the shape.

    """

    name: str
    test: Callable[[Any], bool]


STRING = Kind("a string", lambda v: isinstance(v, str))
INTEGER = Kind("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
OBJECT = Kind("an object", lambda v: isinstance(v, dict))
LIST = Kind("a list", lambda v: isinstance(v, list))
STRING_OR_LIST = Kind("a string or a list", lambda v: isinstance(v, str | list))
ID = Kind(
    "a string or an integer",
    lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)),
)


def field_name(path: FieldPath) -> str:
    """``("snippets", 2, "offsetInBeginSection")`` -> ``snippets[2].offsetInBeginSection``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _got(value: Any) -> str:
    if value is _MISSING:
        return "it is missing"
    if value is None:
        return "got null"
    if isinstance(value, bool):
        return f"got {json.dumps(value)}"
    if isinstance(value, int | float):
        return f"got the number {value!r:.{_QUOTE_CHARS}}"
    if isinstance(value, str):
        return f"got the string {value!r:.{_QUOTE_CHARS}}"
    return "got a list" if isinstance(value, list) else "got an object"


def _at(record: Any, path: FieldPath) -> Any:
    value = record
    for part in path:
        if isinstance(part, int) and isinstance(value, list) and 0 <= part < len(value):
            value = value[part]
        elif isinstance(part, str) and isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def type_problem(record: Any, path: FieldPath, kind: Kind, optional: bool = False) -> str | None:
    """Why the field at ``path`` of ``record`` does not have ``kind``, or None.

    Args:
        record: The record (checked as a whole when ``path`` is empty).
        path: Keys and list indexes from the record to the field; its parents must have been
            checked first.
        kind: The shape the field must have.
        optional: The field may also be absent or null.

    """
    value = _at(record, path)
    if optional and (value is _MISSING or value is None):
        return None
    if kind.test(value):
        return None
    expected = f"{kind.name} or null" if optional else kind.name
    if not path:
        return f"expected {expected}, {_got(value)}"
    return f'field "{field_name(path)}" must be {expected}, {_got(value)}'


class RecordCheck:
    """Checks the fields of one record, raising the loader's error on the first problem.

    Args:
        where: The file and record, as the message starts (``bioasq.json question 3 (id
            "55031181e9bde69634000014")``).
        error: The loader's exception class.

    """

    def __init__(self, where: str, error: type[Exception]) -> None:
        self.where = where
        self.error = error

    def fail(self, problem: str) -> NoReturn:
        """Raise the loader's error for ``problem``."""
        raise self.error(f"{self.where}: {problem}")

    def require(self, record: Any, path: FieldPath, kind: Kind, optional: bool = False) -> Any:
        """The field at ``path`` (None when ``optional`` and absent), checked to have ``kind``.

        Raises:
            error: Naming the file, record and field path, what was expected and what was
                found.

        """
        problem = type_problem(record, path, kind, optional)
        if problem is not None:
            self.fail(problem)
        value = _at(record, path)
        return None if value is _MISSING else value

    def list_of(
        self, record: Any, path: FieldPath, kind: Kind, optional: bool = False
    ) -> list[Any]:
        """The list at ``path`` (empty when ``optional`` and absent), each item of ``kind``.

        Raises:
            error: Naming the list or the first item at fault (``documents[1]``).

        """
        items = self.require(record, path, LIST, optional) or []
        for i, _ in enumerate(items):
            self.require(record, (*path, i), kind)
        return items  # type: ignore[no-any-return]


MAX_LISTED = 20
"""Problems an error lists; the rest are counted (``... and 980 more``)."""


def each_problem(
    records: Iterable[T], check: Callable[[T], None], error: type[Exception]
) -> list[str]:
    """Run ``check`` on every record: what each refused with ``error``, in order.

    A record's check stops at its first problem (later fields are read through earlier ones);
    every record is checked.
    """
    problems = []
    for record in records:
        try:
            check(record)
        except error as e:
            problems.append(str(e))
    return problems


def problems_error(
    what: str, problems: Sequence[str], error: Callable[[str], Exception]
) -> Exception:
    """One error naming every problem of a file, in one line.

    Args:
        what: The file as the message names it (``asqa dataset file data.json (-T
            dataset_path)``).
        problems: Each naming its record and field (``data.json:3:qa_pairs: missing``).
        error: The loader's exception class.

    Returns:
        ``error(problem)`` for one problem; for several, ``<what>: <n> problems: <first>;
        <second>; ...`` (the first :data:`MAX_LISTED`, then how many more).

    """
    if len(problems) == 1:
        return error(problems[0])
    shown = list(problems[:MAX_LISTED])
    if len(problems) > MAX_LISTED:
        shown.append(f"... and {len(problems) - MAX_LISTED} more")
    return error(f"{what}: {len(problems)} problems: " + "; ".join(shown))
