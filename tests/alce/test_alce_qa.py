import math

import numpy as np
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from inspect_cite.models import shared
from inspect_cite.text.squad import compute_exact, compute_f1
from scorers.alce_qa import (
    QA_KEYS,
    QAModel,
    alce_qa,
    best_span,
    compute_alce_qa,
    get_qa_model,
    qa_context,
    qa_item_scores,
)
from tests.conftest import fixture_corpus, load_fixture


def test_compute_exact_normalizes():
    assert compute_exact("The Eiffel Tower", "eiffel tower!") == 1
    assert compute_exact("an apple", "apple") == 1
    assert compute_exact("1889", "March 1889") == 0
    assert compute_exact("", "") == 1
    assert compute_exact("x", "") == 0


def test_compute_f1_hand_cases():
    # gold tokens: christopher eccleston (2); pred: eccleston played (2): 1 common
    assert compute_f1("Christopher Eccleston", "Eccleston played") == pytest.approx(0.5)
    # p = 1/3, r = 1/1 -> 2 * (1/3) / (4/3) = 0.5
    assert compute_f1("1889", "in march 1889") == pytest.approx(0.5)
    # repeated tokens count once per occurrence (multiset intersection): p = 2/3, r = 2/2
    assert compute_f1("new new", "new new york") == pytest.approx(0.8)
    assert compute_f1("the", "") == 1.0  # both empty after normalisation
    assert compute_f1("x", "") == 0.0
    assert compute_f1("x", "y") == 0.0


def test_item_scores_take_best_short_answer():
    pairs = [
        {"question": "q1", "short_answers": ["Christopher Eccleston", "Eccleston"]},
        {"question": "q2", "short_answers": ["David Tennant"]},
    ]
    values = qa_item_scores(["Eccleston", "Tennant"], pairs)
    assert values["QA-EM"] == pytest.approx(50.0)
    assert values["QA-F1"] == pytest.approx(100 * (1.0 + 2 / 3) / 2)
    assert values["QA-Hit"] == 0.0
    assert qa_item_scores(["eccleston", "david tennant"], pairs)["QA-Hit"] == 100.0
    with pytest.raises(ValueError):
        qa_item_scores([], [])


def test_context_is_citation_free_first_line():
    assert qa_context("Paul McCartney [1] wrote it.\nMore") == "Paul McCartney wrote it."
    assert qa_context("") == " "
    assert qa_context("\n\nlater") == "later"  # eval.py strips before cutting
    assert qa_context("[1]") == " "


class _ScriptedQA:
    """Answers from a table: lets the tests check the scoring around the QA model."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers
        self.calls: list[tuple[list[str], str]] = []

    def answer(self, questions, context):
        self.calls.append((list(questions), context))
        return [self.answers.get(q, "") for q in questions]


@pytest.fixture
def scripted_qa(monkeypatch):
    qa = _ScriptedQA(
        {
            "Who played the Ninth Doctor in the 2005 revival?": "Eccleston",
            "Who played the Tenth Doctor?": "Matt Smith",
            "When did construction of the Eiffel Tower begin?": "January 1887",
            "When was the Eiffel Tower completed?": "1889",
            "Who wrote Yesterday?": "Paul",
        }
    )
    monkeypatch.setitem(shared._instances, ("qa", "scripted", None), qa)
    return qa


def test_compute_alce_qa_means_over_items(scripted_qa):
    items = load_fixture("alce_asqa.json")
    for item in items:
        item["output"] = f"Answer for {item['question']} [1][2].\nIgnored second line."
    values = compute_alce_qa(items, qa_model="scripted")
    # item 1: EM 1/2, F1 1/2, no hit; item 2: all exact; item 3: F1("Paul McCartney", "Paul")=2/3
    assert values["QA-EM"] == pytest.approx(100 * (0.5 + 1 + 0) / 3)
    assert values["QA-F1"] == pytest.approx(100 * (0.5 + 1 + 2 / 3) / 3)
    assert values["QA-Hit"] == pytest.approx(100 / 3)
    questions, context = scripted_qa.calls[0]
    assert context == "Answer for Who played the Doctor in the 2005 revival of Doctor Who?."
    assert len(questions) == 2


def test_compute_alce_qa_without_qa_pairs_is_zero():
    assert compute_alce_qa([{"question": "q", "output": "x"}]) == dict.fromkeys(QA_KEYS, 0.0)


def _asqa_samples() -> list[Sample]:
    return [
        Sample(id=i, input=item["question"], target=item["answer"], metadata=item)
        for i, item in enumerate(load_fixture("alce_asqa.json"))
    ]


def _mock(content: str):
    usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return get_model(
        "mockllm/model",
        custom_outputs=lambda *a: ModelOutput.from_content("mockllm", content).model_copy(
            update={"usage": usage}
        ),
    )


def test_scorer_in_eval(scripted_qa, tmp_path):
    samples = _asqa_samples() + [Sample(id=99, input="no qa pairs", metadata={"question": "q"})]
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=alce_qa("scripted"))
    [log] = inspect_eval(task, model=_mock("An answer [1]."), display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert metrics["QA-EM"] == pytest.approx(100 * 1.5 / 3)
    assert metrics["QA-Hit"] == pytest.approx(100 / 3)
    by_id = {s.id: s.scores["alce_qa"] for s in log.samples}
    assert all(math.isnan(v) for v in by_id[99].value.values())
    assert set(by_id[0].value) == set(QA_KEYS)
    assert "Matt Smith" in by_id[0].explanation


@pytest.fixture(scope="module")
def tiny_qa(tmp_path_factory):
    from tests.helpers.tiny_eval_models import build_tiny_qa

    return build_tiny_qa(tmp_path_factory.mktemp("tiny-qa"), fixture_corpus())


def test_best_span_hand_cases():
    allowed = np.array([1, 0, 0, 1, 1, 1, 1, 0], dtype=bool)  # CLS, question, context, SEP
    start = np.array([0, 9, 9, 1, 5, 1, 1, 9], dtype=np.float32)
    end = np.array([0, 9, 9, 1, 1, 6, 1, 9], dtype=np.float32)
    found, null = best_span(start, end, allowed)
    assert found is not None and found[:2] == (4, 5)  # masked question tokens never win
    p_s = np.exp(start[allowed] - 5) / np.exp(start[allowed] - 5).sum()
    p_e = np.exp(end[allowed] - 6) / np.exp(end[allowed] - 6).sum()
    assert null == pytest.approx(p_s[0] * p_e[0], rel=1e-5)
    assert found[2] == pytest.approx(p_s[2] * p_e[3], rel=1e-5)

    # the null (CLS) answer: its score is compared by the caller, spans exclude CLS
    start[0] = end[0] = 20
    found, null = best_span(start, end, allowed)
    assert null > 0.99 and found is not None and found[2] < null

    # spans longer than max_answer_len tokens or ending before they start are excluded
    start = np.array([0, 0, 9, 8, 0, 0, 0, 0], dtype=np.float32)
    end = np.array([0, 0, 9, 0, 0, 4, 8, 0], dtype=np.float32)
    assert best_span(start, end, allowed)[0][:2] == (3, 6)
    assert best_span(start, end, allowed, max_answer_len=3)[0][:2] == (3, 5)
    end[3:] = 0
    end[3], end[4] = 8, 2  # the best end lies before the best start: never paired with it
    start[3], start[4] = 0, 8
    assert best_span(start, end, allowed)[0][:2] == (4, 4)


def test_qa_model_maps_spans_to_whole_words(tiny_qa):
    import torch

    qa = QAModel(str(tiny_qa), "cpu")
    context = "Christopher Eccleston played the Ninth Doctor."
    enc = qa.tokenizer("Who?", context)
    tokens = enc.tokens()
    words = enc.word_ids()
    seq = enc.sequence_ids()
    first = [i for i, (w, s) in enumerate(zip(words, seq, strict=True)) if s == 1 and w == 0]
    second = [i for i, (w, s) in enumerate(zip(words, seq, strict=True)) if s == 1 and w == 1]
    n = len(tokens)

    class Fake(torch.nn.Module):
        def forward(self, input_ids, **kwargs):
            start = torch.zeros(1, n)
            end = torch.zeros(1, n)
            start[0, first[-1]] = 10.0  # the last piece of "Christopher"
            end[0, second[0]] = 10.0  # the first piece of "Eccleston"
            return type("Out", (), {"start_logits": start, "end_logits": end})()

    qa.model = Fake()
    assert qa.answer(["Who?"], context) == ["Christopher Eccleston"]

    class Abstain(Fake):
        def forward(self, input_ids, **kwargs):
            start = torch.zeros(1, n)
            start[0, 0] = 10.0
            return type("Out", (), {"start_logits": start, "end_logits": start.clone()})()

    qa.model = Abstain()
    assert qa.answer(["Who?", "When?"], context) == ["", ""]


def test_long_context_is_chunked(tiny_qa):
    qa = QAModel(str(tiny_qa), "cpu")
    qa.max_seq_len, qa.doc_stride = 32, 8
    context = " ".join(load_fixture("alce_asqa.json")[0]["docs"][0]["text"].split()[:120])
    [answer] = qa.answer(["Who played the Doctor?"], context)
    assert answer == "" or answer in context


def test_real_model_path_offline(tiny_qa, tmp_path):
    items = load_fixture("alce_asqa.json")
    for item in items:
        item["output"] = item["answer"] + " [1]"
    values = compute_alce_qa(items, qa_model=str(tiny_qa), device="cpu")
    qa = get_qa_model(str(tiny_qa), "cpu")
    per_item = []
    for item in items:
        context = qa_context(item["output"])
        preds = qa.answer([p["question"] for p in item["qa_pairs"]], context)
        assert all(p == "" or p in context for p in preds)
        per_item.append(qa_item_scores(preds, item["qa_pairs"]))
    for key in QA_KEYS:
        assert values[key] == pytest.approx(sum(v[key] for v in per_item) / len(items))

    task = Task(
        dataset=MemoryDataset(_asqa_samples()),
        solver=generate(),
        scorer=alce_qa(str(tiny_qa), device="cpu"),
    )
    [log] = inspect_eval(task, model=_mock("text"), display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert {s.name for s in log.results.scores} == set(QA_KEYS)
