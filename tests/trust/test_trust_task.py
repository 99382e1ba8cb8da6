"""``-T trust=true`` on the ALCE tasks and ``alce_tasks/expertqa``: the whole route, offline.

The task reads a Trust-Score file (the fixture's records without their outputs), builds its
prompts from a refusal-instructed prompt file in this project's own words, and a scripted
model answers each question with the fixture's output; the run's values equal
``alce-eval --trust`` on a result file holding the same outputs.
"""

import json
import math
import re

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa, eli5, expertqa, qampari
from alce_tasks.eval_cli import main
from inspect_cite.alce.trust.prompts import PROMPT_DIR_ENV
from inspect_cite.app.log_metrics import log_metrics
from tests.helpers.scripted_models import scripted_model
from tests.trust.helpers import MAIN_FILES, NLI, assert_same, items

TASKS = {"asqa": asqa, "qampari": qampari, "eli5": eli5, "expertqa": expertqa}
QUESTION = re.compile(r"Question: (.*)\n")

# This project's own wording, in the authors' format (positive and refusal demonstrations).
OWN_PROMPT = {
    "instruction": "Answer from the documents and cite them as [1]. If the documents do not "
    'hold the answer, say "I apologize, but I couldn\'t find an answer."',
    "demo_sep": "\n\n\n",
    "demo_prompt": "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}",
    "doc_prompt": "Document [{ID}](Title: {T}): {P}\n",
    "positive_demos": [
        {
            "question": "Where is the tower?",
            "answer": "It is in Paris [1].",
            "docs": [{"title": "Tower", "text": "The tower is in Paris."}],
        },
        {
            "question": "What colour is the sky?",
            "answer": "Blue [1].",
            "docs": [{"title": "Sky", "text": "The sky is blue."}],
        },
    ],
    "reject_demos": [
        {
            "question": "Who owns the moon?",
            "answer": "I apologize, but I couldn't find an answer.",
            "docs": [{"title": "Sea", "text": "The sea is salty."}],
        }
    ],
}


@pytest.fixture
def trust_prompts(tmp_path, monkeypatch):
    folder = tmp_path / "trust-prompts"
    folder.mkdir()
    for name in MAIN_FILES:
        (folder / f"{name}_rejection.json").write_text(json.dumps(OWN_PROMPT))
    monkeypatch.setenv(PROMPT_DIR_ENV, str(folder))
    return folder


def answering_model(records):
    outputs = {r["question"]: r["output"] for r in records}

    def respond(input, tools, tool_choice, config):
        from tests.helpers.scripted_models import scripted_output

        # The last "Question:" is the test item's (the demonstrations come first).
        return scripted_output(outputs[QUESTION.findall(input[-1].text)[-1]])

    return scripted_model(respond)[0]


@pytest.mark.parametrize("dataset", list(MAIN_FILES))
def test_a_trust_run_equals_alce_eval_trust_on_its_outputs(
    dataset, tmp_path, fresh_nli, cache_root, trust_prompts
):
    records = items(MAIN_FILES[dataset])
    # One record per question: the model answers by the question.
    records = list({r["question"]: r for r in records}.values())
    data = tmp_path / "trust.json"
    data.write_text(json.dumps([{k: v for k, v in r.items() if k != "output"} for r in records]))
    args = {"dataset_path": str(data), "nli": NLI, "ndoc": 5, "shot": 2}
    task = TASKS[dataset](**args) if dataset == "expertqa" else TASKS[dataset](trust=True, **args)
    [log] = inspect_eval(
        task, model=answering_model(records), display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    # The refusal-instructed prompt: 1 positive and 1 refusal demonstration, then the item.
    prompt = sample.messages[1].text
    assert prompt.count("Question: ") == 3 and "couldn't find an answer" in prompt
    assert sample.metadata["evidence"]["seen"], "the solver recorded what the model saw"
    ran = log_metrics(log)["trust_score"]
    # Inspect's headline (the first score's first metric) is TRUST-SCORE itself.
    assert next(iter(log.results.scores[0].metrics)) == "trust_score"
    # alce-eval --trust on the run's own outputs and the documents it showed.
    shown = [
        {
            **{k: v for k, v in r.items() if k != "docs"},
            "docs": r["docs"][:5],
            "output": s.output.completion,
        }
        for r, s in zip(records, sorted(log.samples, key=lambda s: int(s.id)), strict=True)
    ]
    result = tmp_path / "result.json"
    result.write_text(json.dumps({"data": shown}))
    assert main(["--f", str(result), "--trust", "--dataset", dataset, "--nli", NLI]) == 0
    cli = json.loads((tmp_path / "result.json.score").read_text())
    # The same keys (the run puts trust_score first, as its headline; the file keeps
    # trust-eval's order).
    assert sorted(ran) == sorted(cli) and list(ran)[0] == "trust_score"
    assert_same(ran, cli)


def test_options_a_trust_run_does_not_read_are_refused(tmp_path, trust_prompts):
    data = tmp_path / "trust.json"
    data.write_text(json.dumps(items(MAIN_FILES["asqa"])))
    for options, message in (
        ({"strategy": "summ"}, "-T strategy=summ: -T trust=true answers from the authors'"),
        ({"oracle": True}, "-T oracle=true: not read by a TRUST-SCORE run"),
        ({"prompt": "light_inst"}, "-T prompt=light_inst: -T trust=true reads"),
    ):
        with pytest.raises(ValueError) as e:
            asqa(dataset_path=str(data), nli=NLI, trust=True, **options)
        assert str(e.value).startswith(message), str(e.value)
    with pytest.raises(ValueError, match="-T strategy=rerank"):
        expertqa(dataset_path=str(data), nli=NLI, strategy="rerank")


def test_corrected_is_a_task_switch(tmp_path, fresh_nli, cache_root, trust_prompts):
    # Every output a refusal: trust-eval scores the empty answered set 0, corrected nan.
    records = items("trust_edge_asqa_all_refused.json")
    records = list({r["question"]: r for r in records}.values())
    data = tmp_path / "trust.json"
    data.write_text(json.dumps([{k: v for k, v in r.items() if k != "output"} for r in records]))
    ran = {}
    for corrected in (False, True):
        task = asqa(trust=True, dataset_path=str(data), nli=NLI, corrected=corrected)
        [log] = inspect_eval(
            task, model=answering_model(records), display="none", log_dir=str(tmp_path)
        )
        assert log.status == "success", log.error
        assert log.eval.metadata["parameters"]["corrected"] is corrected
        ran[corrected] = log_metrics(log)["trust_score"]
    assert ran[False]["answered_citation_f1"] == 0.0 and ran[False]["trust_score"] > 0
    assert math.isnan(ran[True]["answered_citation_f1"]) and math.isnan(ran[True]["trust_score"])
