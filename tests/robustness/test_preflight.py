"""Every heavy model a run needs is checked while the task is built, before any generation.

A failure is one short message (what the user sees from ``inspect eval``: at most 5 lines at
80 columns) naming the flag, the value, why, and the fix. The cases of issue 13 run through
``inspect_ai.eval`` with the task *function*, so that Inspect builds the task inside the eval
as it does for ``inspect eval``, with a scripted model that counts its generations; the
installed plugin's CLI is run in ``test_preflight_cli.py``.
"""

import io
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from rich.console import Console

import inspect_cite.nli.seq2seq as seq2seq

# Tasks whose names are unique in-process (alce_tasks/asqa and fullcite_tasks/asqa are both
# "asqa" when imported from the working tree, and eval() resolves a task function by name).
from alce_tasks import eli5
from fullcite_tasks import expertqa
from inspect_cite.checks.errors import ArgumentTypeError, PreflightError
from inspect_cite.checks.models import model_problem
from inspect_cite.checks.once import reset_preflight
from inspect_cite.models.retrieval import get_retriever
from inspect_cite.nli.seq2seq import TRUE_MODEL
from inspect_cite.options.cli_values import accept_cli_values
from scorers.citation_nli import citation_nli
from tests.conftest import FIXTURES
from tests.helpers.scripted_models import cite_first_document, scripted_output
from tests.robustness.test_download_faults import ScriptedServer

NLI = "python:tests.helpers.nli_fns:word_entail"
ANSWER = "Christopher Eccleston played the Ninth Doctor [1]. David Tennant followed [2]."


def own_prompt_file(directory: Path) -> Path:
    """An ALCE-format prompt file in this project's own words (two demonstrations)."""
    demo = {
        "question": "Who built the bridge?",
        "answer": "A local guild built it [1].",
        "docs": [{"title": "Bridge", "text": "The bridge was built by a local guild."}],
    }
    path = directory / "prompt.json"
    path.write_text(
        json.dumps(
            {
                "instruction": "Answer from the documents and cite each one you use as [n].",
                "demo_sep": "\n\n",
                "demo_prompt": "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}",
                "doc_prompt": "Document [{ID}](Title: {T}): {P}\n",
                "demos": [demo, demo],
            }
        )
    )
    return path


def alce_args(tmp_path: Path, **kw) -> dict:
    return {
        "dataset_path": str(FIXTURES / "alce_eli5.json"),
        "prompt_file": str(own_prompt_file(tmp_path)),
        **kw,
    }


FULLCITE_ARGS = {
    "dataset_path": str(FIXTURES / "fullcite_expertqa.jsonl"),
    "spans_path": str(FIXTURES / "fullcite_expertqa_spans.jsonl"),
}


class CountingModel:
    """A scripted model that records every generation."""

    def __init__(self, answer: str | Callable = ANSWER):
        from inspect_ai.model import get_model

        self.calls = 0
        self.answer = answer
        self.model = get_model("mockllm/model", custom_outputs=self, memoize=False)

    def __call__(self, input, tools, tool_choice, config):
        self.calls += 1
        if callable(self.answer):
            return self.answer(input, tools, tool_choice, config)
        return scripted_output(self.answer)


def shown_lines(error: PreflightError) -> list[str]:
    """The lines ``inspect eval`` prints for the error on an 80-column terminal."""
    out = io.StringIO()
    Console(file=out, width=80, force_terminal=False).print(f"\n{error.message}\n")
    return [line for line in out.getvalue().splitlines() if line.strip()]


def refused(task_fn, task_args: dict, tmp_path: Path, **eval_kw) -> str:
    """Run the eval expecting a PreflightError before any generation; its message."""
    model = CountingModel()
    log_dir = tmp_path / "logs"
    with pytest.raises(PreflightError) as e:
        inspect_eval(
            task_fn,
            task_args=task_args,
            model=model.model,
            log_dir=str(log_dir),
            display="none",
            **eval_kw,
        )
    assert model.calls == 0, "a sample was generated before the error"
    assert not list(log_dir.glob("*.eval")), "a log was started"
    lines = shown_lines(e.value)
    assert len(lines) <= 5, "\n".join(lines)
    return str(e.value)


@pytest.fixture(autouse=True)
def fresh_checks(fresh_nli):
    reset_preflight()
    yield
    reset_preflight()


@pytest.fixture
def empty_hub(tmp_path, monkeypatch) -> Path:
    """An empty Hugging Face cache, offline."""
    from huggingface_hub import constants

    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return cache


def cache_as(cache: Path, repo_id: str, source: Path) -> None:
    """Lay ``source`` into a Hugging Face cache as the snapshot of ``repo_id``'s main."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    shutil.copytree(source, repo / "snapshots" / ("0" * 40))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(seq2seq, "cuda_available", lambda: False)
    monkeypatch.delenv("INSPECT_CITE_NLI_ALLOW_CPU", raising=False)


# --- nli=true on a machine without the GPU -------------------------------------------------


@pytest.mark.parametrize("given", [{}, {"nli": True}, {"nli": "true"}])
def test_nli_true_without_cuda_stops_before_generation(given, no_cuda, empty_hub, tmp_path):
    message = refused(eli5, alce_args(tmp_path, **given), tmp_path)
    assert message.startswith("-T nli=true: ALCE's T5-11B NLI needs a ~23 GB GPU")
    assert "no CUDA GPU is available" in message
    assert "INSPECT_CITE_NLI_ALLOW_CPU=1" in message
    # The lighter judge README and docs/nli.md recommend for a machine without that GPU
    # (issue 52, item 13), not another one.
    assert "-T nli=minicheck:lytang/MiniCheck-Flan-T5-Large" in message
    assert "DeBERTa" not in message and "classifier:" not in message


def test_allow_cpu_passes_the_gpu_check_but_not_a_missing_model(no_cuda, empty_hub, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_ALLOW_CPU", "1")
    with pytest.raises(PreflightError) as e:
        eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), nli=True)
    assert f"{TRUE_MODEL} not in the Hugging Face cache, and HF_HUB_OFFLINE" in str(e.value)
    assert "HF_HUB_OFFLINE" in str(e.value)


def test_nli_true_typed_runs_exactly_like_the_default(
    no_cuda, empty_hub, tiny_t5, tmp_path, monkeypatch
):
    # A tiny TRUE-format T5 stands in for T5-11B in the cache; the CPU is allowed.
    cache_as(empty_hub, TRUE_MODEL, tiny_t5)
    monkeypatch.setenv("INSPECT_CITE_NLI_ALLOW_CPU", "1")
    runs = []
    for given in ({}, {"nli": True}):
        model = CountingModel()
        [log] = inspect_eval(
            eli5,
            task_args=alce_args(tmp_path, **given),
            model=model.model,
            limit=2,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
        assert log.status == "success", log.error
        runs.append(log)
    default, typed = runs
    assert typed.eval.metadata["parameters"]["nli"] == default.eval.metadata["parameters"]["nli"]
    assert default.eval.metadata["parameters"]["nli"] == "true"

    def scores(log):
        return {s.id: s.scores["citation_nli"].value for s in log.samples}

    assert scores(typed) == scores(default)
    assert "NLI `true`" in typed.samples[0].scores["citation_nli"].explanation


def test_scorer_nli_true_typed_is_the_default_spec(no_cuda, empty_hub):
    with pytest.raises(PreflightError) as typed:
        citation_nli(nli=True)
    with pytest.raises(PreflightError) as default:
        citation_nli()
    assert str(typed.value) == str(default.value)
    assert str(typed.value).startswith("-S nli=true: ")


# --- other NLI specs -------------------------------------------------------------------------


def test_missing_classifier_directory_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a path as a user types it
    message = refused(eli5, alce_args(tmp_path, nli="classifier:./models/nli"), tmp_path)
    assert message.startswith("-T nli=classifier:./models/nli: directory models/nli does not exist")
    assert "-T nli=classifier:DIR" in message
    assert "Repo id" not in message


def test_seq2seq_nli_must_be_an_encoder_decoder(tmp_path, tiny_qwen3):
    message = refused(eli5, alce_args(tmp_path, nli=f"seq2seq:{tiny_qwen3}"), tmp_path)
    assert "Qwen3ForCausalLM, not a seq2seq (encoder-decoder) model" in message


def test_model_role_nli_needs_the_role_bound(tmp_path):
    message = refused(eli5, alce_args(tmp_path, nli="model:grader"), tmp_path)
    assert "no model is bound to the role 'grader'" in message
    assert "--model-role grader=<model>" in message


def test_a_local_llm_judge_that_cannot_answer_stops_the_run_before_generation(
    tmp_path, tiny_qwen3, tiny_t5, monkeypatch
):
    from inspect_cite.nli.checked import check_nli

    check_nli(f"model:hf/{tiny_qwen3}", flag="-T nli")  # a causal LM with whole weights
    monkeypatch.chdir(tmp_path)  # paths as a user types them
    shutil.copytree(tiny_qwen3, tmp_path / "judge")
    cut(tmp_path / "judge" / "model.safetensors")
    shutil.copytree(tiny_t5, tmp_path / "t5")
    for judge, why in [
        ("./judge", "model.safetensors is cut or corrupt"),
        ("./t5", "a T5ForConditionalGeneration, not a causal LM"),
        ("./nowhere", "directory nowhere does not exist"),
    ]:
        reset_preflight()
        message = refused(eli5, alce_args(tmp_path, nli=f"model:hf/{judge}"), tmp_path)
        assert message.startswith(f"-T nli=model:hf/{judge}: {why}")
        assert "-T nli=model:hf//abs/dir" in message


@pytest.mark.parametrize(
    "spec, shown, why",
    [
        ("python:no_such_module_xyz:fn", "python:no_such_module_xyz:fn", "cannot import"),
        ("python:tests.helpers.nli_fns:nope", "python:tests.helpers.nli_fns:nope", "no attribute"),
        (
            "remote:http://u:secret@127.0.0.1:9/v1#m",
            "remote:http://***@127.0.0.1:9/v1",
            "user-info",
        ),
    ],
)
def test_an_nli_spec_is_named_once(spec, shown, why, tmp_path):
    # The python: and remote: backends name the spec themselves; the flag is put before it.
    message = refused(eli5, alce_args(tmp_path, nli=spec), tmp_path)
    assert message.startswith(f"-T nli={shown}: ") and why in message
    assert message.count(shown) == 1 and "secret" not in message


# --- sentence-transformers models ------------------------------------------------------------


def test_unreachable_default_similarity_model_stops_fullcite(empty_hub, tmp_path):
    message = refused(expertqa, FULLCITE_ARGS, tmp_path)
    assert message.startswith(
        "-T similarity_model=sentence-transformers/all-MiniLM-L6-v2: not in the Hugging Face "
        "cache, and HF_HUB_OFFLINE is set (download it while online: hf download "
        "sentence-transformers/all-MiniLM-L6-v2)."
    )
    assert "-T similarity_model=DIR" in message and "-T similarity_model=null" in message


@pytest.mark.parametrize("strategy", ["posthoc", "postcite", "inlinesearch"])
def test_unreachable_default_retrieval_model_stops_alce(strategy, empty_hub, own_prompts, tmp_path):
    message = refused(eli5, alce_args(tmp_path, nli=NLI, strategy=strategy), tmp_path)
    assert message.startswith("-T retrieval_model=sentence-transformers/gtr-t5-large: not in")
    assert "-T retrieval_model=DIR" in message


def test_a_cached_hub_id_is_used_offline_and_an_uncached_one_refused(empty_hub, tmp_path):
    from tests.helpers.tiny_eval_models import minilm_path

    cache_as(empty_hub, "sentence-transformers/all-MiniLM-L6-v2", Path(minilm_path()))
    model = CountingModel(cite_first_document)
    [log] = inspect_eval(
        expertqa,
        task_args=FULLCITE_ARGS,
        model=model.model,
        limit=1,
        log_dir=str(tmp_path / "ok"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples[0].scores["citation_similarity"].value["n_scored"] == 1

    uncached = "sentence-transformers/all-mpnet-base-v2"
    message = refused(expertqa, {**FULLCITE_ARGS, "similarity_model": uncached}, tmp_path)
    assert message.startswith(f"-T similarity_model={uncached}: not in the Hugging Face cache")


def serve_hub(monkeypatch, server: ScriptedServer) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", server.url)
    template = server.url + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)


def test_the_hub_is_asked_once_without_retries(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with ScriptedServer([(503, b"unavailable", None)]) as server:
        serve_hub(monkeypatch, server)
        problem = model_problem("org/model", "sentence-transformers")
    assert server.requests == ["HEAD /org/model/resolve/main/config.json"]
    assert problem is not None and "the hub did not answer" in problem and "503" in problem

    with ScriptedServer([(200, b"{}", None)]) as server:
        serve_hub(monkeypatch, server)
        # Not cached but the hub answers: the model is downloaded when it is first used.
        assert model_problem("org/model", "sentence-transformers") is None


def test_local_directories_must_hold_a_model_of_the_right_kind(tmp_path, tiny_t5):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert model_problem(str(empty), "any") == "no config.json in it (not a transformers model)"
    assert model_problem(str(tmp_path / "x" / "y"), "any") == (
        f"directory {tmp_path / 'x' / 'y'} does not exist"
    )
    assert model_problem(str(tiny_t5), "seq2seq") is None
    assert "no label named 'entailment'" in model_problem(str(tiny_t5), "classifier")
    assert "not an extractive QA model" in model_problem(str(tiny_t5), "question-answering")
    weights_only = tmp_path / "no-tokenizer"
    shutil.copytree(tiny_t5, weights_only)
    for f in weights_only.glob("*token*"):
        f.unlink()
    assert model_problem(str(weights_only), "seq2seq").startswith("no tokenizer files")


def cut(path: Path) -> None:
    """Keep the first half of a file, as an interrupted copy or download does."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_a_cut_weight_file_stops_the_run_before_generation(tmp_path, tiny_t5, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a path as a user types it
    shutil.copytree(tiny_t5, tmp_path / "nli")
    cut(tmp_path / "nli" / "model.safetensors")
    message = refused(eli5, alce_args(tmp_path, nli="seq2seq:./nli"), tmp_path)
    assert message.startswith(
        "-T nli=seq2seq:./nli: model.safetensors is cut or corrupt (incomplete metadata, file "
        "not fully covered); download or copy the model again.\nGive an existing model directory"
    )


def test_weight_files_are_checked_without_loading_them(tmp_path, tiny_t5):
    import torch
    from transformers import AutoModelForSeq2SeqLM

    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_t5)
    sharded = tmp_path / "sharded"
    shutil.copytree(tiny_t5, sharded)
    (sharded / "model.safetensors").unlink()
    model.save_pretrained(sharded, max_shard_size="40KB")
    shards = sorted(sharded.glob("model-*.safetensors"))
    assert len(shards) > 1 and model_problem(str(sharded), "seq2seq") is None
    cut(shards[-1])
    assert model_problem(str(sharded), "seq2seq") == (
        f"{shards[-1].name} is cut or corrupt (incomplete metadata, file not fully covered); "
        "download or copy the model again"
    )
    shards[-1].unlink()
    assert model_problem(str(sharded), "seq2seq") == (
        f"model.safetensors.index.json lists missing shard {shards[-1].name}; "
        "download or copy the model again"
    )

    pickled = tmp_path / "pickled"
    shutil.copytree(tiny_t5, pickled)
    (pickled / "model.safetensors").unlink()
    torch.save(model.state_dict(), pickled / "pytorch_model.bin")
    assert model_problem(str(pickled), "seq2seq") is None
    cut(pickled / "pytorch_model.bin")
    assert model_problem(str(pickled), "seq2seq").startswith("pytorch_model.bin is cut or corrupt")

    # Pickle weights beside safetensors ones are not what transformers reads.
    beside = tmp_path / "beside"
    shutil.copytree(tiny_t5, beside)
    shutil.copy(pickled / "pytorch_model.bin", beside / "pytorch_model.bin")
    assert model_problem(str(beside), "seq2seq") is None


def test_an_nli_cache_path_that_is_a_directory_stops_the_run_before_generation(
    tmp_path, monkeypatch
):
    folder = tmp_path / "nli-cache"
    folder.mkdir()
    monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", str(folder))
    message = refused(eli5, alce_args(tmp_path, nli=NLI), tmp_path)
    assert message.startswith(f"NLI cache {folder} is a directory, not a SQLite file.")
    assert "INSPECT_CITE_NLI_CACHE" in message


# --- model roles -----------------------------------------------------------------------------


def test_judge_needs_a_grader_bound_before_generation(tmp_path):
    args = {**FULLCITE_ARGS, "similarity_model": None, "judge": True}
    message = refused(expertqa, args, tmp_path)
    assert message.startswith("-T judge=true needs a model bound to the role 'grader'")
    assert "--model-role grader=<model>" in message

    grader = CountingModel("Support: 5\nRelevance: 5")
    [log] = inspect_eval(
        expertqa,
        task_args=args,
        model=CountingModel("Yes.").model,
        model_roles={"grader": grader.model},
        limit=1,
        log_dir=str(tmp_path / "ok"),
        display="none",
    )
    assert log.status == "success", log.error


def test_annotation_needs_an_annotator_bound_before_generation(tmp_path):
    args = {"dataset_path": FULLCITE_ARGS["dataset_path"], "similarity_model": None}
    message = refused(expertqa, args, tmp_path)
    assert "--model-role annotator=<model>" in message and "-T spans_path=" in message


# --- typed CLI values ------------------------------------------------------------------------


def test_cli_values_come_back_as_the_text_typed():
    @accept_cli_values("-T")
    def fn(spec: str = "x", path: str | None = None, items: str | list[str] | None = None):
        return spec, path, items

    assert fn(True, 2024, ["a", "b"]) == ("true", "2024", ["a", "b"])
    assert fn(spec=False, path=1.5, items=7) == ("false", "1.5", "7")
    assert fn() == ("x", None, None)
    with pytest.raises(PreflightError, match=r"^-T spec=null: spec needs a value$"):
        fn(spec=None)
    with pytest.raises(PreflightError, match=r"^-T path=\['a'\]: path takes text"):
        fn(path=["a"])


def test_solver_and_scorer_parameters_take_typed_values(empty_hub):
    from solvers import alce_postcite

    # -S retriever=123 arrives as the integer 123: it is checked as the text "123".
    with pytest.raises(PreflightError, match=r"^-S retriever=123: not in the Hugging Face cache"):
        alce_postcite(retriever=123)
    with pytest.raises(PreflightError, match=r"^-S nli=\['x'\]: nli takes text"):
        citation_nli(nli=["x"])


def test_numbers_and_flags_refuse_what_is_not_one():
    @accept_cli_values("-S")
    def fn(n: int = 1, rate: float = 0.5, on: bool = False, seed: int | None = None):
        return n, rate, on, seed

    assert fn(3, 1, True, None) == (3, 1, True, None)
    assert fn(n=np.int64(2), rate=np.float32(0.25), on=np.bool_(True)) == (2, 0.25, True, None)
    assert fn(on=0)[2] == 0
    # YAML leaves 1e-3 (no decimal point) as text: a number parameter reads it as typed.
    assert fn(rate="1e-3")[1] == 0.001
    # Python's eval(task_args=...) passes text as given: "true"/"false" are a flag's values.
    assert fn(on="true")[2] is True and fn(on="False")[2] is False
    for kwargs, message in [
        ({"n": "abc"}, "-S n must be an integer, got 'abc'"),
        ({"n": 1.5}, "-S n must be an integer, got 1.5"),
        ({"n": True}, "-S n must be an integer, got True"),
        ({"n": None}, "-S n=null: n needs a value"),
        ({"rate": "high"}, "-S rate must be a number, got 'high'"),
        ({"on": "maybe"}, "-S on must be true or false, got 'maybe'"),
        ({"seed": "abc"}, "-S seed must be an integer, got 'abc'"),
    ]:
        # A TypeError as Python's own, and not a ValueError: Inspect's --scorer loader would
        # replace a ValueError's message with "couldn't be loaded".
        with pytest.raises(ArgumentTypeError, match=f"^{re.escape(message)}$") as refused:
            fn(**kwargs)
        assert isinstance(refused.value, TypeError)
        assert not isinstance(refused.value, ValueError)


def test_a_task_value_of_the_wrong_type_is_also_a_value_error():
    # As the tasks' other -T checks (e.g. "-T ndoc=-1: must be 0 or more").
    with pytest.raises(ValueError, match=r"^-T ndoc must be an integer, got 'abc'$") as refused:
        eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), ndoc="abc")
    assert isinstance(refused.value, TypeError) and isinstance(refused.value, PreflightError)


def test_an_unknown_option_is_refused_with_the_options_there_are():
    from scorers.citation_bias import citation_bias

    with pytest.raises(ArgumentTypeError) as refused:
        citation_bias(max_position=3)
    assert str(refused.value) == (
        "-S max_position=3: unexpected keyword argument 'max_position' for citation_bias; "
        "its options are max_positions, group_key"
    )


def test_a_bare_spec_prefix_is_the_text_typed():
    # YAML reads `-S nli=remote:` as {"remote": None}; the NLI spec list must see "remote:".
    with pytest.raises(PreflightError, match=r"^-S nli=remote:: unknown NLI spec 'remote:'"):
        citation_nli(nli={"remote": None})


# --- lazily loaded models are loaded once per process ----------------------------------------


def test_a_failed_retriever_load_is_not_retried_per_sample(monkeypatch, tmp_path):
    import sentence_transformers

    from inspect_cite.models.shared import LoadFailedError

    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        raise OSError("We couldn't connect to 'https://huggingface.co'")

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", failing)
    name = str(tmp_path / "retriever-that-fails")
    with pytest.raises(OSError, match="couldn't connect"):
        get_retriever(name, "cpu")
    for _ in range(3):
        with pytest.raises(LoadFailedError, match="not retried") as e:
            get_retriever(name, "cpu")
        assert isinstance(e.value.__cause__, OSError)
    assert len(calls) == 1


# --- an offline ALCE run: everything it lacks, in one message (issue 24, item 19) -------------


@pytest.fixture
def offline_alce(cache_root, monkeypatch):
    """An empty cache, no overrides, the hub offline and ALCE's prompt host unreachable."""
    from inspect_cite.alce import prompts as alce_prompts
    from inspect_cite.alce.data import ALCE_DATA_DIR_ENV

    monkeypatch.delenv(alce_prompts.PROMPT_DIR_ENV, raising=False)
    monkeypatch.delenv(ALCE_DATA_DIR_ENV, raising=False)
    # Port 9 (discard) refuses the connection at once: nothing leaves the machine.
    url = "http://127.0.0.1:9/{repo}/{commit}/prompts/{name}.json"
    monkeypatch.setattr(alce_prompts, "ALCE_PROMPT_URL", url)


def refused_at_once(task_args: dict, tmp_path: Path) -> str:
    """The message of a run refused before any generation (however many lines it has)."""
    model = CountingModel()
    with pytest.raises(PreflightError) as e:
        inspect_eval(
            eli5,
            task_args=task_args,
            model=model.model,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    assert model.calls == 0
    return str(e.value)


def test_an_offline_alce_run_names_the_data_and_the_prompt_file_at_once(offline_alce, tmp_path):
    message = refused_at_once({"nli": NLI}, tmp_path)
    assert message.startswith("2 problems stop this run:\n1. ALCE data file eli5_eval_bm25")
    first, second = message.split("\n2. ")
    assert "could not be downloaded" in first and "HF_HUB_OFFLINE is set" in first
    assert "-T dataset_path=" in first and "INSPECT_CITE_ALCE_DATA_DIR" in first
    assert second.startswith("ALCE prompt file eli5_default.json is not cached")
    assert "-T prompt_file=PATH" in second


def test_a_prompt_file_s_problems_are_named_together_with_the_flags(offline_alce, tmp_path):
    bad = tmp_path / "mine.json"
    bad.write_text(json.dumps({"instruction": "x", "demo_prompt": "{INST} {Q}", "demos": []}))
    args = {"nli": NLI, "dataset_path": str(FIXTURES / "alce_eli5.json"), "prompt_file": str(bad)}
    message = refused_at_once(args, tmp_path)
    assert message == (
        f'prompt file {bad}: missing fields "demo_sep", "doc_prompt"; -T shot=2 needs 2 demos, '
        "it has 0 (-T prompt_file)"
    )
    # A file that is otherwise fine: the demonstrations alone, with both flags.
    good = own_prompt_file(tmp_path)
    message = refused_at_once({**args, "prompt_file": str(good), "shot": 3}, tmp_path)
    assert message == f"prompt file {good}: -T shot=3 needs 3 demos, it has 2 (-T prompt_file)"


def test_every_problem_of_a_run_is_in_its_one_message(offline_alce, empty_hub, tmp_path):
    missing = tmp_path / "nowhere.json"
    args = {"dataset_path": str(missing), "nli": "classifier:./no-such-nli", "shot": 9}
    message = refused_at_once(args, tmp_path)
    assert message.startswith("3 problems stop this run:")
    assert f"1. dataset file {missing} does not exist (-T dataset_path)" in message
    assert "2. ALCE prompt file eli5_default.json is not cached" in message
    assert "3. -T nli=classifier:./no-such-nli: directory no-such-nli does not exist." in message
