import json
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# shared/ lies beside the clone (CI, the main checkout) or, in a worktree, inside it (ignored).
SHARED = next(
    (p for p in (ROOT.parent / "shared", ROOT / "shared") if p.exists()), ROOT.parent / "shared"
)
REFERENCE = SHARED / "reference"
PROMPTS_REF = REFERENCE / "alce" / "prompts"

# Tests never touch the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def reference_dir() -> Path:
    if not REFERENCE.exists():
        pytest.fail(
            f"shared reference files not found at {REFERENCE} (CI lays shared/ beside the clone)"
        )
    return REFERENCE


@pytest.fixture
def cache_root(tmp_path, monkeypatch) -> Path:
    """An empty inspect-cite cache for one test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("INSPECT_CITE_CACHE_DIR", str(root))
    return root


@pytest.fixture
def prompt_cache(cache_root) -> Path:
    """A cache already holding ALCE's official prompt files (copied from shared/reference)."""
    from alce_tasks.prompts import ALCE_PROMPT_COMMIT

    reference_dir()
    dest = cache_root / "alce" / "prompts" / ALCE_PROMPT_COMMIT[:12]
    dest.mkdir(parents=True)
    for f in PROMPTS_REF.glob("*.json"):
        shutil.copy(f, dest / f.name)
    return cache_root


def load_fixture(name: str) -> list[dict]:
    return json.loads((FIXTURES / name).read_text())


def fixture_corpus() -> list[str]:
    texts = []
    for name in ("alce_asqa.json", "alce_qampari.json", "alce_eli5.json"):
        for item in load_fixture(name):
            texts.append(item["question"])
            texts += [d["text"] for d in item["docs"]]
    for f in sorted(PROMPTS_REF.glob("*.json")):
        texts.append(f.read_text())
    return texts


@pytest.fixture(scope="session")
def tiny_qwen3(tmp_path_factory) -> Path:
    from tests.tiny_models import build_tiny_qwen3

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
    from tests.tiny_models import build_tiny_qwen3

    corpus = fixture_corpus() + fullcite_fixture_corpus()
    return build_tiny_qwen3(tmp_path_factory.mktemp("tiny-qwen3-30k"), corpus, vocab_size=30000)


@pytest.fixture(scope="session")
def tiny_t5(tmp_path_factory) -> Path:
    from tests.tiny_models import build_tiny_t5

    return build_tiny_t5(tmp_path_factory.mktemp("tiny-t5"))
