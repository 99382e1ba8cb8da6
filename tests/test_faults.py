"""Injected faults: a flaky NLI backend is retried with backoff, then reported per sample."""

import asyncio
import math

import pytest
from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from inspect_cite.nli import NLIConfigError, NLIError, get_nli, reset_nli
from inspect_cite.nli.cached import NLI_BACKOFF_ENV, NLI_RETRIES_ENV
from scorers import citation_nli, claim_coverage
from tests import nli_fns

FLAKY = "python:tests.nli_fns:flaky_entail"
PAIR = ("The cat sat on the mat.", "the cat sat")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv("INSPECT_CITE_NLI_CACHE", raising=False)
    monkeypatch.setenv(NLI_BACKOFF_ENV, "0.01")
    nli_fns.FLAKY.update(failures=0, calls=0)
    reset_nli()
    yield
    reset_nli()


def state(completion: str, metadata: dict) -> TaskState:
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="q",
        messages=[ChatMessageUser(content="q")],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
        metadata=metadata,
    )


def test_flaky_backend_is_retried_until_it_answers(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "3")
    nli_fns.FLAKY["failures"] = 3
    [result] = asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert result.entailed and nli_fns.FLAKY["calls"] == 4


def test_backoff_doubles(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "3")
    monkeypatch.setenv(NLI_BACKOFF_ENV, "0.25")
    sleeps: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    monkeypatch.setattr("inspect_cite.nli.cached.anyio.sleep", fake_sleep)
    nli_fns.FLAKY["failures"] = 3
    asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert [s for s in sleeps if s > 0] == [0.25, 0.5, 1.0]  # 0: the batch queue's wait


def test_exhausted_retries_raise_nli_error(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "2")
    nli_fns.FLAKY["failures"] = 10
    with pytest.raises(NLIError, match=r"server busy.*after 3 attempts"):
        asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert nli_fns.FLAKY["calls"] == 3


def test_bad_retry_setting_is_a_config_error(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "many")
    with pytest.raises(NLIConfigError, match=NLI_RETRIES_ENV):
        get_nli(FLAKY)


@pytest.mark.parametrize("scorer_name", ["citation_nli", "claim_coverage"])
def test_failed_nli_is_nan_with_reason_never_unsupported(monkeypatch, scorer_name):
    monkeypatch.setenv(NLI_RETRIES_ENV, "1")
    nli_fns.FLAKY["failures"] = 1000
    docs = [{"id": "1", "title": "T", "text": "The cat sat on the mat."}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q", "claims": ["the cat sat"]}
    make = citation_nli if scorer_name == "citation_nli" else claim_coverage
    score = asyncio.run(make(nli=FLAKY)(state("The cat sat [1].", meta), Target("")))
    assert score is not None and isinstance(score.value, dict)
    assert all(math.isnan(v) for v in score.value.values())
    assert "server busy" in (score.explanation or "") and "after 2 attempts" in score.explanation
    # Once the backend recovers, the same sample is supported: the failure was not a verdict.
    nli_fns.FLAKY["failures"] = 0
    score = asyncio.run(make(nli=FLAKY)(state("The cat sat [1].", meta), Target("")))
    assert score is not None and isinstance(score.value, dict)
    assert all(v == 100 for v in score.value.values())


def test_malformed_answers_are_not_retried(monkeypatch):
    calls = {"n": 0}

    def returns_text(premise: str, hypothesis: str) -> str:
        calls["n"] += 1
        return "yes"

    monkeypatch.setattr(nli_fns, "returns_text", returns_text)
    with pytest.raises(NLIError, match="expected bool or float"):
        asyncio.run(get_nli("python:tests.nli_fns:returns_text").entail([PAIR]))
    assert calls["n"] == 1
