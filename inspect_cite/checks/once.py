"""A check that passed is not run again in this process."""

from collections.abc import Callable

_passed: set[tuple[str, ...]] = set()


def problem_once(
    key: tuple[str, ...], problem: Callable[[], str | None], *, remember: bool = True
) -> str | None:
    """A check's problem, or None; a check that passed is not run again in this process.

    Args:
        key: Names the check and what it checked, e.g. ``("model", value, kind)``.
        problem: Runs the check: why it fails, or None.
        remember: Whether a pass holds for the rest of the process (False where the answer
            can change between evals, e.g. a model role).

    """
    if key in _passed:
        return None
    found = problem()
    if found is None and remember:
        _passed.add(key)
    return found


def reset_preflight() -> None:
    """Forget the checks that passed (tests)."""
    _passed.clear()
