"""The fields of a data file of one's own: documented per dataset, checked all at once.

Issue 40, item 9: "An ALCE-format JSON list" was the only description of ``-T dataset_path``
data. docs/alce.md and docs/fullcite.md now list the fields each dataset needs with a minimal
example; these tests load every example through its task, check that each field the docs call
required is one the loader needs (and the other way round), and that a file is refused with
every problem of every item in one line, each as ``file:index:field``.
"""

import json
import re
from pathlib import Path

import pytest

from alce_tasks import asqa, eli5, qampari
from fullcite_tasks import asqa as fullcite_asqa
from fullcite_tasks import bioasq, expertqa
from fullcite_tasks.data.bioasq import BioasqDataError, load_bioasq
from inspect_cite.alce.data import AlceDataError, load_items
from inspect_cite.alce.items import REQUIRED_FIELDS
from inspect_cite.benchmarks.expertqa_file import ExpertqaDataError, load_expertqa
from tests.conftest import FIXTURES, ROOT

NLI = "python:tests.helpers.nli_fns:word_entail"
ALCE_TASKS = {"asqa": asqa, "qampari": qampari, "eli5": eli5}


def section(page: str, heading: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    start = text.index(f"\n### {heading}")
    end = text.find("\n#", start + 1)
    return text[start:end]


def json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)


def alce_examples() -> dict[str, list[dict]]:
    blocks = json_blocks(section("alce.md", "Your own data file"))
    return dict(zip(("asqa", "qampari", "eli5"), (json.loads(b) for b in blocks), strict=True))


def required_in_docs() -> dict[str, set[str]]:
    """The fields the docs' table marks required, per dataset."""
    required: dict[str, set[str]] = {"asqa": set(), "qampari": set(), "eli5": set()}
    for line in section("alce.md", "Your own data file").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`"):
            for dataset, cell in zip(("asqa", "qampari", "eli5"), cells[1:4], strict=True):
                if cell == "required":
                    required[dataset].add(cells[0].strip("`"))
    return required


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5"])
def test_each_documented_alce_example_runs_and_its_required_fields_are_the_loaders(
    dataset, own_prompts, tmp_path
):
    example = alce_examples()[dataset]
    assert required_in_docs()[dataset] == set(REQUIRED_FIELDS[dataset])
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(example))
    task = ALCE_TASKS[dataset](dataset_path=str(path), nli=NLI)
    assert len(task.dataset) == 1 and task.dataset[0].id == "0"
    for field in REQUIRED_FIELDS[dataset]:
        path.write_text(json.dumps([{k: v for k, v in example[0].items() if k != field}]))
        with pytest.raises(AlceDataError, match=rf"^{re.escape(str(path))}:0:{field}: missing$"):
            load_items(path, dataset)


def test_every_problem_of_every_item_is_named_in_one_line(own_prompts, tmp_path):
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())
    items[0].pop("qa_pairs")
    items[1]["question"] = 3
    items[1]["docs"][1]["text"] = None
    items[2]["qa_pairs"][0]["short_answers"] = ["ok", 7]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(items))
    with pytest.raises(AlceDataError) as refused:
        asqa(dataset_path=str(path), nli=NLI)
    assert str(refused.value) == (
        f"asqa dataset file {path} (-T dataset_path): 4 problems: "
        f"{path}:0:qa_pairs: missing; "
        f"{path}:1:question: must be a string, got a number; "
        f"{path}:1:docs[1].text: must be a string, got null; "
        f"{path}:2:qa_pairs[0].short_answers: must be a list of strings"
    )


def test_a_long_list_of_problems_is_cut_with_the_count(tmp_path):
    item = {"question": "q", "answers": [["a"]], "docs": []}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([{k: v for k, v in item.items() if k != "answers"}] * 25))
    with pytest.raises(AlceDataError) as refused:
        load_items(path, "qampari")
    message = str(refused.value)
    assert message.count(":answers: missing") == 20 and message.endswith("; ... and 5 more")
    assert "\n" not in message


def fullcite_examples() -> list[str]:
    return json_blocks(section("fullcite.md", "Your own data files"))


def test_the_documented_bioasq_example_runs(tmp_path, cache_root):
    questions, abstracts, _ = fullcite_examples()
    data, abstracts_path = tmp_path / "bioasq.json", tmp_path / "abstracts.json"
    data.write_text(questions)
    abstracts_path.write_text(abstracts)
    task = bioasq(dataset_path=str(data), abstracts_path=str(abstracts_path), similarity_model=None)
    [sample] = task.dataset
    assert sample.id == "q1" and sample.metadata["docs"][0]["id"] == "10000001"
    assert sample.metadata["gold_spans"] == [
        {"doc_id": "10000001", "span": "Aspirin irreversibly inhibits platelet aggregation."}
    ]


def test_the_documented_expertqa_example_runs(tmp_path, cache_root):
    *_, line = fullcite_examples()
    data = tmp_path / "expertqa.jsonl"
    data.write_text(line.strip() + "\n")
    [sample] = expertqa(dataset_path=str(data), similarity_model=None, spans_path=None).dataset
    assert sample.id == "0" and [d["id"] for d in sample.metadata["docs"]] == ["1"]


def test_the_alce_asqa_example_runs_as_fullcite_asqa(tmp_path, cache_root):
    data = tmp_path / "asqa.json"
    data.write_text(json.dumps(alce_examples()["asqa"]))
    spans = tmp_path / "spans.jsonl"
    spans.write_text(json.dumps({"sample_id": "0", "doc_id": "bridge", "span": "a local guild"}))
    [sample] = fullcite_asqa(
        dataset_path=str(data), spans_path=str(spans), similarity_model=None
    ).dataset
    assert sample.metadata["gold_spans"] == [{"doc_id": "bridge", "span": "a local guild"}]


def test_every_bad_fullcite_record_is_named_at_once(tmp_path: Path):
    questions = json.loads(fullcite_examples()[0])["questions"]
    bad = [{**questions[0], "body": 3}, questions[0], {**questions[0], "type": "essay"}]
    path = tmp_path / "bioasq.json"
    path.write_text(json.dumps({"questions": bad}))
    with pytest.raises(BioasqDataError) as refused:
        load_bioasq(path)
    message = str(refused.value)
    assert message.startswith(f"BioASQ file {path}: 2 problems: ") and "\n" not in message
    assert 'question 0 (id "q1"): field "body" must be a string' in message
    assert 'question 2 (id "q1"): field "type" is \'essay\'' in message
    row = json.loads(fullcite_examples()[-1])
    path = tmp_path / "expertqa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ({**row, "question": 1}, row, {})) + "\n")
    with pytest.raises(ExpertqaDataError) as refused:
        load_expertqa(path)
    message = str(refused.value)
    assert f'{path}:1 (sample id "0"): field "question" must be a string' in message
    assert f'{path}:3 (sample id "2"): field "question" must be a string' in message
