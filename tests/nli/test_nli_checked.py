"""An NLI spec goes from every entry point through ``inspect_cite.nli.checked``.

A task's ``-T nli``, a scorer's or solver's ``-S nli``: one refusal form naming the flag, a
check run once per spec per process, one shared backend.
"""

import pytest

import alce_tasks
import fullcite_tasks
from fullcite_tasks.task import FullciteTaskError
from inspect_cite.errors import PreflightError
from inspect_cite.nli import get_nli
from inspect_cite.preflight import reset_preflight
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
