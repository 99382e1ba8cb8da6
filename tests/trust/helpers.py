"""Shared by the TRUST-SCORE tests: the fixtures and trust-eval's own values for them."""

import json
import math
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
NLI = "python:tests.helpers.nli_fns:word_entail"
EXPECTED = json.loads((FIXTURES / "trust_expected.json").read_text())
"""trust-eval 0.1.5's compute_metrics() on each fixture file (make_expected.py says how)."""
MAIN_FILES = {d: f"trust_{d}.json" for d in ("asqa", "qampari", "eli5", "expertqa")}
RUNS = [(name, label) for name in EXPECTED["files"] for label in ("default", "threshold_88")]
THRESHOLDS = {"default": 85, "threshold_88": 88}


def items(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / name).read_text())["data"]


def expected(name: str, label: str = "default") -> dict[str, float]:
    return {
        k: math.nan if v == "nan" else float(v) for k, v in EXPECTED["files"][name][label].items()
    }


def assert_same(got: dict[str, Any], want: dict[str, float], tol: float = 1e-6) -> None:
    """Every expected key is there and equal within ``tol`` (nan equals nan)."""
    missing = [k for k in want if k not in got]
    assert not missing, f"missing keys {missing}"
    wrong = {
        k: (got[k], w)
        for k, w in want.items()
        if not (
            (math.isnan(w) and math.isnan(float(got[k])))
            or (not math.isnan(float(got[k])) and abs(float(got[k]) - w) <= tol)
        )
    }
    assert not wrong, f"(got, trust-eval) differ: {wrong}"
