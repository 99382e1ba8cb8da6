"""RERANK keeps the candidate with the best citation recall (deterministic python: NLI)."""

from inspect_ai import Task
from inspect_ai.dataset import Sample

from scorers.citation_nli import citation_nli
from solvers.alce_rerank import alce_rerank
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"
DOCS = [
    {"id": "1", "title": "Eiffel Tower", "text": "The tower was built from 1887 to 1889 in Paris."},
    {"id": "2", "title": "Paris", "text": "Paris is the capital of France."},
]


def run(texts: list[str], tmp_path, n: int = 4):
    sample = Sample(
        input="prompt",
        id="s1",
        metadata={"dataset": "asqa", "question": "When was the tower built?", "docs": DOCS},
    )
    task = Task(dataset=[sample], solver=alce_rerank(n=n, nli=NLI), scorer=citation_nli(nli=NLI))
    log = eval_one(task, scripted_model(texts)[0], log_dir=str(tmp_path))
    return log.samples[0]


def test_rerank_keeps_best_recall(own_prompts, tmp_path):
    # own_prompts: the solver reads the prompt file a sample of one's own task would get.
    texts = [
        "The tower was built in 1887 [2].",  # cites the wrong document: recall 0
        "Paris is the capital [2]. It was built in London [1].",  # 1 of 2 statements
        "The tower was built from 1887 to 1889 [1]. Paris is the capital of France [2].",  # 2 of 2
        "The tower was built from 1887 to 1889 [1].",  # 1 of 1, ties with the third: later loses
    ]
    sample = run(texts, tmp_path)
    assert sample.metadata["rerank"]["citation_recall"] == [0.0, 0.5, 1.0, 1.0]
    assert sample.metadata["rerank"]["chosen"] == 2
    assert sample.output.completion == texts[2]
    assert sample.messages[-1].text == texts[2]
    assert sample.scores["citation_nli"].value["citation_rec"] == 100.0


def test_rerank_all_unsupported_keeps_first(own_prompts, tmp_path):
    sample = run(["No citation here.", "Still none."], tmp_path, n=2)
    assert sample.metadata["rerank"]["chosen"] == 0
    assert sample.output.completion == "No citation here."
