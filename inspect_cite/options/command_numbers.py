"""Numbers on the project's own command lines (``alce-eval``, ``inspect-cite calibrate``).

An argparse ``type=`` reads the value and refuses it in one line: ``'x' is not a whole number``
when it is no number, else what the check says is wrong with it.
"""

import argparse
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", int, float)


def number_type(
    convert: Callable[[str], N], *, what: str, problem: Callable[[N], str | None]
) -> Callable[[str], N]:
    """An argparse ``type=`` for a number ``problem`` accepts.

    Args:
        convert: Reads the number (``int``, ``float``); a ``ValueError`` refuses the value.
        what: The number it must be, for the message (``a whole number``).
        problem: What is wrong with the number read, or None.

    Returns:
        A function argparse calls with the value, raising ``argparse.ArgumentTypeError``.

    """

    def parse(value: str) -> N:
        try:
            number = convert(value)
        except ValueError as e:
            raise argparse.ArgumentTypeError(f"{value!r} is not {what}") from e
        refused = problem(number)
        if refused is not None:
            raise argparse.ArgumentTypeError(refused)
        return number

    return parse


def at_least(minimum: int) -> Callable[[int], str | None]:
    """A ``problem`` for :func:`number_type`: ``must be <minimum> or more, got <n>``."""
    return lambda number: None if number >= minimum else f"must be {minimum} or more, got {number}"
