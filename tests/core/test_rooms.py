"""Where things live (docs/development.md): a reader finds a scorer or solver by its name.

- ``scorers/<name>.py`` registers the scorer ``<name>``; a module of ``scorers/`` that
  registers no scorer is private (``scorers/_<name>.py``: what several scorers share).
- Solvers are registered in ``solvers/`` only, scorers in ``scorers/`` only.
"""

import ast
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
