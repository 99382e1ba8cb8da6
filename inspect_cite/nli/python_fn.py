"""A user's own NLI function, ``python:<module>:<callable>``."""

import importlib
import importlib.util
import numbers
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from inspect_cite.nli.base import NLIConfigError, NLIError, NLIResult, Pair
from inspect_cite.nli.fingerprint import function_fingerprint


def load_callable(ref: str) -> Callable[[str, str], Any]:
    """Import ``<module>:<callable>`` (the module may also be a path to a ``.py`` file).

    Raises:
        NLIConfigError: When the reference is malformed or cannot be imported.

    """
    module_name, sep, attr = ref.rpartition(":")
    if not sep or not module_name or not attr:
        raise NLIConfigError(f"python:{ref}: expected python:<module or file.py>:<callable>")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).expanduser().resolve()
            spec = importlib.util.spec_from_file_location(f"_inspect_cite_nli_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise NLIConfigError(
            f"python:{ref}: cannot import {module_name!r} ({e}); name the file instead "
            f"(python:path/to/{module_name.rpartition('.')[2]}.py:{attr}) or put its folder on "
            "PYTHONPATH"
        ) from e
    except (ImportError, OSError) as e:
        raise NLIConfigError(f"python:{ref}: cannot import {module_name!r}: {e}") from e
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise NLIConfigError(f"python:{ref}: {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise NLIConfigError(f"python:{ref}: {attr!r} is not callable")
    return obj  # type: ignore[no-any-return]


def to_result(value: Any, where: str) -> NLIResult:
    """A bool is the decision; a number is a probability (entailed when >= 0.5)."""
    if isinstance(value, bool | np.bool_):
        return NLIResult(bool(value))
    if isinstance(value, numbers.Real):
        prob = float(value)
        return NLIResult(prob >= 0.5, prob)
    raise NLIError(
        f"{where} returned {type(value).__name__}, expected bool or float", retryable=False
    )


def absolute_ref(ref: str) -> str:
    """``ref`` with a ``.py`` module path made absolute (relative paths depend on the folder)."""
    module_name, sep, attr = ref.rpartition(":")
    if sep and module_name.endswith(".py"):
        return f"{Path(module_name).expanduser().resolve()}:{attr}"
    return ref


class PythonNLI:
    """Calls a user function ``(premise, hypothesis) -> bool | float`` on each pair.

    ``fingerprint`` is the digest of the function's source file as imported, so the disk cache
    never serves the decisions of an earlier version of it.
    """

    def __init__(self, ref: str) -> None:
        self.identity = f"python:{absolute_ref(ref)}"
        self.fn = load_callable(ref)
        self.fingerprint = function_fingerprint(self.fn)

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Decide each pair; an exception from the function fails only its pair."""
        results: list[NLIResult | Exception] = []
        for premise, hypothesis in pairs:
            try:
                results.append(to_result(self.fn(premise, hypothesis), self.identity))
            except Exception as e:
                results.append(
                    e if isinstance(e, NLIError) else NLIError(f"{self.identity} raised {e!r}")
                )
        return results
