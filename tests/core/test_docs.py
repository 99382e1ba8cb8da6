"""The documentation names only what exists: repository paths, registry names, modules, links.

README.md, docs/*.md and bench/README.md are read as text. Every repository path they mention
(in a link, in backticks or in a command), every ``scorers/…``, ``solvers/…``, ``alce_tasks/…``,
``fullcite_tasks/…`` and ``longcite_tasks/…`` registry name, every dotted name in this project's
packages and every link between the pages (with its ``#anchor``) must resolve.
"""

import importlib
import re
import sys
from functools import cache
from pathlib import Path

import pytest
from inspect_ai.util import registry_info

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
README_MAX_LINES = 200

REGISTRY_PACKAGES = ("alce_tasks", "fullcite_tasks", "longcite_tasks", "solvers", "scorers")
PYTHON_PACKAGES = (*REGISTRY_PACKAGES, "inspect_cite")
# Top-level folders of the repository: a mention starting with one of these is a repository path
# (or a registry name). Other slashed words (hub ids, `runs/report`, ALCE's `tools/...`) are not.
REPO_DIRS = (*PYTHON_PACKAGES, "tests", "bench", "docs", ".ci")

_PATH = re.compile(
    r"(?<![\w./:-])((?:" + "|".join(re.escape(d) for d in REPO_DIRS) + r")/[\w.*<>/-]*)"
)
_DOTTED = re.compile(r"`((?:" + "|".join(PYTHON_PACKAGES) + r")(?:\.\w+)+)[`(]")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@cache
def registered(package: str) -> frozenset[str]:
    """Names registered (tasks, solvers, scorers, metrics) by importing ``package``."""
    importlib.import_module(package)
    names = set()
    for module_name, module in list(sys.modules.items()):
        if module_name != package and not module_name.startswith(package + "."):
            continue
        for obj in vars(module).values():
            try:
                name = registry_info(obj).name
            except (ValueError, AttributeError):
                continue
            # Installed, this project's names carry the package prefix; imported from the working
            # tree they have none. Inspect's own (inspect_ai/mean) are not this package's.
            if "/" not in name or name.startswith(package + "/"):
                names.add(name.rsplit("/", 1)[-1])
    return frozenset(names)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a markdown file (code blocks skipped)."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def check_path(token: str) -> str | None:
    """Why a repository path or registry name mentioned in a doc does not resolve, else None."""
    token = token.rstrip(".,;:-")
    if "<" in token or ">" in token:
        return None  # a placeholder such as solvers/<name>
    if "*" in token:
        return None if any(ROOT.glob(token)) else f"no file matches {token}"
    package, _, rest = token.partition("/")
    if package in REGISTRY_PACKAGES and rest and "/" not in rest and "." not in rest:
        if rest in registered(package) or (ROOT / token).is_dir():
            return None
        return f"{token} is not a registered name"
    if not (ROOT / token).exists():
        return f"{token} does not exist"
    return None


def check_dotted(name: str) -> str | None:
    """Why a dotted name (module, or module attribute) in this project's packages does not resolve."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module_name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return f"{name}: {module_name} has no {attr!r}"
            obj = getattr(obj, attr)
        return None
    return f"{name}: no such module"


def check_link(target: str, doc: Path) -> str | None:
    """Why a markdown link target from ``doc`` does not resolve (URLs are not followed)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None
    path_part, _, anchor = target.partition("#")
    path = doc if not path_part else (doc.parent / path_part).resolve()
    if not path.exists():
        return f"link {target} does not resolve"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"link {target}: no heading #{anchor} in {path.relative_to(ROOT)}"
    return None


def problems(text: str, doc: Path) -> list[str]:
    """Every mention in ``text`` (the content of ``doc``) that does not resolve."""
    found = [check_link(t, doc) for t in _LINK.findall(text)]
    found += [check_path(t) for t in _PATH.findall(text)]
    found += [check_dotted(t) for t in _DOTTED.findall(text)]
    return sorted({p for p in found if p})


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_names_only_what_exists(doc):
    assert doc.exists(), f"{doc.relative_to(ROOT)} is missing"
    assert problems(doc.read_text(encoding="utf-8"), doc) == []


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}); move detail to docs/"
    )


def test_checker_reports_each_kind_of_broken_mention():
    doc = ROOT / "docs" / "nli.md"
    text = "\n".join(
        [
            "Fine: `scorers/citation_nli`, `alce_tasks/asqa.py`, [scale](scale.md#on-a-gpu-cluster),",
            "`inspect_cite.citations.parse_citations(text)`, `solvers/<name>`, `hf/Qwen/Qwen3-8B`.",
            "Broken: `scorers/no_such_scorer`, `alce_tasks/no_such_file.py`, [x](missing.md),",
            "[y](scale.md#no-such-heading), `inspect_cite.citations.no_such_function`,",
            "inspect eval fullcite_tasks/no_such_task --model m",
        ]
    )
    assert problems(text, doc) == sorted(
        [
            "scorers/no_such_scorer is not a registered name",
            "alce_tasks/no_such_file.py does not exist",
            "link missing.md does not resolve",
            "link scale.md#no-such-heading: no heading #no-such-heading in docs/scale.md",
            "inspect_cite.citations.no_such_function: inspect_cite.citations has no "
            "'no_such_function'",
            "fullcite_tasks/no_such_task is not a registered name",
        ]
    )
