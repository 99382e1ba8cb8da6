"""HELMET's cite ladder: prompts equal HELMET's own loader, scores equal its eval_alce.py.

The expected values in tests/fixtures/helmet/ were made by running HELMET's own code
(princeton-nlp/HELMET at 4526dfbdc512bd9ff721da336bff4e3e75ecfd27) on the files and outputs
``tests/helpers/helmet_files.py`` generates; tests/fixtures/helmet/README.md gives the commands.
"""

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

from alce_tasks.helmet import helmet_dataset, helmet_generate_config, helmet_scorers
from inspect_cite.alce.autoais import citation_scores
from inspect_cite.alce.helmet import (
    CONTEXT_LENGTHS,
    HELMET_DATA_DIR_ENV,
    HelmetDataError,
    HelmetOptionError,
    HelmetPromptBuilder,
    format_docs,
    helmet_data_path,
    helmet_items,
    helmet_sample_indices,
    helmet_scoring_output,
    helmet_settings,
    official_helmet_prompt_path,
    scoring_output,
)
from inspect_cite.alce.prompts import PROMPT_DIR_ENV, PromptFile
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.checks.network import hub_download_command
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.nli import get_nli
from scorers.alce_correctness import CORRECTNESS_KEYS, correctness
from scorers.citation_nli import citation_nli
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.helmet_files import build_word_tokenizer, scoring_cases, write_helmet_files
from tests.helpers.scripted_models import scripted_model

EXPECTED_PROMPTS = json.loads((FIXTURES / "helmet" / "expected_prompts.json").read_text())
EXPECTED_SCORES = json.loads((FIXTURES / "helmet" / "expected_scores.json").read_text())
NLI = "python:tests.helpers.nli_fns:claim_overlap"
ROWS = {
    "asqa_32k": ("asqa", "32k", False),
    "qampari_32k": ("qampari", "32k", False),
    "asqa_8k": ("asqa", "8k", False),
    "qampari_8k": ("qampari", "8k", False),
    "asqa_nocite_16k": ("asqa", "16k", True),
}


@pytest.fixture(scope="module")
def helmet_dir(tmp_path_factory) -> Path:
    return write_helmet_files(tmp_path_factory.mktemp("helmet"))


@pytest.fixture(scope="module")
def word_tokenizer(tmp_path_factory) -> str:
    """A word-level fast tokenizer with a chat template (``build_word_tokenizer``)."""
    return str(build_word_tokenizer(tmp_path_factory.mktemp("tok")))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _ids(items: list[dict[str, Any]]) -> list[str]:
    return [item.get("sample_id") or item.get("id") for item in items]


@pytest.mark.parametrize("chat", [True, False], ids=["chat", "raw"])
@pytest.mark.parametrize("row", list(ROWS))
def test_prompts_equal_helmets_loader(helmet_dir, row, chat):
    dataset, context, nocite = ROWS[row]
    settings = replace(helmet_settings(dataset, context, nocite=nocite), chat_template=chat)
    items = json.loads((helmet_dir / f"{dataset}_eval_gtr_top2000.json").read_text())
    prompt_file = PromptFile.load(helmet_dir / f"{settings.prompt_name}.json")
    runs = helmet_items(items, prompt_file, settings)
    expected = EXPECTED_PROMPTS["rows"][row]
    assert expected["helmet_dataset"] == settings.helmet_name
    assert _ids([r.item for r in runs]) == expected["ids"]
    assert [_sha(r.prompt) for r in runs] == expected["chat_sha256" if chat else "raw_sha256"]
    assert all(len(r.item["docs"]) == settings.ndoc for r in runs)


def test_every_length_runs_the_same_questions_and_demonstrations(helmet_dir):
    items = json.loads((helmet_dir / "asqa_eval_gtr_top2000.json").read_text())
    prompt_file = PromptFile.load(helmet_dir / "asqa_revised.json")
    runs = {c: helmet_items(items, prompt_file, helmet_settings("asqa", c)) for c in ("8k", "32k")}
    assert [r.index for r in runs["8k"]] == [r.index for r in runs["32k"]]
    assert [r.demo_ids for r in runs["8k"]] == [r.demo_ids for r in runs["32k"]]
    assert len({tuple(r.demo_ids) for r in runs["8k"]}) > 1  # a draw per item, not one per run
    assert [r.index for r in runs["8k"]] == helmet_sample_indices(len(items))


def test_passages_are_formatted_as_str_format_once(helmet_dir):
    """A passage's text is inserted as is: braces in it are not a second template."""
    doc = {"title": "T", "text": "the charter of {1882} names {x}", "score": 0.5}
    assert format_docs("Document [{ID}](Title: {title}): {text}", [doc, doc]) == (
        "Document [1](Title: T): the charter of {1882} names {x}\n\n"
        "Document [2](Title: T): the charter of {1882} names {x}"
    )
    with pytest.raises(HelmetDataError, match="document 1"):
        format_docs("{ID} {title} {missing}", [doc])


def test_settings_per_length_and_refusals():
    assert [helmet_settings("asqa", c).ndoc for c in CONTEXT_LENGTHS] == [30, 75, 165, 345, 700]
    cite, control = helmet_settings("qampari", "128k"), helmet_settings("asqa", "64k", nocite=True)
    assert (cite.shots, cite.max_tokens, cite.input_max_length) == (2, 300, 131072)
    assert (control.shots, control.max_tokens, control.prompt_name) == (0, 600, "asqa_nocite")
    assert cite.helmet_name == "alce_qampari_700" and control.helmet_name == "alce_asqa_nocite_345"
    config = helmet_generate_config(cite)
    assert (config.temperature, config.top_p, config.max_tokens) == (0.0, 1.0, 300)
    with pytest.raises(HelmetOptionError, match="-T context=4k: unknown HELMET input length"):
        helmet_settings("asqa", "4k")
    with pytest.raises(HelmetOptionError, match="asqa and qampari only, not eli5"):
        helmet_settings("eli5", "8k")


def test_task_samples_and_log_record(helmet_dir, monkeypatch, cache_root):
    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    ds, info, settings = helmet_dataset(
        "asqa", context="32k", dataset_path=str(helmet_dir / "asqa_eval_gtr_top2000.json")
    )
    expected = EXPECTED_PROMPTS["rows"]["asqa_32k"]
    assert [_sha(s.input) for s in ds] == expected["chat_sha256"]
    assert [s.id for s in ds] == expected["ids"]
    first = ds[0].metadata
    assert [d["id"] for d in first["docs"]] == [str(i) for i in range(1, 166)]
    assert first["helmet"]["context"] == "32k" and len(first["helmet"]["demo_ids"]) == 2
    assert info["helmet"]["context"] == "32k" and info["helmet"]["input_max_length"] == 32768
    assert info["parameters"]["context"] == "32k" and info["data"]["sha256"]
    assert info["prompt_file"]["path"].endswith("asqa_revised.json")
    assert settings.ndoc == 165
    names = [s.__registry_info__.name for s in helmet_scorers(settings, nli=NLI)]  # type: ignore[attr-defined]
    assert [n.split("/")[-1] for n in names] == ["citation_nli", "alce_correctness"]
    control = replace(settings, nocite=True)
    assert len(helmet_scorers(control, nli=NLI)) == 1  # no citations in the control


def test_data_without_local_copy_says_where_to_get_it(monkeypatch):
    monkeypatch.delenv(HELMET_DATA_DIR_ENV, raising=False)
    with pytest.raises(HelmetDataError) as e:
        helmet_data_path("qampari")
    message = str(e.value)
    assert "qampari_eval_gtr_top2000.json" in message and "-T dataset_path" in message
    assert HELMET_DATA_DIR_ENV in message and "data.tar.gz" in message


def test_demonstrations_not_downloadable_name_the_fix(cache_root, monkeypatch):
    monkeypatch.setattr(
        "inspect_cite.downloads.hub_files.ensure_reachable",
        lambda url: (_ for _ in ()).throw(ConnectionError("offline")),
    )
    with pytest.raises(
        HelmetDataError, match="(?s)asqa_revised.json is not cached.*-T prompt_file"
    ):
        official_helmet_prompt_path("asqa_revised")


def test_scoring_output_keeps_every_line():
    text = "First [1].\n\nSecond [2].\nEnd.<|im_end|>"
    assert helmet_scoring_output(text) == "First [1]. Second [2]. End."
    assert alce_scoring_output(text) == "First [1]."
    assert helmet_scoring_output("x [1]", raw_prompt=True) == "Answer:x [1]"
    raw = {"helmet": {"chat_template": False}}
    assert scoring_output("x\ny", "helmet", raw) == "Answer:x y"
    assert scoring_output("x\ny", "alce", raw) == "x"
    with pytest.raises(ArgumentError, match="rules must be alce or helmet"):
        citation_nli(nli=NLI, rules="eval")  # type: ignore[arg-type]


def _helmet_values(item: dict[str, Any], dataset: str) -> dict[str, float]:
    out = scoring_output(item["output"], "helmet", {})
    return correctness(out, item, dataset)  # type: ignore[arg-type]


@pytest.mark.parametrize("dataset", ["asqa", "qampari"])
async def test_scores_equal_helmets_eval_alce(dataset, fresh_nli):
    """Every item's values, and the averages, equal eval_alce.py's with the same judge."""
    cases = scoring_cases(dataset)
    expected = EXPECTED_SCORES["datasets"][dataset]
    nli = get_nli(NLI)
    recalls, precisions = [], []
    for case, want in zip(cases, expected["items"], strict=True):
        values = _helmet_values(case, dataset)
        for key in CORRECTNESS_KEYS[dataset]:
            assert values[key] == pytest.approx(want[key]), (case["output"], key)
        result = await citation_scores(
            scoring_output(case["output"], "helmet", {}),
            case["docs"],
            case["question"],
            nli,
            qampari=dataset == "qampari",
            min_statement_chars=5,
        )
        if result.skipped:
            # eval_alce.py skips the item; alone in a file it reports 0 for the run.
            assert (want["citation_rec"], want["citation_prec"]) == (0, 0)
            continue
        assert 100 * result.recall == pytest.approx(want["citation_rec"]), case["output"]
        assert 100 * result.precision == pytest.approx(want["citation_prec"]), case["output"]
        recalls.append(100 * result.recall)
        precisions.append(100 * result.precision)
    whole = expected["aggregate"]
    # ROUGE's aggregate is a bootstrap (random): it is checked per item above.
    for key in CORRECTNESS_KEYS[dataset]:
        if key != "rougeLsum":
            mean = sum(_helmet_values(c, dataset)[key] for c in cases) / len(cases)
            assert mean == pytest.approx(whole[key]), key
    assert sum(recalls) / len(recalls) == pytest.approx(whole["citation_rec"])
    assert sum(precisions) / len(precisions) == pytest.approx(whole["citation_prec"])


def test_eval_py_rules_differ_on_these_outputs():
    """The fixtures would not tell the rules apart if eval.py's cut gave the same numbers."""
    cases = scoring_cases("asqa")
    helmet = [_helmet_values(c, "asqa")["length"] for c in cases]
    alce = [correctness(alce_scoring_output(c["output"]), c, "asqa")["length"] for c in cases]
    assert helmet != alce


@pytest.mark.parametrize("dataset", ["asqa", "qampari"])
def test_scorers_in_an_eval_follow_helmet(dataset, fresh_nli, tmp_path):
    cases = scoring_cases(dataset)
    expected = EXPECTED_SCORES["datasets"][dataset]["items"]
    samples = [
        Sample(
            id=str(i),
            input=f"question {i}",
            metadata={
                "dataset": dataset,
                "question": c["question"],
                "docs": [
                    {"id": str(j), "title": d["title"], "text": d["text"]}
                    for j, d in enumerate(c["docs"], 1)
                ],
                **{k: c[k] for k in ("qa_pairs", "annotations", "answer", "answers") if k in c},
            },
        )
        for i, c in enumerate(cases)
    ]
    settings = helmet_settings(dataset, "8k")
    task = Task(
        dataset=MemoryDataset(samples),
        solver=generate(),
        scorer=helmet_scorers(settings, nli=NLI),
    )
    model, _ = scripted_model([c["output"] for c in cases])
    log = eval_one(task, model, max_connections=1, log_dir=str(tmp_path))
    assert log.samples is not None
    for sample in log.samples:
        want = expected[int(sample.id)]
        assert sample.scores is not None
        values = {
            **sample.scores["alce_correctness"].value,  # type: ignore[dict-item]
            **sample.scores["citation_nli"].value,  # type: ignore[dict-item]
        }
        for key, value in values.items():
            if isinstance(value, float) and math.isnan(value):
                assert key.startswith("citation") and want[key] == 0  # skipped by eval_alce.py
            else:
                assert value == pytest.approx(want[key]), (sample.id, key)


def test_each_passage_is_formatted_once_per_prompt(helmet_dir, monkeypatch):
    """Prompt building does work proportional to the passages: one format call each."""
    import inspect_cite.alce.helmet as helmet

    prompt_file = PromptFile.load(helmet_dir / "asqa_revised.json")
    item = json.loads((helmet_dir / "asqa_eval_gtr_top2000.json").read_text())[0]
    builder = HelmetPromptBuilder(prompt_file, ndoc=170)
    calls = []
    real = helmet.format_doc
    monkeypatch.setattr(helmet, "format_doc", lambda *a: calls.append(a) or real(*a))
    prompt = builder.user_message(item, [0, 1])
    assert len(calls) == 170
    assert prompt.count("Document [") == 170 + 2 * 5  # the demonstrations were rendered before


def test_truncation_equals_helmets_tokenize(helmet_dir, tmp_path):
    """Over the token budget, the passages are cut where HELMET's ``tokenize`` cuts them."""
    from transformers import AutoTokenizer

    from inspect_cite.alce.helmet import hf_truncated_context
    from tests.helpers.helmet_files import build_word_tokenizer

    tokenizer = AutoTokenizer.from_pretrained(build_word_tokenizer(tmp_path / "tok"))
    expected = json.loads((FIXTURES / "helmet" / "expected_truncation.json").read_text())
    runs: dict[str, list[Any]] = {}
    for case in expected["cases"]:
        dataset = case["helmet_dataset"].split("_")[1]
        settings = replace(
            helmet_settings(dataset, "8k"),
            input_max_length=case["max_length"],
            max_tokens=case["max_tokens"],
            chat_template=case["chat"],
        )
        items = json.loads((helmet_dir / f"{dataset}_eval_gtr_top2000.json").read_text())
        prompt_file = PromptFile.load(helmet_dir / f"{settings.prompt_name}.json")
        if dataset not in runs:
            runs[dataset] = helmet_items(items, prompt_file, replace(settings, max_test_samples=8))
        run = runs[dataset][case["position"]]
        builder = HelmetPromptBuilder(prompt_file, ndoc=settings.ndoc)
        kept = hf_truncated_context(tokenizer, builder, items[run.index], run.demo_ids, settings)
        assert (len(kept), _sha(kept)) == (case["kept_chars"], case["context_sha256"])
        assert len(builder.context(items[run.index])) == case["full_chars"]


def test_data_file_keeps_only_the_passages_a_row_can_show(tmp_path):
    from inspect_cite.alce.helmet import read_helmet_items
    from tests.helpers.helmet_files import data_items

    items = data_items("asqa", 3, 50)
    path = tmp_path / "asqa_eval_gtr_top2000.json"
    path.write_text(json.dumps(items))
    read = read_helmet_items(path, "asqa", max_docs=10)
    assert [len(item["docs"]) for item in read] == [10, 10, 10]
    assert read[2]["docs"] == items[2]["docs"][:10] and read[2]["qa_pairs"] == items[2]["qa_pairs"]
    del items[1]["qa_pairs"]
    path.write_text(json.dumps(items))
    with pytest.raises(HelmetDataError, match="asqa_eval_gtr_top2000.json:1:qa_pairs: "):
        read_helmet_items(path, "asqa", max_docs=10)
    path.write_text("[{")
    with pytest.raises(HelmetDataError, match="cannot be read as JSON"):
        read_helmet_items(path, "asqa", max_docs=10)


def test_a_helmet_row_as_a_task_sends_the_prompt_alone(
    helmet_dir, monkeypatch, cache_root, fresh_nli, tmp_path
):
    """The pieces the task builder wires: one user message, no system message, 300 tokens."""
    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    ds, info, settings = helmet_dataset(
        "qampari", context="8k", dataset_path=str(helmet_dir / "qampari_eval_gtr_top2000.json")
    )
    samples = list(ds)[:3]
    task = Task(
        dataset=MemoryDataset(samples),
        solver=generate(),
        scorer=helmet_scorers(settings, nli=NLI),
        config=helmet_generate_config(settings),
        metadata=info,
    )
    model, script = scripted_model(["x [1], y [2]"] * 3)
    log = eval_one(task, model, max_connections=1, log_dir=str(tmp_path))
    assert script is not None
    assert [len(messages) for messages in script.inputs] == [1, 1, 1]
    assert script.user_texts() == [s.input for s in samples]
    assert script.inputs[0][0].role == "user"
    assert log.eval.metadata["helmet"]["context"] == "8k"
    assert (script.configs[0].max_tokens, script.configs[0].temperature) == (300, 0.0)


def test_context_on_the_task_runs_helmet_s_row(
    helmet_dir, monkeypatch, cache_root, tmp_path, word_tokenizer
):
    """``alce_tasks/asqa -T context=32k``: HELMET's row through the task builder and Inspect."""
    from inspect_ai import eval as inspect_eval

    from alce_tasks import asqa, eli5, qampari
    from tests.helpers.scripted_models import scripted_model

    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    data = str(helmet_dir / "asqa_eval_gtr_top2000.json")
    task = asqa(context="32k", dataset_path=data, nli=NLI, tokenizer=word_tokenizer)
    # These prompts are under 32k's budget: nothing is cut.
    want, _, settings = helmet_dataset("asqa", context="32k", dataset_path=data)
    assert [s.input for s in task.dataset] == [s.input for s in want]
    assert task.config.max_tokens == 300 and task.config.temperature == 0
    [log] = inspect_eval(
        task,
        model=scripted_model(["The Doctor [1]."] * 3)[0],
        limit=3,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert log.eval.metadata["helmet"]["context"] == "32k"
    assert log.eval.metadata["parameters"]["context"] == "32k"
    sample = log.samples[0]
    assert [m.role for m in sample.messages[:1]] == ["user"], "no system message"
    assert len(sample.metadata["evidence"]["seen"]) == settings.ndoc == 165
    assert {"str_em", "citation_rec"} <= {k for s in log.results.scores for k in s.metrics} | {
        s.name for s in log.results.scores
    }
    assert log.results.scores[0].name == "citation_rec", "the headline Inspect shows"
    # The control scores correctness only.
    control = asqa(context="8k", nocite=True, dataset_path=data, nli=NLI, tokenizer=word_tokenizer)
    assert len(control.scorer) == 1
    for build, message in (
        (lambda: asqa(context="32k", ndoc=3, dataset_path=data, nli=NLI), "-T ndoc=3: HELMET's"),
        (lambda: asqa(context="4k", dataset_path=data, nli=NLI), "-T context=4k: unknown"),
        (lambda: asqa(nocite=True, dataset_path=data, nli=NLI), "-T nocite=true: HELMET's"),
        (lambda: eli5(context="8k", nli=NLI), "-T context=8k: HELMET runs ASQA and QAMPARI"),
        (lambda: qampari(context="8k", strategy="summ", nli=NLI), "-T strategy=summ: HELMET"),
    ):
        with pytest.raises(ValueError) as e:
            build()
        assert str(e.value).startswith(message), str(e.value)


def test_report_draws_score_against_context_length(
    helmet_dir, monkeypatch, cache_root, tmp_path, word_tokenizer
):
    """Runs that differ only by -T context make a line per series in context_length.png."""
    from inspect_ai import eval as inspect_eval

    from alce_tasks import asqa
    from inspect_cite.app.report import write_report
    from tests.helpers.charts import checked_charts
    from tests.helpers.scripted_models import scripted_model

    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    data = str(helmet_dir / "asqa_eval_gtr_top2000.json")
    logs = tmp_path / "logs"
    for context in ("8k", "16k"):
        inspect_eval(
            asqa(context=context, dataset_path=data, nli=NLI, tokenizer=word_tokenizer),
            model=scripted_model(["The Doctor [1]."] * 2)[0],
            limit=2,
            display="none",
            log_dir=str(logs),
        )
    saved = checked_charts(monkeypatch)
    report = write_report(logs, tmp_path / "report")
    chart = tmp_path / "report" / "context_length.png"
    assert chart in report.written
    assert saved.outside == [], saved.outside
    assert any("context length" in t for t in saved.texts[chart.name]), saved.texts.keys()
    assert sorted(report.runs["context"]) == ["16k", "8k"]
    assert "context" not in (tmp_path / "report" / "metrics.md").read_text().split("\n")[2]


@pytest.mark.parametrize("form", ["list", "jsonl", "alce_result", "jsonl_one"])
def test_data_file_reads_as_helmet_s_loader_does(tmp_path, form):
    """HELMET reads its data with ``load_dataset("json")``: a JSON list or JSON Lines; ALCE's
    result file ``{"args", "data"}`` is read as the ALCE tasks read it."""
    from inspect_cite.alce.helmet import read_helmet_items
    from tests.helpers.helmet_files import data_items

    items = data_items("qampari", 1 if form == "jsonl_one" else 3, 12)
    path = tmp_path / "qampari_eval_gtr_top2000.json"
    if form == "list":
        path.write_text(json.dumps(items))
    elif form == "alce_result":
        path.write_text(json.dumps({"args": {"model": "x"}, "data": items}))
    else:
        path.write_text("\n".join(json.dumps(item) for item in items) + "\n\n")
    read = read_helmet_items(path, "qampari", max_docs=5)
    assert read == [{**item, "docs": item["docs"][:5]} for item in items]


def test_a_bad_json_lines_line_is_named(tmp_path):
    from inspect_cite.alce.helmet import read_helmet_items
    from tests.helpers.helmet_files import data_items

    lines = [json.dumps(item) for item in data_items("asqa", 3, 4)]
    lines[2] = lines[2][:-1]
    path = tmp_path / "asqa.jsonl"
    path.write_text("\n".join(lines))
    with pytest.raises(HelmetDataError, match=r"asqa.jsonl:3: not valid JSON"):
        read_helmet_items(path, "asqa", max_docs=4)
    path.write_text(json.dumps({"args": {}, "data": "x"}))
    with pytest.raises(
        HelmetDataError, match="expected a non-empty JSON list of items, JSON Lines"
    ):
        read_helmet_items(path, "asqa", max_docs=4)


# --- HELMET's cut to the token budget -----------------------------------------------------
#
# Expected values are made by HELMET's own logic, re-stated here line for line from its code
# at 4526dfb (not by this project's functions): data.py's load_alce builds the passages and
# draws the demonstrations (random.seed(42) then random.sample per item in file order, the
# "\n\n\n" separators), and model_utils.py's tokenize cuts them (its fast-tokenizer branch,
# chat template, system_message=None).


def _helmet_load_alce(items: list[dict[str, Any]], demos: dict[str, Any], shots: int, ndoc: int):
    """data.py ``load_alce``'s ``preprocess_example`` over the file, in file order."""
    import random

    random.seed(42)
    doc_prompt, demo_prompt = demos["doc_prompt"], demos["demo_prompt"]
    out = []
    for example in items:
        context = "\n\n".join(
            [doc_prompt.format(**d, ID=idx + 1) for idx, d in enumerate(example["docs"][:ndoc])]
        )
        demo_text = "\n\n\n".join(
            [
                demo_prompt.format(
                    **demo,
                    instruction=demos["instruction"],
                    context="\n\n".join(
                        [doc_prompt.format(**d, ID=idx + 1) for idx, d in enumerate(demo["docs"])]
                    ),
                )
                for demo in random.sample(demos["demos"], shots)
            ]
        )
        if shots > 0:
            demo_text += "\n\n\n"
        out.append(
            {
                **example,
                "context": context,
                "demo_text": demo_text,
                "instruction": demos["instruction"],
            }
        )
    return out


HELMET_USER_TEMPLATE = "{demo_text}{instruction}\n\nQuestion: {question}\n\n{context}"


def _helmet_tokenize(tokenizer, sample: dict[str, Any], max_length: int, gen_max: int) -> int:
    """model_utils.py ``tokenize`` (chat template, no system message, a fast tokenizer): cuts
    ``sample["context"]`` in place; returns the prompt's tokens after the cut."""

    def format_input(sample):
        chat = [{"role": "user", "content": HELMET_USER_TEMPLATE.format(**sample)}]
        prompt = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        return tokenizer([prompt], add_special_tokens=False)

    tokenized_input = format_input(sample)
    n = len(tokenized_input["input_ids"][0])
    if n > max_length - gen_max:
        truncate_length = n - (max_length - gen_max)
        context_tokens = tokenizer([sample["context"]], return_offsets_mapping=True)
        sample["context"] = sample["context"][
            : context_tokens["offset_mapping"][0][-truncate_length][0]
        ]
        tokenized_input = format_input(sample)
    return len(tokenized_input["input_ids"][0])


@pytest.fixture(scope="module")
def long_dir(tmp_path_factory) -> Path:
    """Four ASQA items of 30 passages of about 380 words: over 8k's budget, as in issue 52."""
    from tests.helpers.helmet_files import long_data_items

    folder = write_helmet_files(tmp_path_factory.mktemp("long"), n_items=4, n_docs=30)
    items = long_data_items("asqa", 4, 30, words=380)
    (folder / "asqa_eval_gtr_top2000.json").write_text(json.dumps(items))
    return folder


def test_a_row_cuts_its_passages_as_helmet_s_tokenize(long_dir, word_tokenizer, monkeypatch):
    """``-T context=8k`` sends the prompt HELMET's loader and ``tokenize`` make: the passages
    cut at the token 8,192 - 300 from the end of the prompt, counted by the tokenizer."""
    from transformers import AutoTokenizer

    from alce_tasks import asqa

    monkeypatch.setenv(PROMPT_DIR_ENV, str(long_dir))
    data = long_dir / "asqa_eval_gtr_top2000.json"
    task = asqa(context="8k", dataset_path=str(data), nli=NLI, tokenizer=word_tokenizer)
    items = json.loads(data.read_text())
    demos = json.loads((long_dir / "asqa_revised.json").read_text())
    helmet = _helmet_load_alce(items, demos, shots=2, ndoc=30)
    tok = AutoTokenizer.from_pretrained(word_tokenizer)
    by_id = {s.id: s for s in task.dataset}
    cut_passages = 0
    for example in helmet:
        full = example["context"]
        tokens = _helmet_tokenize(tok, example, 8192, 300)
        assert tokens <= 8192 - 300 and len(example["context"]) < len(full)
        sample = by_id[example["sample_id"]]
        assert sample.input == HELMET_USER_TEMPLATE.format(**example)
        # The passages whose text the cut left any of (the others were not seen).
        starts = [
            full.index(f"Document [{k}](Title: {d['title']}): ")
            for k, d in enumerate(example["docs"][:30], 1)
        ]
        text_starts = [
            s + len(f"Document [{k}](Title: {d['title']}): ")
            for k, (s, d) in enumerate(zip(starts, example["docs"], strict=False), 1)
        ]
        kept = len(example["context"])
        shown = sum(kept > t for t in text_starts)
        assert sample.metadata["helmet"]["passages_shown"] == shown < 30
        partial = sample.metadata["helmet"].get("partial_text")
        last = example["docs"][shown - 1]["text"]
        assert partial is None or (last.startswith(partial) and partial != last)
        assert partial == (
            None
            if kept >= text_starts[shown - 1] + len(last)
            else example["context"][text_starts[shown - 1] :]
        )
        cut_passages += 30 - shown
    truncation = task.metadata["helmet"]["truncation"]
    assert truncation["tokenizer"] == word_tokenizer
    cuts = (truncation["prompts_cut_in_file"], truncation["passages_cut_in_file"])
    assert cuts == (4, cut_passages) and truncation["prompts_in_file"] == 4
    assert truncation["budget_tokens"] == 7892


def test_only_the_passages_shown_earn_credit(
    long_dir, word_tokenizer, monkeypatch, tmp_path, fresh_nli
):
    """A citation of a passage the cut removed is not evidence; a cut passage is judged by the
    text shown."""
    from inspect_ai import eval as inspect_eval

    from alce_tasks import asqa

    monkeypatch.setenv(PROMPT_DIR_ENV, str(long_dir))
    data = str(long_dir / "asqa_eval_gtr_top2000.json")
    task = asqa(context="8k", dataset_path=data, nli=NLI, tokenizer=word_tokenizer)
    sample = next(iter(task.dataset))
    shown = sample.metadata["helmet"]["passages_shown"]
    unseen = sample.metadata["docs"][shown]["text"]
    seen = sample.metadata["docs"][0]["text"]
    # The same claim, copied from a passage: cited to the unseen one it earns nothing.
    answers = [f"{unseen.split('.')[0]} [{shown + 1}].", f"{seen.split('.')[0]} [1]."]
    [log] = inspect_eval(
        task,
        model=scripted_model([answers[0]])[0],
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    [run] = log.samples
    record = run.metadata["evidence"]["seen"]
    assert [e["position"] for e in record] == list(range(1, shown + 1))
    partial = run.metadata["helmet"].get("partial_text")
    assert ("text" in record[-1]) == (partial is not None)
    assert run.scores["citation_nli"].value["citation_rec"] == 0
    [log] = inspect_eval(
        asqa(context="8k", dataset_path=data, nli=NLI, tokenizer=word_tokenizer),
        model=scripted_model([answers[1]] * 4)[0],
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.samples[0].scores["citation_nli"].value["citation_rec"] == 100


def test_the_tokenizer_is_checked_before_the_run(helmet_dir, tmp_path, monkeypatch, cache_root):
    from alce_tasks import asqa

    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = str(helmet_dir / "asqa_eval_gtr_top2000.json")
    with pytest.raises(ValueError) as e:
        asqa(context="8k", dataset_path=data, nli=NLI)
    assert str(e.value) == (
        "-T context=8k: HELMET cuts the passages to 8,192 - 300 tokens of the model's "
        "tokenizer, and the model is not known while the task is built (a task built in "
        "Python): pass -T tokenizer=<the model's Hugging Face tokenizer: a hub id or a folder>"
    )
    with pytest.raises(ValueError) as e:
        asqa(context="8k", dataset_path=data, nli=NLI, tokenizer="./no-such-tok")
    assert str(e.value) == (
        "-T tokenizer=./no-such-tok: folder no-such-tok does not exist; pass -T tokenizer=<the "
        "model's Hugging Face tokenizer: a hub id or a folder>"
    )
    # Offline, an uncached hub id: one line, as LongBench-Cite's (not transformers' OSError).
    with pytest.raises(ValueError) as e:
        asqa(context="8k", dataset_path=data, nli=NLI, tokenizer="nobody/uncached")
    assert str(e.value) == (
        "-T tokenizer=nobody/uncached: not in the Hugging Face cache, and HF_HUB_OFFLINE is set "
        f"(download it while online: {hub_download_command('nobody/uncached')} --include "
        '"*token*" --include "*.json" --include "*.py"); pass '
        "-T tokenizer=<the model's Hugging Face tokenizer: a hub id or a folder>"
    )
    bare = tmp_path / "bare"
    build_word_tokenizer(bare)
    config = json.loads((bare / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (bare / "tokenizer_config.json").write_text(json.dumps(config))
    for extra in bare.glob("chat_template.*"):
        extra.unlink()
    with pytest.raises(ValueError, match="has no chat template, which HELMET's cite rows send"):
        asqa(context="8k", dataset_path=data, nli=NLI, tokenizer=str(bare))
    with pytest.raises(ValueError, match=r"^-T tokenizer=x: only HELMET's rows \(-T context\)"):
        asqa(dataset_path=data, nli=NLI, tokenizer="x")


def test_an_api_model_needs_a_tokenizer_and_mockllm_cuts_nothing(helmet_dir, monkeypatch, tmp_path):
    from inspect_ai import eval as inspect_eval

    from alce_tasks import qampari
    from inspect_cite.checks.errors import PreflightError

    monkeypatch.setenv(PROMPT_DIR_ENV, str(helmet_dir))
    data = str(helmet_dir / "qampari_eval_gtr_top2000.json")
    args = {"context": "8k", "dataset_path": data, "nli": NLI}
    with pytest.raises(PreflightError, match=r"openai-api/ollama/x is served by openai-api/"):
        inspect_eval(
            qampari,
            task_args=args,
            model="openai-api/ollama/x",
            model_base_url="http://127.0.0.1:9/v1",
            model_args={"api_key": "x"},
            display="none",
            log_dir=str(tmp_path),
        )
    [log] = inspect_eval(
        qampari,
        task_args=args,
        model="mockllm/model",
        run_samples=False,
        display="none",
        log_dir=str(tmp_path),
    )
    truncation = log.eval.metadata["helmet"]["truncation"]
    assert truncation["tokenizer"] is None and truncation["prompts_cut_in_file"] is None
    assert truncation["not_cut_because"] == "mockllm/ has no tokenizer: passages not cut"


def test_nocite_refuses_diagnose(helmet_dir):
    from alce_tasks import asqa

    with pytest.raises(ValueError) as e:
        asqa(context="8k", nocite=True, diagnose=True, nli=NLI)
    assert str(e.value) == (
        "-T diagnose=true: HELMET's no-citation control (-T nocite=true) has no citations to "
        "diagnose; drop one of them"
    )


def test_every_problem_of_a_helmet_row_is_in_its_one_message(tmp_path, monkeypatch, cache_root):
    """A missing demonstration file does not hide the data file, the tokenizer or the judge."""
    from alce_tasks import qampari

    empty = tmp_path / "prompts"
    empty.mkdir()
    monkeypatch.setenv(PROMPT_DIR_ENV, str(empty))
    monkeypatch.delenv(HELMET_DATA_DIR_ENV, raising=False)
    with pytest.raises(ValueError) as e:
        qampari(context="16k", nli="classifier:./no-such-nli")
    message = str(e.value)
    assert message.startswith("4 problems stop this run:\n1. demonstration file "), message
    assert "\n2. -T context needs HELMET's qampari_eval_gtr_top2000.json" in message
    assert "\n3. -T context=16k: HELMET cuts the passages to 16,384 - 300 tokens" in message
    assert "\n4. -T nli=classifier:./no-such-nli: directory no-such-nli does not exist" in message


def test_an_hf_model_cuts_with_its_own_tokenizer(long_dir, tiny_qwen3, monkeypatch, tmp_path):
    """With ``--model hf/DIR`` the row cuts with the tokenizer Inspect's provider loaded."""
    from inspect_ai import eval as inspect_eval
    from transformers import AutoTokenizer

    from alce_tasks import asqa

    monkeypatch.setenv(PROMPT_DIR_ENV, str(long_dir))
    args = {"context": "8k", "dataset_path": str(long_dir / "asqa_eval_gtr_top2000.json")}
    import alce_tasks

    # By file: Inspect builds the task with the model loaded (a registry name "asqa" is
    # ambiguous with fullcite_tasks/asqa).
    monkeypatch.chdir(Path(alce_tasks.__file__).parent)
    [log] = inspect_eval(
        "asqa.py",
        task_args={**args, "nli": NLI},
        model=f"hf/{tiny_qwen3}",
        model_args={"do_sample": False},
        run_samples=False,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.error is None
    truncation = log.eval.metadata["helmet"]["truncation"]
    assert truncation["tokenizer"] == str(tiny_qwen3) and truncation["prompts_cut_in_file"] == 4
    # The same cut as -T tokenizer=DIR gives (the tokenizer the provider loaded is DIR's).
    task = asqa(**args, nli=NLI, tokenizer=str(tiny_qwen3))
    cut = task.metadata["helmet"]["truncation"]["passages_cut_in_file"]
    assert cut == truncation["passages_cut_in_file"]
    tok = AutoTokenizer.from_pretrained(tiny_qwen3)
    for sample in task.dataset:
        chat = [{"role": "user", "content": sample.input}]
        prompt = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        assert len(tok([prompt], add_special_tokens=False)["input_ids"][0]) <= 8192 - 300


def test_the_log_records_the_tokenizer_loaded_and_helmet_s_budget(
    long_dir, tiny_qwen3, monkeypatch, tmp_path
):
    """Issue 52: ``hf/tiny -M model_path=DIR`` recorded ``tiny`` as the tokenizer, and
    ``max_tokens: 300`` was recorded beside ``--max-tokens 5``; the cut counts say they are
    over the data file (``--limit`` is applied after the task is built)."""
    from inspect_ai import eval as inspect_eval

    import alce_tasks

    monkeypatch.setenv(PROMPT_DIR_ENV, str(long_dir))
    monkeypatch.chdir(Path(alce_tasks.__file__).parent)
    [log] = inspect_eval(
        "asqa.py",
        task_args={
            "context": "8k",
            "dataset_path": str(long_dir / "asqa_eval_gtr_top2000.json"),
            "nli": NLI,
        },
        model="hf/tiny",
        model_args={"model_path": str(tiny_qwen3), "do_sample": False},
        max_tokens=5,
        limit=1,
        run_samples=False,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.error is None
    helmet = log.eval.metadata["helmet"]
    assert helmet["truncation"]["tokenizer"] == str(tiny_qwen3)
    assert helmet["generation_max_length"] == 300 and "max_tokens" not in helmet
    assert helmet["truncation"]["budget_tokens"] == 8192 - 300
    assert helmet["truncation"]["prompts_in_file"] == 4


def test_shown_passages_reads_the_cut():
    """Which passages a cut leaves: whole, in part (its text shown), or only a label."""
    from inspect_cite.alce.helmet import ShownPassages, shown_passages

    doc_prompt = "Document [{ID}](Title: {title}): {text}"
    docs = [{"title": f"T{i}", "text": f"alpha beta gamma {i}"} for i in range(1, 4)]
    full = format_docs(doc_prompt, docs)
    second = full.index("Document [2]")
    third = full.index("Document [3]")
    assert shown_passages(doc_prompt, docs, full) == ShownPassages(3)
    assert shown_passages(doc_prompt, docs, full[: third - 2]) == ShownPassages(2)
    assert shown_passages(doc_prompt, docs, full[: second + 32]) == ShownPassages(2, "alpha b")
    # Only the label and title of the third: it was not seen.
    assert shown_passages(doc_prompt, docs, full[: third + 20]) == ShownPassages(2)
    # A slow tokenizer's decoded cut: opens with its BOS, and differs where decoding
    # normalised the text (here the second passage's "gamma").
    decoded = "<s>" + full[: second + 45].replace("gamma 2", "gamma  2")
    assert shown_passages(doc_prompt, docs, decoded, bos="<s>") == ShownPassages(
        2, "alpha beta gamma "
    )
