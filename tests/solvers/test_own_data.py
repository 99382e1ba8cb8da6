"""README's "Your own data": a task of one's own, its documents in ``metadata["docs"]``.

Every solver the README and docs offer for one's own data shows the documents to the model,
and every ALCE scorer scores such samples, a key whose gold field is missing being nan with the
field named (never a KeyError).
"""

import math

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample

from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE
from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from scorers.claim_coverage import claim_coverage
from solvers import alce_rerank, alce_vanilla, constrained_citations
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"
DOCS = [
    {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower stands in Paris."},
    {"id": "louvre", "title": "Louvre", "text": "The Louvre is a museum in Paris."},
]
QUESTION = "Where is the Eiffel Tower?"
ANSWER = "The Eiffel Tower stands in Paris [1]."


def own_samples(**metadata) -> MemoryDataset:
    """A task of one's own: the input is the question, the documents are in the metadata."""
    return MemoryDataset(
        [Sample(id="q1", input=QUESTION, target="In Paris.", metadata={"docs": DOCS, **metadata})]
    )


@pytest.mark.parametrize(
    "solver",
    [
        pytest.param(lambda: alce_vanilla(), id="alce_vanilla"),
        pytest.param(lambda: alce_rerank(n=1, nli=NLI), id="alce_rerank"),
        pytest.param(
            lambda: constrained_citations(format="alce", retries=0), id="constrained_citations"
        ),
    ],
)
def test_own_documents_reach_the_model(solver, own_prompts, fresh_nli, tmp_path):
    model, script = scripted_model([ANSWER])
    log = eval_one(
        Task(dataset=own_samples(), solver=solver()), model, log_dir=str(tmp_path / "logs")
    )
    [messages] = script.inputs
    assert messages[0].role == "system" and messages[0].text == ALCE_SYSTEM_MESSAGE
    prompt = messages[-1].text
    # ALCE's document block (the project's prompt files: "Document [i](Title: T): P"), in order,
    # after the demonstrations, then the question.
    blocks = [f"Document [{i}](Title: {d['title']}): {d['text']}" for i, d in enumerate(DOCS, 1)]
    test_block = prompt[prompt.rindex(f"Question: {QUESTION}") :]
    assert all(block in test_block for block in blocks), prompt
    assert test_block.index(blocks[0]) < test_block.index(blocks[1])
    assert prompt.rstrip().endswith("Answer:")
    # The citations [n] refer to the documents as shown; each keeps its own id.
    [sample] = log.samples
    shown = sample.metadata["docs"]
    assert [(d["id"], d["passage_id"]) for d in shown] == [("1", "eiffel"), ("2", "louvre")]


def test_own_samples_without_gold_fields_score_nan_naming_the_field(fresh_nli, tmp_path):
    model, _ = scripted_model([ANSWER])
    task = Task(
        dataset=own_samples(),
        scorer=[
            alce_correctness(dataset="asqa"),
            citation_nli(nli=NLI, dataset="qampari"),
            claim_coverage(nli=NLI),
        ],
    )
    [sample] = eval_one(task, model, log_dir=str(tmp_path / "logs")).samples
    correctness = sample.scores["alce_correctness"]
    assert math.isnan(correctness.value["str_em"]) and math.isnan(correctness.value["str_hit"])
    assert 'missing field "qa_pairs"' in correctness.metadata["reason"]
    assert correctness.explanation.startswith("**Not scored:** str_em, str_hit: missing field")
    # What can be known is scored: the length, and ROUGE against the target.
    assert correctness.value["length"] == 6 and correctness.value["rougeLsum"] > 0
    citations = sample.scores["citation_nli"]
    assert all(math.isnan(v) for v in citations.value.values())
    assert 'metadata["question"]' in citations.metadata["reason"]
    claims = sample.scores["claim_coverage"]
    assert math.isnan(claims.value["claims_nli"])
    assert 'missing field "claims"' in claims.metadata["reason"]


def test_own_samples_with_gold_fields_are_scored(tmp_path):
    model, _ = scripted_model([ANSWER])
    samples = own_samples(qa_pairs=[{"short_answers": ["Paris"]}], answer="In Paris.")
    task = Task(dataset=samples, scorer=alce_correctness(dataset="asqa"))
    [sample] = eval_one(task, model, log_dir=str(tmp_path / "logs")).samples
    score = sample.scores["alce_correctness"]
    assert score.value["str_em"] == 100 and score.value["str_hit"] == 100
    assert not (score.metadata or {}).get("reason")
