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
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to, given_arguments
from longcite_tasks import longbench_cite
from solvers import (
    alce_closedbook,
    alce_inlinesearch,
    alce_interact,
    alce_snippet,
    alce_summ,
    constrained_citations,
    posthoc_citations,
    prompted_citations,
)
from solvers.prompted import FULLCITE_DOCUMENT, FULLCITE_PROMPT
from tests.conftest import ASQA_ARGS, BIOASQ_ARGS
from tests.helpers.scripted_models import cite_first_document, scripted_model

ALCE_SYSTEM = (
    "You are a helpful assistant that answers the following questions with proper citations."
)

ALCE = {
    "retriever": "gtr",
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
    "qa": False,
    "qa_model": "gaotianyu1350/roberta-large-squad",
    "mauve": False,
    "mauve_model": "gpt2-large",
    "mauve_seeds": 1,
    "thinking": False,
    "thinking_tokens": 4096,
    # Issue 27 (ALCE's run configurations), added at the end.
    "config": None,
    "chat": True,
    "max_length": None,
    "no_doc_in_demo": False,
    "ndoc_in_demo": None,
    "quick_test": None,
    "retrieve_in_all_docs": None,
    "force_cite_show": None,
    "diagnose": False,
    # Issue 38 (TRUST-SCORE) and issue 39 (HELMET's cite ladder), added at the end.
    "trust": False,
    "context": None,
    "nocite": False,
    # Issue 52: TRUST-SCORE's corrected mode as a task switch, added at the end.
    "corrected": False,
    "tokenizer": None,  # issue 52: the tokenizer HELMET's cut counts with
}
FULLCITE = {
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
    "diagnose": False,
}
PROMPTED = {
    "shot": 2,
    "seed": 42,
    "prompt_file": None,
    "system_message": ALCE_SYSTEM,
    "dataset": None,
    "thinking": False,
    "ndoc_in_demo": None,
}
FULLCITE_PROMPTED = {
    "template": FULLCITE_PROMPT,
    "document_template": FULLCITE_DOCUMENT,
    "system_message": None,
    "thinking": False,
}


def without(params: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in names}


def ordered(params: dict[str, Any], order: str) -> dict[str, Any]:
    return {name: params[name] for name in order.split()}


# Each factory's parameters in the order they had when every one was written out: Inspect
# hashes arguments in signature order to recognise an eval-set's finished runs.
PUBLIC_DEFAULTS = {
    asqa: ALCE,
    eli5: {**without(ALCE, "qa", "qa_model"), "retriever": "bm25"},
    qampari: without(ALCE, "qa", "qa_model", "mauve", "mauve_model", "mauve_seeds"),
    fullcite_asqa: {"dataset_path": None, "spans_path": None, **FULLCITE},
    bioasq: ordered(
        {**FULLCITE, "dataset_path": None, "abstracts_path": None, "question_types": None},
        "dataset_path abstracts_path ndoc doc_order seed strategy question_types "
        "similarity_model judge attribution nli thinking thinking_tokens diagnose",
    ),
    expertqa: {"dataset_path": None, "system": "rr_gs_gpt4", "spans_path": None, **FULLCITE},
    longbench_cite: {
        "dataset_path": None,
        "datasets": None,
        "prompt_file": None,
        "correctness": True,
        "strict": False,
        "tokenizer": "THUDM/glm-4-9b-chat",
        "trust_remote_code": False,
        "thinking": False,
        "thinking_tokens": 4096,
    },
    prompted_citations: FULLCITE_PROMPTED,
    constrained_citations: {
        "format": "auto",
        "strict": False,
        "retries": 3,
        "temperature_step": 0.3,
        "backend": "auto",
        "max_claims": 16,
        "max_claim_chars": 600,
        "max_citations": 3,
        "trim_truncated": True,
        **FULLCITE_PROMPTED,
        "prompt_file": None,
    },
    posthoc_citations: {"threshold": 0.7, **FULLCITE_PROMPTED},
    alce_closedbook: PROMPTED,
    alce_summ: {"ndoc": 10, **PROMPTED},
    alce_snippet: {"ndoc": 10, **PROMPTED},
    alce_interact: ordered(
        {
            **PROMPTED,
            "ndoc": 10,
            "use_shorter": None,
            "max_turn": 10,
            "max_doc_show": 3,
            "force_cite_show": False,
        },
        "ndoc use_shorter shot seed max_turn max_doc_show force_cite_show prompt_file "
        "system_message dataset thinking ndoc_in_demo",
    ),
    alce_inlinesearch: ordered(
        {
            **PROMPTED,
            "ndoc": 0,
            "use_shorter": None,
            "retrieve_in_all_docs": True,
            "force_cite_show": True,
            "retriever": "sentence-transformers/gtr-t5-large",
            "max_turn": 10,
            "device": None,
        },
        "ndoc retrieve_in_all_docs force_cite_show retriever use_shorter shot seed max_turn "
        "prompt_file system_message dataset device thinking ndoc_in_demo",
    ),
}


@pytest.mark.parametrize("factory", PUBLIC_DEFAULTS, ids=lambda f: registry_info(f).name)
def test_public_parameters_and_defaults(factory):
    params = dict(inspect.signature(factory).parameters)
    # Inspect's task registry (which -T names a task takes) reads the same list.
    if registry_info(factory).type == "task":
        assert registry_info(factory).metadata["params"] == list(PUBLIC_DEFAULTS[factory])
    # Names, defaults and order; all positional-or-keyword, as they were.
    assert [(name, p.default) for name, p in params.items()] == list(
        PUBLIC_DEFAULTS[factory].items()
    )
    assert {p.kind for p in params.values()} == {inspect.Parameter.POSITIONAL_OR_KEYWORD}
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
    with pytest.raises(TypeError, match="must be positional-or-keyword"):
        forwards_to(build)(lambda *, required="r", **options: None)
    with pytest.raises(TypeError, match="order must name each of"):
        forwards_to(build, order="label required")(lambda required="r", **options: None)


def test_order_rearranges_the_signature():
    @forwards_to(build, order="label required size")
    def factory(required: str = "r", **options: Any) -> Task:
        return build(required=required, **options)

    assert list(inspect.signature(factory).parameters) == ["label", "required", "size"]
    # Positional arguments follow the signature's order.
    assert factory("l", "q", 7).metadata == {"size": 7, "label": "l", "required": "q"}


def test_help_shows_the_forwarded_options_docs():
    assert "Options (from ``alce_tasks.options.AlceOptions``):" in asqa.__doc__
    assert "\n    oracle: Use ALCE's reranked oracle file" in asqa.__doc__
    assert "qa_model:" not in qampari.__doc__
    # Through two builders: SUMM -> single_generation_solver -> AlcePrompts.
    assert "\n    shot: Demonstrations (paper: 2)" in alce_summ.__doc__
    assert "\n    ndoc: Most documents shown (paper: 10)." in alce_summ.__doc__


def test_positional_arguments_bind_as_before(tmp_path, cache_root):
    task = bioasq(
        BIOASQ_ARGS["dataset_path"], BIOASQ_ARGS["abstracts_path"], 2, similarity_model=None
    )
    assert task.metadata["parameters"]["ndoc"] == 2
    with pytest.raises(TypeError, match="takes no parameter 'ndocs'; did you mean -T ndoc"):
        bioasq(ndocs=2)


class Base:
    def __init__(self, *, size: int = 3, label: str = "x") -> None:
        self.size, self.label = size, label


class Derived(Base):
    """A builder class whose __init__ is inherited."""


def test_a_factory_tells_the_arguments_it_was_given_from_its_defaults():
    seen = []

    def builder(*, size: int = 3, label: str = "x") -> None:
        seen.append(given_arguments())

    @forwards_to(builder)
    def factory(**options: Any) -> None:
        builder(**options)

    # A value equal to the default is still one the caller chose (-T shot=2 over a config's 1).
    factory(size=3)
    factory()
    builder()
    assert seen == [frozenset({"size"}), frozenset(), None]


def test_forwards_to_a_class_and_only_once():
    @forwards_to(Derived)
    def factory(**options: Any) -> Derived:
        return Derived(**options)

    assert list(inspect.signature(factory).parameters) == ["size", "label"]
    assert factory(label="y").label == "y"
    with pytest.raises(TypeError, match="already forwards"):
        forwards_to(Derived)(factory)
