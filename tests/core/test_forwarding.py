"""Factories that forward ``**options`` to a builder offer the builder's parameters.

The tasks' and solvers' parameter lists are public (``-T``/``-S`` names, log records): each is
pinned here, as it stood when every @task wrote its list out, so a change to a builder that
moves a name, type or default fails here first.
"""

import inspect
from typing import Any, get_args

import pytest
from inspect_ai import Task, eval
from inspect_ai.util import registry_info

from alce_tasks import asqa, eli5, qampari
from fullcite_tasks import asqa as fullcite_asqa
from fullcite_tasks import bioasq, expertqa
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.forwarding import forwards_to
from solvers import (
    alce_closedbook,
    alce_inlinesearch,
    alce_interact,
    alce_snippet,
    alce_summ,
    posthoc_citations,
    prompted_citations,
)
from solvers.prompted import FULLCITE_DOCUMENT, FULLCITE_PROMPT
from tests.conftest import ASQA_ARGS
from tests.helpers.scripted_models import cite_first_document, scripted_model

ALCE_SYSTEM = (
    "You are a helpful assistant that answers the following questions with proper citations."
)

ALCE_SHARED = {
    "oracle": False,
    "ndoc": None,
    "shot": 2,
    "seed": 42,
    "prompt": "default",
    "use_shorter": None,
    "dataset_path": None,
    "prompt_file": None,
    "nli": "true",
    "strategy": "vanilla",
    "retrieval_model": "sentence-transformers/gtr-t5-large",
    "thinking": False,
    "thinking_tokens": 4096,
}
MAUVE = {"mauve": False, "mauve_model": "gpt2-large", "mauve_seeds": 1}
QA = {"qa": False, "qa_model": "gaotianyu1350/roberta-large-squad"}
FULLCITE_SHARED = {
    "dataset_path": None,
    "ndoc": 5,
    "doc_order": "retrieval",
    "seed": 42,
    "strategy": "prompt",
    "similarity_model": "sentence-transformers/all-MiniLM-L6-v2",
    "judge": False,
    "attribution": False,
    "nli": "true",
    "thinking": False,
    "thinking_tokens": 4096,
}
PROMPTED = {
    "shot": 2,
    "seed": 42,
    "prompt_file": None,
    "system_message": ALCE_SYSTEM,
    "dataset": None,
    "thinking": False,
}

FULLCITE_PROMPTED = {
    "template": FULLCITE_PROMPT,
    "document_template": FULLCITE_DOCUMENT,
    "system_message": None,
    "thinking": False,
}

PUBLIC_DEFAULTS = {
    asqa: {"retriever": "gtr", **ALCE_SHARED, **QA, **MAUVE},
    eli5: {"retriever": "bm25", **ALCE_SHARED, **MAUVE},
    qampari: {"retriever": "gtr", **ALCE_SHARED},
    fullcite_asqa: {**FULLCITE_SHARED, "spans_path": None},
    bioasq: {**FULLCITE_SHARED, "abstracts_path": None, "question_types": None},
    expertqa: {**FULLCITE_SHARED, "system": "rr_gs_gpt4", "spans_path": None},
    prompted_citations: FULLCITE_PROMPTED,
    posthoc_citations: {"threshold": 0.7, **FULLCITE_PROMPTED},
    alce_closedbook: PROMPTED,
    alce_summ: {**PROMPTED, "ndoc": 10},
    alce_snippet: {**PROMPTED, "ndoc": 10},
    alce_interact: {
        **PROMPTED,
        "ndoc": 10,
        "use_shorter": None,
        "max_turn": 10,
        "max_doc_show": 3,
        "force_cite_show": False,
    },
    alce_inlinesearch: {
        **PROMPTED,
        "ndoc": 0,
        "use_shorter": None,
        "retrieve_in_all_docs": True,
        "force_cite_show": True,
        "retriever": "sentence-transformers/gtr-t5-large",
        "max_turn": 10,
        "device": None,
    },
}


@pytest.mark.parametrize("factory", PUBLIC_DEFAULTS, ids=lambda f: registry_info(f).name)
def test_public_parameters_and_defaults(factory):
    params = inspect.signature(factory).parameters
    assert {name: p.default for name, p in params.items()} == PUBLIC_DEFAULTS[factory]
    # Inspect's task registry (which -T names a task takes) reads the same list.
    if registry_info(factory).type == "task":
        assert set(registry_info(factory).metadata["params"]) == set(PUBLIC_DEFAULTS[factory])
    # Each keeps its type: the CLI value conversion and help() read it.
    assert all(p.annotation is not p.empty for p in params.values())


def test_dataset_specific_types_stay_per_task():
    assert get_args(inspect.signature(eli5).parameters["retriever"].annotation) == ("bm25",)
    assert "dpr" in str(inspect.signature(asqa).parameters["retriever"].annotation)


def test_log_records_forwarded_parameters_with_defaults(tmp_path, cache_root):
    model, _ = scripted_model(cite_first_document)
    task = fullcite_asqa(**ASQA_ARGS, ndoc=3, similarity_model=None)
    [log] = eval(task, model=model, limit=1, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    # Given, forwarded, and left at the builder's default: all recorded under their own names.
    assert log.eval.task_args["ndoc"] == 3
    assert log.eval.task_args["doc_order"] == "retrieval"
    assert log.eval.task_args["spans_path"] == ASQA_ARGS["spans_path"]
    assert "options" not in log.eval.task_args


def build(*, size: int = 3, label: str = "x", required: str) -> Task:
    return Task(metadata={"size": size, "label": label, "required": required})


def test_forwarded_text_parameters_take_cli_values():
    @accept_cli_values("-T")
    @forwards_to(build)
    def factory(required: str = "r", **options: Any) -> Task:
        return build(required=required, **options)

    # -T label=true arrives as the YAML boolean; the builder's `str` makes it text again.
    assert factory(label=True).metadata == {"size": 3, "label": "true", "required": "r"}
    assert list(inspect.signature(factory).parameters) == ["required", "size", "label"]


def test_forwards_to_refuses_what_it_cannot_offer():
    with pytest.raises(TypeError, match=r"needs \*\*options"):
        forwards_to(build)(lambda required="r": None)
    with pytest.raises(TypeError, match="omit names"):
        forwards_to(build, omit=("sise",))(lambda required="r", **options: None)
    with pytest.raises(TypeError, match="build's required has no default; declare it"):
        forwards_to(build)(lambda **options: None)
