import atexit
import inspect
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REFERENCE_ENV = "INSPECT_CITE_REFERENCE_DIR"

# The FullCite tasks' arguments for the fixtures.
BIOASQ_ARGS = {
    "dataset_path": str(FIXTURES / "fullcite_bioasq.json"),
    "abstracts_path": str(FIXTURES / "fullcite_bioasq_abstracts.json"),
}
ASQA_ARGS = {
    "dataset_path": str(FIXTURES / "alce_asqa.json"),
    "spans_path": str(FIXTURES / "fullcite_asqa_spans.jsonl"),
}
EXPERTQA_ARGS = {
    "dataset_path": str(FIXTURES / "fullcite_expertqa.jsonl"),
    "spans_path": str(FIXTURES / "fullcite_expertqa_spans.jsonl"),
}

# The public scorers, by module name (scorers/_*.py are what they share).
SCORERS = sorted(p.stem for p in (ROOT / "scorers").glob("[!_]*.py") if p.stem != "__init__")


def scorers_named(text: str) -> set[str]:
    """The public scorers a test's source or file name names (a call, an import, a path)."""
    return {name for name in SCORERS if re.search(rf"\b{name}\b", text)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test is also selected by each scorer it names: ``pytest -k citation_nli``.

    A scorer's tests sit in the folders of what they exercise (ALCE, FullCite, calibration,
    robustness); its name finds them all.
    """
    for item in items:
        function = getattr(item, "function", None)
        try:
            source = inspect.getsource(function) if function is not None else ""
        except (OSError, TypeError):
            source = ""
        for name in scorers_named(source) | scorers_named(item.path.stem):
            item.extra_keyword_matches.add(name)


# Tests never touch the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# --- each test process on its own -----------------------------------------------------------
# Every test process (each pytest-xdist worker; the commands a test starts inherit it) gets
# caches and an Inspect log folder of its own, empty at its start: no test depends on what
# another worker, an earlier run or the user's ~/.cache holds, and none writes into the
# checkout (Inspect's default log folder is ./logs). A test that needs a cache of its own
# still sets one (``cache_root``). The user's inspect-cite settings are dropped too, but for
# the ones that say where the tests' own inputs are.
KEPT_SETTINGS = {REFERENCE_ENV, "INSPECT_CITE_REQUIRE_INSTALLED", "INSPECT_CITE_VLLM_PYTHON"}
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
PRIVATE = Path(tempfile.mkdtemp(prefix=f"inspect-cite-tests-{WORKER}-"))
PRIVATE_ENV = {
    "INSPECT_CITE_CACHE_DIR": PRIVATE / "cache",
    "INSPECT_LOG_DIR": PRIVATE / "logs",
    "HF_HOME": PRIVATE / "hf",
    "HF_HUB_CACHE": PRIVATE / "hf" / "hub",
    "MPLCONFIGDIR": PRIVATE / "matplotlib",
    "XDG_CACHE_HOME": PRIVATE / "xdg-cache",
}
atexit.register(shutil.rmtree, PRIVATE, ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    """Isolate this test process (the controller and each worker; before any test module loads).

    Not at import: a command a test starts may import this module, and must keep the settings
    the test gave it.
    """
    for name in [n for n in os.environ if n.startswith("INSPECT_CITE_")]:
        if name not in KEPT_SETTINGS:
            del os.environ[name]
    for name, path in PRIVATE_ENV.items():
        os.environ[name] = str(path)
    # Hypothesis keeps its own files in ./.hypothesis otherwise.
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(PRIVATE / "hypothesis")


# Property tests draw the same examples in every run and on every worker, however loaded the
# machine: a fixed seed per test, no example database (kept in the checkout), no timing checks.
# `pytest --hypothesis-profile=explore` draws new examples each run, to hunt for failures.
settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", database=None, deadline=None)
settings.load_profile("deterministic")


_EXTRAS = pytest.StashKey[set[str] | None]()


def _checkout_extras() -> set[str] | None:
    """Untracked and ignored paths in the checkout (git's view), or None outside a git checkout."""
    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    paths = {line[3:] for line in proc.stdout.splitlines() if line[:2] in ("??", "!!")}
    return {p for p in paths if "__pycache__" not in p and not p.startswith(".pytest_cache")}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note what the checkout holds besides its files, before any test runs (not on workers)."""
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_EXTRAS] = _checkout_extras()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the run when tests left files in the checkout: they belong under ``tmp_path``.

    A file written there is seen by every other worker and every later run.
    """
    before = session.config.stash.get(_EXTRAS, None)
    after = _checkout_extras() if before is not None else None
    if before is None or after is None or not (new := sorted(after - before)):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = f"tests wrote into the checkout (use tmp_path): {', '.join(new)}"
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(message, red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def reference_dir() -> Path:
    """The third-party reference files (ALCE's official prompts, the FullCite authors' outputs).

    Read from ``$INSPECT_CITE_REFERENCE_DIR`` only. When it is unset or not a folder the calling
    test is skipped with one line saying so, except in CI (``CI=true``), where it fails: CI lays
    the files out beside the clone and must run every comparison with them.
    """
    value = os.environ.get(REFERENCE_ENV, "")
    if value and Path(value).is_dir():
        return Path(value)
    where = f"{REFERENCE_ENV}={value} is not a folder" if value else f"{REFERENCE_ENV} is not set"
    reason = (
        f"{where}: this test needs the third-party reference files (ALCE's official prompts, "
        "the FullCite authors' outputs); point it at the folder holding alce/ and fullcite/"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def reference_params(load: Callable[[], list[Any]], n_args: int) -> list[Any]:
    """Test parameters read from the reference files while tests are collected.

    Without the files, one placeholder of ``n_args`` ``None`` values stands in for them; a test
    parametrized this way calls ``reference_dir()`` first, so the placeholder is skipped (or
    fails under CI=true) with its one-line reason instead of breaking collection.
    """
    try:
        return load()
    except (pytest.skip.Exception, pytest.fail.Exception):
        return [pytest.param(*([None] * n_args), id="reference-files")]


def official_prompts_dir() -> Path:
    """ALCE's official prompt files among the reference files (skips or fails as reference_dir)."""
    return reference_dir() / "alce" / "prompts"


@pytest.fixture
def cache_root(tmp_path, monkeypatch) -> Path:
    """An empty inspect-cite cache for one test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("INSPECT_CITE_CACHE_DIR", str(root))
    return root


@pytest.fixture
def fresh_nli(monkeypatch) -> Iterator[None]:
    """No NLI backend, queue or cache kept from another test (before and after this one).

    The on-disk decision cache is off unless the test sets ``INSPECT_CITE_NLI_CACHE`` itself.
    """
    from inspect_cite.nli import reset_nli

    monkeypatch.delenv("INSPECT_CITE_NLI_CACHE", raising=False)
    reset_nli()
    yield
    reset_nli()


@pytest.fixture(scope="session")
def alce_prompt_dir(tmp_path_factory) -> Path:
    """The project's own ALCE-format prompt files (tests/helpers/alce_prompt_files.py), written once."""
    from tests.helpers.alce_prompt_files import write_prompt_files

    return write_prompt_files(tmp_path_factory.mktemp("alce-prompts"))


@pytest.fixture
def own_prompts(cache_root, alce_prompt_dir, monkeypatch) -> Path:
    """ALCE tasks and solvers read the project's own prompt files (INSPECT_CITE_ALCE_PROMPT_DIR).

    The cache stays empty, so nothing can fall back to a downloaded official file. Returns the
    prompt folder.
    """
    from inspect_cite.alce.prompts import PROMPT_DIR_ENV

    monkeypatch.setenv(PROMPT_DIR_ENV, str(alce_prompt_dir))
    return alce_prompt_dir


@pytest.fixture
def prompt_cache(cache_root, monkeypatch) -> Path:
    """A cache already holding ALCE's official prompt files (copied from the reference files)."""
    from inspect_cite.alce.prompts import ALCE_PROMPT_COMMIT, PROMPT_DIR_ENV

    source = official_prompts_dir()
    monkeypatch.delenv(PROMPT_DIR_ENV, raising=False)
    dest = cache_root / "alce" / "prompts" / ALCE_PROMPT_COMMIT[:12]
    dest.mkdir(parents=True)
    for f in source.glob("*.json"):
        shutil.copy(f, dest / f.name)
    return cache_root


def sample_prompt(sample: Any) -> str:
    """The prompt an ALCE task built for ``sample`` (``metadata["alce_prompt"]``), else its input."""
    from inspect_cite.alce.prompts import TASK_PROMPT_KEY

    return str((sample.metadata or {}).get(TASK_PROMPT_KEY, sample.input))


def load_fixture(name: str) -> list[dict]:
    return json.loads((FIXTURES / name).read_text())


def fixture_corpus() -> list[str]:
    """The fixtures' questions, documents and prompt files (the tiny models' tokenizer corpus)."""
    from tests.helpers.alce_prompt_files import prompt_texts

    texts = []
    for name in ("alce_asqa.json", "alce_qampari.json", "alce_eli5.json"):
        for item in load_fixture(name):
            texts.append(item["question"])
            texts += [d["text"] for d in item["docs"]]
    return texts + prompt_texts()


@pytest.fixture(scope="session")
def tiny_qwen3(tmp_path_factory) -> Path:
    from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3

    return build_tiny_qwen3(tmp_path_factory.mktemp("tiny-qwen3"), fixture_corpus())


def fullcite_fixture_corpus() -> list[str]:
    texts = []
    for item in load_fixture("fullcite_samples.json"):
        texts.append(item["question"])
        texts += [d["text"] for d in item["docs"]]
    return texts


@pytest.fixture(scope="session")
def tiny_qwen3_30k(tmp_path_factory) -> Path:
    """A tiny Qwen3 whose tokenizer has 30k entries (realistic mask sizes for llguidance)."""
    from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3

    corpus = fixture_corpus() + fullcite_fixture_corpus()
    return build_tiny_qwen3(tmp_path_factory.mktemp("tiny-qwen3-30k"), corpus, vocab_size=30000)


@pytest.fixture(scope="session")
def tiny_t5(tmp_path_factory) -> Path:
    from inspect_cite.testing.tiny_t5 import build_tiny_t5

    return build_tiny_t5(tmp_path_factory.mktemp("tiny-t5"))
