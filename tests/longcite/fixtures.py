"""The LongBench-Cite fixtures (tests/fixtures/longcite/) and LongCite's results on them."""

import json
from pathlib import Path
from typing import Any

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "longcite"
DATA = FIXTURE_DIR / "longbench_cite.json"


def items() -> list[dict[str, Any]]:
    return json.loads(DATA.read_text("utf-8"))


def answers() -> dict[int, str]:
    return {int(k): v for k, v in json.loads((FIXTURE_DIR / "answers.json").read_text()).items()}


def expected() -> dict[str, Any]:
    """LongCite's own results on the fixtures (how they were made: make_expected.py)."""
    return json.loads((FIXTURE_DIR / "expected.json").read_text("utf-8"))
