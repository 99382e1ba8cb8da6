"""The sample data the benchmarks run on: this repository's own fixture files.

They are read as data files from ``tests/fixtures/`` (questions and documents written in the
project's own words); no module of ``tests/`` is imported, so a benchmark runs whatever the
tests' own helpers become.
"""

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def load_fixture(name: str) -> list[dict[str, Any]]:
    """The records of a fixture file (``alce_asqa.json``, ``fullcite_samples.json``, ...)."""
    return json.loads((FIXTURES / name).read_text())


def fixture_texts(*names: str) -> list[str]:
    """Every question and document text of the fixture files (a tiny model's tokenizer corpus)."""
    texts = []
    for name in names:
        for item in load_fixture(name):
            texts.append(item["question"])
            texts += [d["text"] for d in item["docs"]]
    return texts
