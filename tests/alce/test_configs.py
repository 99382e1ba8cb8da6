"""ALCE's 78 run configurations by name (``-T config=``): what each sets, sends and logs.

Every config runs through its task on the fixture data with a scripted model. The prompt the
model receives is compared with one assembled here from ALCE's documented format (official
prompt files, run.py's seeded draw, its summary/extraction walk), and the log must name the
config and record the values it set. The configs and official prompts are reference files
(``INSPECT_CITE_REFERENCE_DIR``); without them these tests skip with one line.
"""

import functools
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import get_model

from alce_tasks import asqa, eli5, qampari
from alce_tasks.task import AlceTaskError
from inspect_cite.alce.prompts import ALCE_PROMPT_COMMIT, ALCE_SYSTEM_MESSAGE, PROMPT_SHA256
from inspect_cite.alce.run_configs import (
    CONFIG_DIR_ENV,
    CONFIG_SHA256,
    AlceConfigError,
    load_alce_config,
)
from tests.conftest import FIXTURES, load_fixture, reference_dir, sample_prompt
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.tiny_eval_models import minilm_path

NLI = "python:tests.helpers.nli_fns:word_entail"
TASKS = {"asqa": asqa, "qampari": qampari, "eli5": eli5}


def configs_dir() -> Path:
    return reference_dir() / "alce" / "configs"


@pytest.fixture
def config_cache(prompt_cache, monkeypatch) -> Path:
    """A cache holding ALCE's configs and official prompt files (from the reference files)."""
    monkeypatch.delenv(CONFIG_DIR_ENV, raising=False)
    dest = prompt_cache / "alce" / "configs" / ALCE_PROMPT_COMMIT[:12]
    dest.mkdir(parents=True)
    for f in configs_dir().glob("*.yaml"):
        shutil.copy(f, dest / f.name)
    return prompt_cache


def test_config_checksums_match_reference_copies():
    files = sorted(configs_dir().glob("*.yaml"))
    assert len(files) == len(CONFIG_SHA256) == 78
    for f in files:
        assert hashlib.sha256(f.read_bytes()).hexdigest() == CONFIG_SHA256[f.stem], f.name


# ------------------------------------------------- the prompt, assembled from ALCE's format


def shown(docs: list[dict], ndoc: int, key: str | None) -> list[dict]:
    """The documents run.py shows: the first ndoc, or (summary/extraction) the first ndoc not
    marked irrelevant; a document without the field ends the walk (kept with its text when
    nothing was kept yet)."""
    if key is None:
        return docs[:ndoc]
    kept: list[dict] = []
    for doc in docs:
        if key not in doc:
            if not kept:
                kept.append({**doc, key: doc["text"]})
            break
        if "irrelevant" in doc[key] or "Irrelevant" in doc[key]:
            continue
        kept.append(doc)
        if len(kept) == ndoc:
            break
    return kept


def block(raw: dict, entry: dict, ndoc: int, key: str | None, answer: Any = None) -> str:
    """One demonstration (with its answer) or the question's block, in ALCE's layout:
    "{INST}\\n\\nQuestion: {Q}\\n\\n{D}\\nAnswer: {A}" ("{D}\\n" gone without documents), each
    document "Document [i](Title: t): text\\n", the answer after "Answer:" with no space."""
    text = f"{raw['instruction']}\n\nQuestion: {entry['question']}\n\n"
    if "{D}" in raw["demo_prompt"] and ndoc > 0:
        text += "".join(
            f"Document [{i + 1}](Title: {d['title']}): {d[key or 'text']}\n"
            for i, d in enumerate(shown(entry["docs"], ndoc, key))
        )
        text += "\n"
    text += "Answer:"
    if answer is not None:
        text += "\n" + "\n".join(answer) if isinstance(answer, list) else answer
    return text


def expected_prompt(cfg: dict, item: dict) -> str:
    raw = json.loads((reference_dir() / "alce" / cfg["prompt_file"]).read_text())
    seed = cfg.get("seed", 42)
    # run.py: np.random.seed(seed); np.random.choice(len(demos), shot, replace=False).
    ids = np.random.RandomState(seed).choice(len(raw["demos"]), cfg["shot"], replace=False)
    key = cfg.get("use_shorter")
    prompt = "".join(
        block(raw, raw["demos"][i], cfg["ndoc"], key, raw["demos"][i]["answer"]) + "\n\n\n"
        for i in ids
    )
    prompt += block(raw, item, cfg["ndoc"], key)
    # The interactive loop starts a new line after the prompt.
    return prompt.rstrip() + "\n" if cfg.get("interactive") else prompt


def respond(input, tools, tool_choice, config):
    """Answers every mode: a cited sentence, or one Check, one Output line and End."""
    text = input[-1].text
    if text.endswith("Answer:"):
        return scripted_output("Eccleston played the Doctor [1].")
    if text.endswith("Answer:\n"):
        return scripted_output("Check: Document [1]")
    if text.endswith("Output:"):
        return scripted_output(" Eccleston played the Doctor [1].")
    return scripted_output("End")


def expected_strategy(cfg: dict) -> str:
    if cfg.get("interactive"):
        return "interact" if cfg["interactive_query"] == "doc_id" else "inlinesearch"
    if cfg.get("use_shorter"):
        return {"summary": "summ", "extraction": "snippet"}[cfg["use_shorter"]]
    return "closedbook" if "closedbook" in cfg["prompt_file"] else "vanilla"


@pytest.fixture
def quick_task_logs(monkeypatch) -> None:
    """Inspect looks up each task's distribution by scanning every installed package's files
    (seconds per task in this environment, as alce_tasks is not a distribution name): the
    scan's result is the same for every task of a test, so it is made once."""
    import inspect_ai._util.package as package

    monkeypatch.setattr(
        package, "packages_distributions", functools.cache(package.packages_distributions)
    )


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5"])
def test_every_alce_config_runs_by_name_sends_alce_s_prompt_and_is_logged(
    dataset, config_cache, quick_task_logs, tmp_path
):
    names = sorted(p.stem for p in configs_dir().glob(f"{dataset}_*.yaml"))
    fixture = str(FIXTURES / f"alce_{dataset}.json")
    tasks = [
        TASKS[dataset](config=name, dataset_path=fixture, nli=NLI, retrieval_model=minilm_path())
        for name in names
    ]
    model, _ = scripted_model(respond)
    # What is checked is what the model was sent and what the log records; the scorers run
    # on these tasks in tests/alce/test_tasks.py.
    logs = inspect_eval(
        tasks, model=model, limit=1, log_dir=str(tmp_path), display="none", score=False
    )
    item = load_fixture(f"alce_{dataset}.json")[0]
    for name, log in zip(names, logs, strict=True):
        cfg = yaml.safe_load((configs_dir() / f"{name}.yaml").read_text())
        assert log.status == "success", (name, log.error)
        meta = log.eval.metadata
        assert meta["config"] | {"overrides": None} == {
            "name": name,
            "commit": ALCE_PROMPT_COMMIT,
            "file": f"configs/{name}.yaml",
            "sha256": CONFIG_SHA256[name],
            "model": cfg["model"],
            "tag": cfg["tag"],
            "eval_file": cfg["eval_file"],
            "prompt_file": cfg["prompt_file"],
            "overrides": None,
        }, name
        # The fixture data and the small retriever replace the config's, and the log says so.
        assert set(meta["config"]["overrides"]) <= {"dataset_path", "retrieval_model"}, name
        params = meta["parameters"]
        variant = cfg["prompt_file"].removeprefix(f"prompts/{dataset}_").removesuffix(".json")
        assert params["config"] == name
        assert {
            k: params[k]
            for k in ("strategy", "ndoc", "shot", "seed", "use_shorter", "chat", "prompt")
        } == {
            "strategy": expected_strategy(cfg),
            "ndoc": cfg["ndoc"],
            "shot": cfg["shot"],
            "seed": 42,
            "use_shorter": cfg.get("use_shorter"),
            "chat": bool(cfg.get("openai_api")),
            "prompt": variant,
        }, name
        assert (
            params["prompt_file_read"]
            == meta["prompt_file"]
            == {
                "commit": ALCE_PROMPT_COMMIT,
                "file": cfg["prompt_file"],
                "sha256": PROMPT_SHA256[f"{dataset}_{variant}"],
            }
        ), name
        if cfg.get("interactive"):
            for key in ("retrieve_in_all_docs", "force_cite_show"):
                assert params[key] == cfg.get(key, False), (name, key)
        assert (log.plan.config.temperature, log.plan.config.top_p) == (
            cfg.get("temperature", 0.5),
            cfg.get("top_p", 1.0),
        ), name
        sample = resolve_sample_attachments(log.samples[0])
        [first, *_] = [e for e in sample.events if e.event == "model"]
        sent = [(m.role, m.text) for m in first.input]
        prompt = expected_prompt(cfg, item)
        if cfg.get("openai_api"):
            assert sent == [("system", ALCE_SYSTEM_MESSAGE), ("user", prompt)], name
        else:
            # run.py's open models: the prompt alone, stopped at a newline.
            assert sent == [("user", prompt)], name
            assert first.config.stop_seqs is not None and "\n" in first.config.stop_seqs


# ------------------------------------------------------------ precedence and the log


def test_an_explicit_value_overrides_the_config_and_the_log_says_so(config_cache):
    fixture = str(FIXTURES / "alce_asqa.json")
    name = "asqa_llama-7b_shot1_ndoc3_gtr_default"
    plain = asqa(config=name, dataset_path=fixture, nli=NLI)
    assert plain.metadata["parameters"]["shot"] == 1
    # shot=2 is the task's default, and still the user's choice over the config's 1.
    task = asqa(config=name, dataset_path=fixture, nli=NLI, shot=2)
    assert task.metadata["parameters"]["shot"] == 2
    assert len(task.metadata["parameters"]["demo_ids"]) == 2
    assert task.metadata["config"]["overrides"]["shot"] == {"config": 1, "given": 2}
    assert "shot" not in plain.metadata["config"]["overrides"]
    assert (task.config.temperature, task.config.top_p) == (1.0, 0.95)


def test_a_config_of_another_dataset_or_an_unknown_name_is_one_line(config_cache):
    with pytest.raises(AlceConfigError, match="dataset_name=eli5: run it with alce_tasks/eli5"):
        asqa(config="eli5_turbo_shot2_ndoc5_bm25_default", nli=NLI)
    with pytest.raises(
        AlceConfigError, match="did you mean asqa_turbo_shot2_ndoc5_gtr_default"
    ) as e:
        asqa(config="asqa_turbo_shot2_ndoc5_gtr_defualt", nli=NLI)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndocs: 5\n", "'ndocs' is not a run.py option \\(did you mean ndoc\\?\\)"),
        ("interactive: 'false'\n", "interactive must be true or false, got 'false'"),
        ("num_samples: 4\n", "num_samples=4: .*--epochs"),
        ("interactive: true\ninteractive_query: search\nretriever: tfidf\n", "tfidf is not"),
        ("fewer_doc_in_demo: true\n", "fewer_doc_in_demo needs ndoc_in_demo"),
        ("ndoc_in_demo: 1\n", "ndoc_in_demo has no effect without fewer_doc_in_demo"),
    ],
)
def test_a_yaml_config_run_py_would_misread_or_ignore_is_refused(
    own_prompts, tmp_path, text, message
):
    path = tmp_path / "mine.yaml"
    variant = "interact_search" if "interactive" in text else "default"
    base = f"prompt_file: prompts/asqa_{variant}.json\neval_file: data/asqa_eval_gtr_top100.json\n"
    path.write_text(base + "shot: 1\nndoc: 2\n" + text)
    with pytest.raises(AlceConfigError, match=message) as e:
        asqa(config=str(path), dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_a_refused_value_the_config_set_names_the_config(own_prompts, tmp_path):
    """The user gave -T config, not -T ndoc: the message says where the value came from."""
    path = tmp_path / "mine.yaml"
    path.write_text(
        "prompt_file: prompts/asqa_default.json\neval_file: data/asqa_eval_gtr_top100.json\n"
        "shot: 1\nndoc: -3\n"
    )
    args = {"dataset_path": str(FIXTURES / "alce_asqa.json"), "nli": NLI}
    with pytest.raises(AlceTaskError) as e:
        asqa(config=str(path), **args)
    assert str(e.value) == f"-T config={path} sets ndoc=-3: must be 0 or more"
    # A value the user gave is named as theirs.
    with pytest.raises(AlceTaskError) as e:
        asqa(config=str(path), ndoc=-2, **args)
    assert str(e.value) == "-T ndoc=-2: must be 0 or more"
    # An open-model config (chat=false) with a strategy a raw prompt cannot take, and a
    # config's negative seed.
    with pytest.raises(AlceTaskError) as e:
        asqa(config=str(path), ndoc=2, strategy="agent", **args)
    assert str(e.value).startswith(f"-T config={path} sets chat=false: ")
    path.write_text(path.read_text().replace("ndoc: -3", "ndoc: 2\nseed: -1"))
    with pytest.raises(AlceTaskError) as e:
        asqa(config=str(path), **args)
    assert (
        str(e.value)
        == f"-T config={path} sets seed=-1: must be a whole number from 0 to 4294967295"
    )


def test_a_yaml_config_by_path_sets_the_demo_documents_and_run_py_s_quick_test(
    own_prompts, tmp_path
):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "prompt_file: prompts/asqa_light_inst.json\n"
        f"eval_file: {FIXTURES / 'alce_asqa.json'}\n"
        "shot: 2\nndoc: 3\nseed: 7\nfewer_doc_in_demo: true\nndoc_in_demo: 1\nquick_test: 2\n"
        "model: my-model\ntemperature: 0.2\n"
    )
    task = asqa(config=str(path), nli=NLI)
    params = task.metadata["parameters"]
    assert params["config"] == "mine" and params["chat"] is False
    assert task.metadata["config"]["path"] == str(path)
    assert (params["ndoc"], params["ndoc_in_demo"], params["quick_test"]) == (3, 1, 2)
    assert task.config.temperature == 0.2
    # run.py draws the demonstrations, then the quick-test items, from one seeded stream.
    rng = np.random.RandomState(7)
    rng.choice(4, 2, replace=False)
    drawn = [int(i) for i in rng.choice(3, 2, replace=False)]
    items = load_fixture("alce_asqa.json")
    assert [s.metadata["question"] for s in task.dataset] == [items[i]["question"] for i in drawn]
    # One document in each demonstration, three with the question.
    prompt = sample_prompt(task.dataset[0])
    demos, question = prompt.rsplit("\n\n\n", 1)
    assert demos.count("Document [1]") == 2 and "Document [2]" not in demos
    assert "Document [3]" in question


def test_config_download_offline_names_the_url_and_the_way_around(cache_root, monkeypatch):
    from inspect_cite.downloads import http_client

    def no_network(url, sha256, dest, **kwargs):
        raise ConnectionError("network unreachable")

    monkeypatch.delenv(CONFIG_DIR_ENV, raising=False)
    monkeypatch.setattr(http_client, "download", no_network)
    with pytest.raises(AlceConfigError) as e:
        load_alce_config("asqa_turbo_shot2_ndoc5_gtr_default")
    message = str(e.value)
    assert f"ALCE/{ALCE_PROMPT_COMMIT}/configs/asqa_turbo_shot2_ndoc5_gtr_default.yaml" in message
    assert "-T config=PATH" in message


def test_a_config_folder_replaces_the_download(monkeypatch, tmp_path):
    (tmp_path / "asqa_mine.yaml").write_text("shot: 1\n")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path))
    config = load_alce_config("asqa_mine")
    assert config.options["shot"] == 1 and config.options["seed"] == 42
    assert config.source["path"] == str(tmp_path / "asqa_mine.yaml")
    with pytest.raises(AlceConfigError, match=f"does not exist \\({CONFIG_DIR_ENV}="):
        load_alce_config("asqa_other")


# ----------------------------------------------- what the log said before it told the truth


@pytest.mark.parametrize(
    ("strategy", "variant", "use_shorter", "ndoc"),
    [
        ("summ", "sum_or_ext", "summary", 10),
        ("snippet", "sum_or_ext", "extraction", 10),
        ("interact", "interact_doc_id", "summary", 10),
        ("inlinesearch", "interact_search", None, 0),
        ("closedbook", "closedbook", None, 0),
    ],
)
def test_a_strategy_logs_the_prompt_file_and_documents_its_solver_uses(
    strategy, variant, use_shorter, ndoc, own_prompts
):
    task = asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli=NLI,
        strategy=strategy,
        retrieval_model=minilm_path(),
    )
    params = task.metadata["parameters"]
    used = own_prompts / f"asqa_{variant}.json"
    assert params["prompt_file_read"]["path"] == task.metadata["prompt_file"]["path"] == str(used)
    assert (params["prompt"], params["use_shorter"], params["ndoc"]) == (variant, use_shorter, ndoc)


def test_interactive_use_shorter_reaches_the_solver(own_prompts, tmp_path):
    task = asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli=NLI,
        strategy="interact",
        use_shorter="extraction",
        ndoc=3,
    )
    model, _ = scripted_model(respond)
    [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    sample = resolve_sample_attachments(log.samples[0])
    [first, *_] = [e for e in sample.events if e.event == "model"]
    item = load_fixture("alce_asqa.json")[0]
    assert f"Document [1](Title: {item['docs'][0]['title']}): {item['docs'][0]['extraction']}" in (
        first.input[-1].text
    )
    assert log.eval.metadata["parameters"]["use_shorter"] == "extraction"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategy": "summ", "use_shorter": "extraction"}, "use strategy=snippet"),
        ({"strategy": "inlinesearch", "use_shorter": "summary"}, "shows no documents"),
        ({"strategy": "closedbook", "ndoc": 5}, "-T ndoc=5: strategy=closedbook shows no"),
        ({"strategy": "summ", "prompt": "light_inst"}, "reads ALCE's sum_or_ext prompt"),
        ({"strategy": "interact", "retrieve_in_all_docs": True}, "only strategy=inlinesearch"),
        ({"force_cite_show": True}, "only the interactive strategies"),
        ({"max_length": 512}, "raw-prompt generation only"),
        ({"chat": False, "strategy": "postcite"}, "not one of run.py's modes"),
        # Issue 35, item 10: a raw prompt is one user message; these send several.
        ({"chat": False, "strategy": "agent"}, "-T chat=false: .*strategy=agent is not one of"),
        ({"chat": False, "strategy": "native"}, "strategy=native is not one of run.py's modes"),
        # Issue 35, item 11: numpy takes seeds from 0 to 2**32 - 1 (was a 243-line traceback).
        ({"seed": -1}, r"^-T seed=-1: must be a whole number from 0 to 4294967295$"),
        ({"seed": 2**32}, "-T seed=4294967296: must be a whole number from 0"),
        ({"chat": False, "thinking": True}, "no chat template to think in"),
        ({"no_doc_in_demo": True, "ndoc_in_demo": 1}, "already shows none"),
    ],
)
def test_a_value_the_strategy_would_not_use_is_refused(own_prompts, options, message):
    with pytest.raises(ValueError, match=message) as e:
        asqa(
            dataset_path=str(FIXTURES / "alce_asqa.json"),
            nli=NLI,
            retrieval_model=minilm_path(),
            **options,
        )
    assert "\n" not in str(e.value)


def test_raw_mode_is_refused_before_generation_where_the_provider_cannot_send_it(own_prompts):
    from inspect_cite.checks.errors import PreflightError
    from inspect_cite.generation.raw_prompt import check_raw_prompt

    vllm = get_model("vllm/tiny", base_url="http://127.0.0.1:9/v1", api_key="x", memoize=False)
    with pytest.raises(PreflightError, match="--model vllm-completions/tiny"):
        check_raw_prompt(vllm)
    other = get_model("openai-api/standin/tiny", base_url="http://127.0.0.1:9/v1", api_key="x")
    with pytest.raises(PreflightError, match="--model openai-api-completions/standin/tiny"):
        check_raw_prompt(other)
