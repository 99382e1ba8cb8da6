"""Scoring the FullCite authors' released outputs (gold = their cited snippets)."""

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.solver import generate

from fullcite_tasks.data.incite import incite_records
from fullcite_tasks.task import record_to_sample
from inspect_cite.app.log_metrics import log_metrics
from scorers import citation_bias, citation_judge, doc_snippet_f1
from tests.conftest import reference_dir
from tests.helpers.scripted_models import scripted_model, scripted_output


def incite_samples():
    pairs = []
    for name in ("human_eval_2.json", "human_evaluation_data.json"):
        pairs += incite_records(reference_dir() / "fullcite" / "incite" / name)
    answers = {}
    for record, answer in pairs:
        answers.setdefault(record.question, answer)
    assert len(answers) == len(pairs)  # the scripted model finds each answer by its question
    return [record_to_sample(r, "retrieval", 0) for r, _ in pairs], answers


def test_incite_records_fix_the_glued_snippet_key():
    samples, _ = incite_samples()
    assert len(samples) == 43
    first = samples[0].metadata
    assert [d["id"] for d in first["docs"]] == ["the-sound-of-silence", "wednesday-morning,-3-a.m."]
    assert first["gold_spans"][0]["doc_id"] == "the-sound-of-silence"
    assert {s.metadata["source"] for s in samples} == {"bioasq", "asqa", "expertqa"}


def test_scoring_the_authors_outputs(tmp_path, capsys):
    samples, answers = incite_samples()
    model, _ = scripted_model(lambda input, *a: scripted_output(answers[input[-1].text]))
    grader, _ = scripted_model(lambda *a: scripted_output("Support: 4\nRelevance: 5"))
    task = Task(
        dataset=MemoryDataset(samples),
        solver=generate(),
        scorer=[
            doc_snippet_f1(),
            citation_bias(max_positions=5, group_key="source"),
            citation_judge(),
        ],
    )
    [log] = eval(
        task, model=model, model_roles={"grader": grader}, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    metrics = log_metrics(log)
    first_two = metrics["first_two_share"]
    by_source = {k.rsplit("_", 1)[1]: v for k, v in first_two.items() if "by_group" in k}
    with capsys.disabled():
        print(
            f"\nauthors' outputs: {sum(s.scores['citation_bias'].value['n_citations'] for s in log.samples):.0f}"
            f" citations; share to the first two cited documents {first_two['weighted_mean']:.1f}%"
            f" (by source: {', '.join(f'{k} {v:.1f}%' for k, v in sorted(by_source.items()))});"
            f" Doc-F1 {metrics['doc_f1']['mean']:.1f}, Snippet-F1 {metrics['snippet_f1']['mean']:.1f},"
            f" verbatim {metrics['verbatim_rate']['mean']:.1f}%"
        )
    assert 0 < first_two["weighted_mean"] <= 100 and set(by_source) == {
        "asqa",
        "bioasq",
        "expertqa",
    }
    assert metrics["omission_rate"]["mean"] == 0  # every released answer cites
    # Gold = the cited snippets, so every valid citation finds its document.
    assert metrics["doc_precision"]["mean"] == pytest.approx(100)
    # Some released snippets are not verbatim (rewordings, "0.5" vs "0,5", ...).
    assert 85 < metrics["verbatim_rate"]["mean"] < 100
    assert metrics["support"]["mean"] == 4
    # The judge rates the document's words: 3 of the 99 citations, one in each of 3 answers of
    # 3 citations, cite a snippet their document does not hold (a rewording, words from a URL,
    # "tyrosinekinase") and are not judged: 3 of 43 answers lose a third of their coverage.
    assert metrics["coverage"]["mean"] == pytest.approx(100 - 3 * (100 / 3) / 43)
