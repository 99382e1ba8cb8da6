"""Where things live (docs/development.md): a reader finds a scorer or solver by its name.

- ``scorers/<name>.py`` registers the scorer ``<name>``; a module of ``scorers/`` that
  registers no scorer is private (``scorers/_<name>.py``: what several scorers share).
- Solvers are registered in ``solvers/`` only, scorers in ``scorers/`` only.
- The core (``inspect_cite/``) is rooms: no module at its root; what only tests and benchmarks
  use lives in its ``testing`` room; no import cycle anywhere in the project.
"""

import ast
import re
from pathlib import Path

from tests.conftest import ROOT, SCORERS, scorers_named

PACKAGES = ("alce_tasks", "fullcite_tasks", "longcite_tasks", "solvers", "scorers", "inspect_cite")


def registered(path: Path, kind: str) -> list[str]:
    """The functions of a file decorated ``@<kind>`` (``@solver``, ``@scorer(...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = (
                    target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                )
                if name == kind:
                    names.append(node.name)
    return names


def misplaced(kind: str, home: str, root: Path = ROOT) -> list[str]:
    return [
        f"{path.relative_to(root)} registers @{kind} {name}"
        for package in PACKAGES
        if package != home
        for path in sorted((root / package).rglob("*.py"))
        for name in registered(path, kind)
    ]


def test_solvers_and_scorers_are_registered_in_their_own_package():
    assert misplaced("solver", "solvers") == []
    assert misplaced("scorer", "scorers") == []


def test_each_public_scorer_module_registers_the_scorer_it_is_named_after():
    for path in sorted((ROOT / "scorers").glob("*.py")):
        if path.name.startswith("_"):
            continue
        assert path.stem in registered(path, "scorer"), (
            f"scorers/{path.name} registers no scorer {path.stem}: a module the scorers share "
            "is private (scorers/_<name>.py)"
        )


def test_a_misplaced_registration_is_seen(tmp_path):
    (tmp_path / "fullcite_tasks").mkdir()
    (tmp_path / "fullcite_tasks" / "annotation.py").write_text(
        "@solver\ndef span_annotator(): ...\n@inspect_ai.scorer.scorer(metrics=[])\ndef s(): ...\n"
    )
    assert misplaced("solver", "solvers", tmp_path) == [
        "fullcite_tasks/annotation.py registers @solver span_annotator"
    ]
    assert misplaced("scorer", "scorers", tmp_path) == [
        "fullcite_tasks/annotation.py registers @scorer s"
    ]


def test_a_test_is_selected_by_the_scorers_it_names(request):
    # This test names span_agreement and citation_nli: `pytest -k span_agreement` selects it.
    assert {"span_agreement", "citation_nli"} <= request.node.extra_keyword_matches
    assert "claim_support" not in scorers_named("claim_support_diagnose_helper")


def test_every_public_scorer_has_tests_found_by_its_name():
    named: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text())
        source = path.read_text()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                segment = ast.get_source_segment(source, node) or ""
                named |= scorers_named(segment) | scorers_named(path.stem)
    assert set(SCORERS) - named == set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports (any depth: module level, functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _project_modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def test_the_core_is_rooms_and_test_only_code_is_in_its_testing_room():
    root = sorted(p.name for p in (ROOT / "inspect_cite").glob("*.py") if p.name != "__init__.py")
    assert root == [], f"modules at the core's root: {root}"
    modules = _project_modules()
    users: dict[str, set[str]] = {name: set() for name in modules}
    for folder in (*PACKAGES, "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for name in _imports(path):
                target = _resolve(name, modules)
                if target is not None and not _module_name(path).startswith(target):
                    users[target].add(folder)
    # Console scripts are run, not imported (pyproject's [project.scripts]; no tomllib on 3.10).
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    entry_points = set(re.findall(r'=\s*"([\w.]+):', section))
    test_only = sorted(
        name
        for name, used_by in users.items()
        if name.startswith("inspect_cite.")
        and not name.startswith("inspect_cite.testing")
        and modules[name].name != "__init__.py"
        and name not in entry_points
        and used_by
        and used_by <= {"tests", "bench"}
    )
    assert test_only == [], (
        f"used only by tests or bench, outside inspect_cite/testing: {test_only}"
    )


def test_no_import_cycle():
    """Tarjan's strongly connected components over every import; a package's import of one of
    its modules runs the package's ``__init__`` first, so that counts as an edge too."""
    modules = _project_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for imported in _imports(path):
            target = _resolve(imported, modules)
            if target is None or target == name:
                continue
            graph[name].add(target)
            parent = target.rpartition(".")[0]
            while parent:
                if parent in modules and not name.startswith(parent + ".") and parent != name:
                    graph[name].add(parent)
                parent = parent.rpartition(".")[0]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == [], f"import cycles: {cycles}"
