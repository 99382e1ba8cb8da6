"""An NLI spec goes from every entry point through ``inspect_cite.nli.checked``.

A task's ``-T nli``, a scorer's or solver's ``-S nli``: one refusal form naming the flag, a
check run once per spec per process, one shared backend.
"""

import pytest

import alce_tasks
import fullcite_tasks
from fullcite_tasks.options import FullciteTaskError
from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.once import reset_preflight
from inspect_cite.nli import get_nli
from scorers.citation_nli import citation_nli
from scorers.claim_support import claim_support
from solvers import alce_rerank
from tests.conftest import FIXTURES

NLI = "python:tests.helpers.nli_fns:word_entail"
ALCE_DATA = str(FIXTURES / "alce_asqa.json")


def refusal(build) -> str:
    with pytest.raises(PreflightError) as e:
        build()
    return str(e.value)


def test_every_entry_refuses_a_bad_nli_spec_in_one_form(own_prompts, tmp_path):
    missing = str(tmp_path / "missing.json")
    shown = "nli=bogus: unknown NLI spec 'bogus'; use one of:\n"
    for build in (
        lambda: alce_tasks.asqa(dataset_path=ALCE_DATA, nli="bogus"),
        # FullCite checks the syntax before reading data, even where no scorer uses the NLI.
        lambda: fullcite_tasks.asqa(dataset_path=missing, nli="bogus"),
    ):
        assert refusal(build).startswith(f"-T {shown}")
    # FullCite refuses every -T value it cannot take as a FullciteTaskError, a ValueError.
    with pytest.raises(FullciteTaskError):
        fullcite_tasks.asqa(dataset_path=missing, nli="bogus")
    for build in (
        lambda: citation_nli(nli="bogus"),
        lambda: claim_support(nli="bogus"),
        lambda: alce_rerank(nli="bogus"),
    ):
        assert refusal(build).startswith(f"-S {shown}")


def test_an_nli_spec_is_checked_once_and_its_backend_shared(monkeypatch, fresh_nli):
    from inspect_cite.nli import checked

    calls = []
    problem = checked._nli_problem
    monkeypatch.setattr(checked, "_nli_problem", lambda *args: calls.append(args) or problem(*args))
    reset_preflight()
    try:
        assert checked.check_nli(NLI, flag="-T nli") == NLI
        backend = checked.checked_nli(NLI)
        assert checked.checked_nli(NLI) is backend is get_nli(NLI)
        # -T nli=true arrives as a YAML boolean where no annotation made it text.
        assert checked.nli_spec(True, flag="-T nli") == "true"
    finally:
        reset_preflight()
    assert len(calls) == 1


def test_an_api_judge_without_its_key_or_package_is_refused_before_generation(
    own_prompts, monkeypatch
):
    # Issue 35, item 14: README's laptop route (-T nli=model:openai/gpt-4o-mini) printed "ok"
    # without OPENAI_API_KEY, then failed in scoring after every answer was generated.
    from inspect_cite.nli.checked import check_nli

    reset_preflight()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AZUREAI_OPENAI_API_KEY", raising=False)
    message = refusal(
        lambda: alce_tasks.asqa(dataset_path=ALCE_DATA, nli="model:openai/gpt-4o-mini")
    )
    assert message.startswith("-T nli=model:openai/gpt-4o-mini: ")
    assert "OPENAI_API_KEY" in message and "\n" not in message and "[bold]" not in message
    # A provider whose package is not installed (groq is no dependency of this project).
    message = refusal(lambda: check_nli("model:groq/llama-3.1-8b-instant", flag="-S nli"))
    assert "pip install groq" in message and "\n" not in message
    # With the key set, nothing is sent: the check only builds the client.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    reset_preflight()
    assert check_nli("model:openai/gpt-4o-mini", flag="-T nli") == "model:openai/gpt-4o-mini"
