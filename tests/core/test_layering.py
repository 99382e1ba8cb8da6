"""The import layering docs/development.md states, one rule a line of ``RULES``.

Tasks import solvers and scorers; solvers and scorers never import each other nor a task
package; the core (inspect_cite/) imports no task, solver or scorer package. Inside the core,
the ALCE room (inspect_cite/alce/) and the app (inspect_cite/app/) stand on the shared modules,
never under them, and the ALCE room does not import the app.

The benchmarks (bench/) import nothing from tests/.

Every import counts, wherever it is written (module level, inside a function, under
``TYPE_CHECKING``), and so do ``importlib.import_module``/``__import__`` with a literal name,
``importlib.util.find_spec``, which reaches a package's files without importing it, and a
``python:`` NLI spec written as a literal (``python:MODULE:FUNCTION`` or
``python:PATH.py:FUNCTION``), which imports its module when the judge is built.
"""

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

TASKS = ("alce_tasks", "fullcite_tasks", "longcite_tasks")
# A python: NLI spec: its module, as a dotted name or as a file path.
PYTHON_SPEC = re.compile(r"^python:(?:(?P<path>[^:]+)\.py|(?P<module>[A-Za-z_][\w.]*)):\w+$")


@dataclass(frozen=True)
class Rule:
    """The files under ``folder`` (except those under ``besides``) never import ``forbidden``.

    A forbidden name covers the modules inside it: ``inspect_cite.app`` covers
    ``inspect_cite.app.cli``.
    """

    folder: str
    forbidden: tuple[str, ...]
    besides: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.folder + (f" besides {', '.join(self.besides)}" if self.besides else "")


RULES = (
    Rule("solvers", ("scorers", *TASKS)),
    Rule("scorers", ("solvers", *TASKS)),
    Rule("inspect_cite", (*TASKS, "solvers", "scorers")),
    Rule(
        "inspect_cite",
        ("inspect_cite.alce", "inspect_cite.app"),
        besides=("inspect_cite/alce", "inspect_cite/app"),
    ),
    Rule("inspect_cite/alce", ("inspect_cite.app",)),
    Rule("bench", ("tests",)),
    # The task families never import each other: what two share lives in the core.
    Rule("alce_tasks", ("fullcite_tasks",)),
    Rule("fullcite_tasks", ("alce_tasks",)),
    Rule("longcite_tasks", ("alce_tasks", "fullcite_tasks")),
    Rule("alce_tasks", ("longcite_tasks",)),
    Rule("fullcite_tasks", ("longcite_tasks",)),
)


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
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            spec = PYTHON_SPEC.match(node.value)
            if spec and spec["module"]:
                yield node.lineno, spec["module"]
            elif spec:
                yield node.lineno, ".".join(Path(spec["path"]).parts)


def covers(forbidden: str, module: str) -> bool:
    return module == forbidden or module.startswith(forbidden + ".")


def violations(rule: Rule) -> list[str]:
    found = []
    for path in sorted((ROOT / rule.folder).rglob("*.py")):
        where = path.relative_to(ROOT)
        if any(where.is_relative_to(b) for b in rule.besides):
            continue
        for line, module in sorted(imported_modules(path)):
            if any(covers(f, module) for f in rule.forbidden):
                found.append(f"{where}:{line} imports {module}")
    return found


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_layering(rule):
    assert (ROOT / rule.folder).is_dir()
    found = violations(rule)
    assert not found, f"{rule.name} must not import {list(rule.forbidden)}:\n" + "\n".join(found)


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
        "SPEC = 'python:solvers.fns:judge'\n"
        "FILE = 'python:scorers/fns.py:judge'\n"
        "DOC = 'not a spec: python:solvers.fns:judge'\n"
    )
    assert violations(RULES[2]) == [
        "inspect_cite/sub/mod.py:1 imports solvers.alce",
        "inspect_cite/sub/mod.py:4 imports fullcite_tasks",
        "inspect_cite/sub/mod.py:5 imports alce_tasks.data",
        "inspect_cite/sub/mod.py:6 imports scorers",
        "inspect_cite/sub/mod.py:9 imports solvers.fns",
        "inspect_cite/sub/mod.py:10 imports scorers.fns",
    ]


def test_a_room_rule_sees_the_room_and_passes_over_its_own_files(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for folder in ("inspect_cite", "inspect_cite/alce", "inspect_cite/app"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "inspect_cite" / "words.py").write_text("from .alce import prompts\n")
    (tmp_path / "inspect_cite" / "alceish.py").write_text("import inspect_cite.alceish\n")
    (tmp_path / "inspect_cite" / "alce" / "autoais.py").write_text("from ..app import cli\n")
    (tmp_path / "inspect_cite" / "app" / "cli.py").write_text("import inspect_cite.alce.items\n")
    assert violations(RULES[3]) == ["inspect_cite/words.py:1 imports inspect_cite.alce"]
    assert violations(RULES[4]) == ["inspect_cite/alce/autoais.py:1 imports inspect_cite.app"]
