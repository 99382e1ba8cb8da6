"""The import layering README states: tasks import solvers and scorers; solvers and scorers never
import each other; the shared core (inspect_cite/) imports no task, solver or scorer package.

Every import counts, wherever it is written (module level, inside a function, under
``TYPE_CHECKING``), and so do ``importlib.import_module``/``__import__`` with a literal name
and ``importlib.util.find_spec``, which reaches a package's files without importing it.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

# package -> the top-level packages it must never import
FORBIDDEN = {
    "solvers": {"scorers"},
    "scorers": {"solvers"},
    "inspect_cite": {"alce_tasks", "fullcite_tasks", "solvers", "scorers"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package[: len(package) - node.level + 1]
                yield node.lineno, ".".join([*base, *([node.module] if node.module else [])])
            elif node.module:
                yield node.lineno, node.module
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0] if node.args else None
            if (
                name in ("import_module", "__import__", "find_spec")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                yield node.lineno, first.value


def violations(package: str) -> list[str]:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, module in sorted(imported_modules(path)):
            top = module.split(".")[0]
            if top in FORBIDDEN[package]:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layering(package):
    assert (ROOT / package / "__init__.py").is_file()
    found = violations(package)
    assert not found, f"{package}/ must not import {sorted(FORBIDDEN[package])}:\n" + "\n".join(
        found
    )


def test_every_import_form_is_seen(tmp_path, monkeypatch):
    """The checker finds a forbidden import in each form it claims to see."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    core = tmp_path / "inspect_cite" / "sub"
    core.mkdir(parents=True)
    (core / "mod.py").write_text(
        "import solvers.alce\n"
        "from ..scorers import x\n"  # inspect_cite.scorers: inside the core, allowed
        "def f():\n"
        "    from fullcite_tasks import asqa\n"
        "    importlib.import_module('alce_tasks.data')\n"
        "    importlib.util.find_spec('scorers')\n"
        "from . import fine\n"
        "import inspect_ai\n"
    )
    assert violations("inspect_cite") == [
        "inspect_cite/sub/mod.py:1 imports solvers.alce",
        "inspect_cite/sub/mod.py:4 imports fullcite_tasks",
        "inspect_cite/sub/mod.py:5 imports alce_tasks.data",
        "inspect_cite/sub/mod.py:6 imports scorers",
    ]
