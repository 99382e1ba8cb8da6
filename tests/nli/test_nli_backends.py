"""NLI backends, the batching queue and the decision cache."""

import asyncio
import logging
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from inspect_ai.scorer import Target

from bench.alce_synthetic import synthetic_items
from inspect_cite.models.batching import BatchQueue
from inspect_cite.nli import (
    NLIConfigError,
    NLIError,
    NLIResourceError,
    NLIResult,
    get_nli,
    parse_nli_spec,
    reset_nli,
    true_resource_problem,
)
from inspect_cite.nli.cached import CachedNLI
from inspect_cite.nli.classifier import ClassifierNLI, entailment_label
from inspect_cite.nli.llm import ModelNLI, parse_yes_no
from inspect_cite.nli.seq2seq import TRUE_TEMPLATE, Seq2SeqNLI
from inspect_cite.testing.tiny_t5 import vary_t5_outputs
from scorers import citation_nli
from tests.conftest import ROOT
from tests.helpers import nli_fns
from tests.helpers.nli_judge import judge_model
from tests.helpers.nli_models import per_pair_generate
from tests.helpers.task_states import state

pytestmark = pytest.mark.usefixtures("fresh_nli")


def doc_pairs(n_items: int = 12) -> list[tuple[str, str]]:
    pairs = []
    for item in synthetic_items("asqa", n_items, seed=5) + synthetic_items("eli5", n_items):
        for doc in item["docs"][:2]:
            pairs.append((f"Title: {doc['title']}\n{doc['text']}", item["output"][:120]))
    return pairs + [("a", "b"), ("", "")]


# --- seq2seq (TRUE format) -------------------------------------------------------------


@pytest.fixture(scope="session")
def varied_t5(tiny_t5, tmp_path_factory) -> Path:
    texts = [TRUE_TEMPLATE.format(premise=p, hypothesis=h) for p, h in doc_pairs(8)]
    return vary_t5_outputs(tiny_t5, tmp_path_factory.mktemp("varied-t5"), texts)


def test_seq2seq_batched_equals_per_pair(varied_t5):
    pairs = doc_pairs(5)
    expected = per_pair_generate(varied_t5, pairs)
    assert "1" in expected and len(set(expected)) > 2, "the test model must give varied outputs"
    engine = Seq2SeqNLI(str(varied_t5), batch_size=8)
    assert engine.generate(pairs) == expected
    backend = get_nli(f"seq2seq:{varied_t5}")
    results = asyncio.run(backend.entail(pairs))
    assert [r.entailed for r in results] == [t == "1" for t in expected]
    assert TRUE_TEMPLATE == "premise: {premise} hypothesis: {hypothesis}"


def test_seq2seq_entailed_only_for_exactly_one(tiny_t5, monkeypatch):
    engine = Seq2SeqNLI(str(tiny_t5))
    monkeypatch.setattr(engine, "answers", lambda pairs: ["1", "11", " 1", "", "0"])
    assert [r.entailed for r in engine([("p", "h")] * 5)] == [True, False, False, False, False]  # type: ignore[union-attr]


def test_seq2seq_bad_model_names_the_spec(tmp_path):
    backend = get_nli(f"seq2seq:{tmp_path / 'nothing-here'}")
    with pytest.raises(NLIConfigError, match="cannot load NLI model"):
        asyncio.run(backend.entail([("p", "h")]))


# --- the default TRUE model ---------------------------------------------------------------


@pytest.mark.skipif(true_resource_problem() is None, reason="this machine can hold T5-11B")
@pytest.mark.parametrize("allow_cpu", [None, "0", "false"])
def test_true_refuses_before_loading_on_a_small_machine(allow_cpu, monkeypatch, caplog):
    import transformers

    def no_load(*a, **k):
        raise AssertionError("must not load T5-11B here")

    # Unset, or set to an off value as the preflight reads it: the loader refuses alike.
    if allow_cpu is None:
        monkeypatch.delenv("INSPECT_CITE_NLI_ALLOW_CPU", raising=False)
    else:
        monkeypatch.setenv("INSPECT_CITE_NLI_ALLOW_CPU", allow_cpu)
    monkeypatch.setattr(transformers.AutoModelForSeq2SeqLM, "from_pretrained", no_load)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", no_load)
    with caplog.at_level(logging.WARNING):
        backend = get_nli("true")
    # The advice comes once, with the refusal: no warning first when the load will be refused.
    assert "classifier:" not in caplog.text
    assert backend.identity == "true:google/t5_xxl_true_nli_mixture"
    with pytest.raises(NLIResourceError) as e:
        asyncio.run(backend.entail([("p", "h")]))
    message = str(e.value)
    for choice in ("classifier:", "DeBERTa-v3", "seq2seq:", "model:", "no CUDA GPU"):
        assert choice in message


# --- classifier ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tiny_classifier(tmp_path_factory) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from inspect_cite.testing.tiny_qwen3 import build_tokenizer
    from tests.conftest import fixture_corpus

    out = tmp_path_factory.mktemp("tiny-nli-classifier")
    tok = build_tokenizer(out, fixture_corpus(), vocab_size=500)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tok),  # type: ignore[arg-type]
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=3,
        id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2},
        pad_token_id=tok.pad_token_id,  # type: ignore[attr-defined]
        # Large random weights: with the default 0.02 every input gets nearly the same logits
        # (margins within 1e-6 of each other), too close for a stable split below.
        initializer_range=0.5,
    )
    # eval(): a fresh model is in training mode, and dropout would make the margins below
    # differ from what the saved model computes.
    model = BertForSequenceClassification(config).eval()
    # Random weights favour one label everywhere: shift the entailment bias halfway between
    # the two middle margins, so that half of the test pairs are entailed, none near the edge.
    pairs = doc_pairs(6)[:-1]
    with torch.inference_mode():
        logits = torch.cat([model(**tok(p, h, return_tensors="pt")).logits for p, h in pairs])
        margin = (logits[:, :2].max(dim=1).values - logits[:, 2]).sort().values
        half = len(margin) // 2
        model.classifier.bias[2] += (margin[half - 1] + margin[half]) / 2
    model.save_pretrained(out)
    return out


def test_classifier_reads_entailment_label_and_batches(tiny_classifier):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    pairs = doc_pairs(6)[:-1]  # without ("", ""): this tokenizer adds no special tokens
    results = asyncio.run(get_nli(f"classifier:{tiny_classifier}").entail(pairs))
    tok = AutoTokenizer.from_pretrained(tiny_classifier)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_classifier)
    for (premise, hypothesis), result in zip(pairs, results, strict=True):
        with torch.inference_mode():
            logits = model(**tok(premise, hypothesis, return_tensors="pt")).logits[0]
        assert result.entailed == (int(logits.argmax()) == 2)
        assert result.prob == pytest.approx(float(torch.softmax(logits, -1)[2]), abs=1e-4)
    assert len({r.entailed for r in results}) == 2, "the test model must give both decisions"
    assert ClassifierNLI(str(tiny_classifier)).identity.startswith("classifier:/")


def test_classifier_without_entailment_label_is_refused():
    class Config:
        id2label = {0: "LABEL_0", 1: "LABEL_1"}
        label2id = {"LABEL_0": 0, "LABEL_1": 1}

    with pytest.raises(NLIConfigError, match="entailment"):
        entailment_label(Config(), "some/model")

    class Mnli:
        id2label = {0: "entailment", 1: "neutral", 2: "contradiction"}
        label2id: dict = {}

    assert entailment_label(Mnli(), "m") == 0


@pytest.fixture(scope="session")
def nan_classifier(tiny_classifier, tmp_path_factory) -> Path:
    """The tiny classifier with entailment at index 0 (as DeBERTa MNLI models) and NaN logits."""
    import shutil

    import torch
    from transformers import AutoModelForSequenceClassification

    out = tmp_path_factory.mktemp("nan-classifier")
    shutil.copytree(tiny_classifier, out, dirs_exist_ok=True)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_classifier)
    model.config.id2label = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
    model.config.label2id = {v: k for k, v in model.config.id2label.items()}
    with torch.no_grad():
        model.classifier.bias.fill_(float("nan"))
    model.save_pretrained(out)
    return out


def test_classifier_nan_logits_fail_the_pair_instead_of_entailing_it(nan_classifier, monkeypatch):
    from scorers import citation_nli
    from tests.helpers.task_states import state

    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    pair = ("The cat sat on the mat.", "the cat sat")
    # The trap: argmax over NaN logits is index 0, the entailment label.
    [raw] = ClassifierNLI(str(nan_classifier))([pair])
    assert isinstance(raw, NLIResult) and raw.entailed is True
    backend = get_nli(f"classifier:{nan_classifier}")
    with pytest.raises(NLIError, match=r"probability nan, expected a finite number in \[0, 1\]"):
        asyncio.run(backend.entail([pair]))
    docs = [{"id": "1", "title": "T", "text": pair[0]}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q"}
    score = asyncio.run(
        citation_nli(nli=f"classifier:{nan_classifier}")(
            state("The cat sat [1].", meta), Target("")
        )
    )
    assert score is not None and isinstance(score.value, dict)
    assert all(math.isnan(v) for v in score.value.values()), score.value  # never recall 100
    assert "probability nan" in (score.explanation or "")


# --- model: (an LLM through Inspect) ---------------------------------------------------------


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("Yes", True),
        ("no.", False),
        ("**Yes**, the premise says so.", True),
        ("<think>maybe yes, maybe no</think>No", False),
        ("The answer is yes.", True),
        ("Yes and no.", True),
        ("I cannot tell.", None),
        ("It could be yes or no.", None),
        ("", None),
        ("Nope", None),
    ],
)
def test_parse_yes_no(reply, verdict):
    assert parse_yes_no(reply) is verdict


async def test_model_backend_asks_retries_and_reports():
    llm = ModelNLI("mockllm/model", model=judge_model())
    backend = CachedNLI(lambda: llm.identity, llm)
    assert backend.identity.startswith("model:mockllm/model#")
    pairs = [
        ("paris is the capital", "paris capital"),
        ("paris is the capital", "berlin"),
        ("paris is the capital", "garble paris"),  # unclear first, clear when asked again
    ]
    results = await backend.entail(pairs)
    assert [r.entailed for r in results] == [True, False, True]
    with pytest.raises(NLIError, match="no yes/no answer after 3 tries"):
        await backend.entail([("paris", "gibberish"), ("paris", "paris")])
    # The decided pair was cached despite the failure of the other.
    assert (backend.identity, ("paris", "paris")) in backend._memory


def test_model_backend_role_needs_binding():
    backend = get_nli("model:grader")
    with pytest.raises(Exception, match="grader"):
        asyncio.run(backend.entail([("p", "h")]))


@pytest.fixture(scope="session")
def answerers(tiny_qwen3, tmp_path_factory) -> dict[str, Path]:
    """Tiny local LLM judges of the same size: one always answers "yes", one "no"."""
    from tests.helpers.tiny_models import build_tiny_answerer

    return {
        answer: build_tiny_answerer(tiny_qwen3, tmp_path_factory.mktemp(f"judge-{answer}"), answer)
        for answer in ("yes", "no")
    }


def replace_keeping_mtime(weights: Path, replacement: Path) -> None:
    """Replace a weight file by another model's of the very same size, keeping its mtime."""
    import os
    import shutil

    assert weights.stat().st_size == replacement.stat().st_size
    before = weights.stat()
    shutil.copyfile(replacement, weights)
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert weights.stat().st_mtime_ns == before.st_mtime_ns


def new_process(monkeypatch) -> None:
    """Forget the NLI backends and Inspect's loaded models, as a new process would."""
    reset_nli()
    monkeypatch.setattr("inspect_ai.model._model._models", {})


def test_a_local_hf_judge_answers_with_greedy_decoding_it_accepts(answerers, monkeypatch):
    # The hf/ provider samples unless loaded with do_sample=false, and then refuses
    # temperature 0: every pair failed with "ExceptionGroup" after its retries.
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    pair = ("The cat sat on the mat.", "the cat sat")
    for answer, entailed in (("yes", True), ("no", False)):
        backend = get_nli(f"model:hf/{answerers[answer]}")
        assert [r.entailed for r in asyncio.run(backend.entail([pair]))] == [entailed]
    docs = [{"id": "1", "title": "T", "text": "The cat sat on the mat."}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q"}
    scorer = citation_nli(nli=f"model:hf/{answerers['yes']}")
    score = asyncio.run(scorer(state("The cat sat [1].", meta), Target("")))
    assert score is not None and score.value == {"citation_rec": 100, "citation_prec": 100}


def test_judge_decoding_is_greedy_in_the_form_each_provider_takes(answerers):
    from inspect_ai.model import get_model

    from inspect_cite.nli.llm import judge_config

    sampling = get_model(f"hf/{answerers['yes']}", device="cpu")
    greedy = get_model(f"hf/{answerers['yes']}", device="cpu", do_sample=False)
    assert (judge_config(sampling).temperature, judge_config(sampling).top_k) == (1.0, 1)
    assert (judge_config(greedy).temperature, judge_config(greedy).top_k) == (None, None)
    assert judge_config(judge_model()).temperature == 0.0
    llm = ModelNLI("hf/judge", model=greedy)
    [result] = asyncio.run(CachedNLI(lambda: llm.identity, llm).entail([("a", "b")]))
    assert result.entailed


def test_disk_cache_follows_a_local_judges_weights_not_its_name(answerers, tmp_path, monkeypatch):
    import shutil

    db = str(tmp_path / "nli.sqlite")
    judge = tmp_path / "judge"
    shutil.copytree(answerers["yes"], judge)
    pair = ("The cat sat on the mat.", "the cat sat")

    def run() -> tuple[bool, int]:
        new_process(monkeypatch)
        backend = get_nli(f"model:hf/{judge}", db)
        [result] = asyncio.run(backend.entail([pair]))
        return result.entailed, backend.model_pairs

    assert run() == (True, 1)
    assert run() == (True, 0)  # unchanged: rescoring makes no call
    replace_keeping_mtime(judge / "model.safetensors", answerers["no"] / "model.safetensors")
    assert run() == (False, 1)


def test_api_judges_are_keyed_by_model_name_and_server():
    from inspect_cite.nli.fingerprint import llm_fingerprint

    assert llm_fingerprint("openai", "gpt-4o-mini", {}, None) == "api"
    assert llm_fingerprint("openai-api", "m", {}, "http://u:secret@h:1/v1") == (
        "api:http://***@h:1/v1"
    )
    assert llm_fingerprint("hf", "org/judge", {"revision": "abc"}, None) == "rev:abc"


# --- python: ------------------------------------------------------------------------------


async def test_python_backend_bool_float_and_errors(tmp_path):
    results = await get_nli("python:tests.helpers.nli_fns:word_overlap").entail(
        [("a b c", "a b"), ("a b c", "a x"), ("a", "x y z")]
    )
    assert results == [NLIResult(True, 1.0), NLIResult(True, 0.5), NLIResult(False, 0.0)]
    with pytest.raises(NLIError, match="returned str"):
        await get_nli("python:tests.helpers.nli_fns:returns_text").entail([("a", "b")])
    backend = get_nli("python:tests.helpers.nli_fns:failing_on_fail")
    with pytest.raises(NLIError, match="cannot judge this"):
        await backend.entail([("x", "it will fail"), ("x", "x")])
    assert await backend.entail([("x", "x")]) == [NLIResult(True)]
    script = tmp_path / "my_nli.py"
    script.write_text("def judge(p, h):\n    return h in p\n")
    assert (await get_nli(f"python:{script}:judge").entail([("abc", "b")]))[0].entailed


@pytest.mark.parametrize(
    "value, shown",
    [
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (5.0, "5.0"),
        (-3, "-3.0"),
        (1.0000001, "1.0000001"),
    ],
)
async def test_python_values_outside_a_probability_fail_the_pair(monkeypatch, value, shown):
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    monkeypatch.setattr(
        nli_fns, "constant", lambda p, h: value if h == "bad" else True, raising=False
    )
    backend = get_nli("python:tests.helpers.nli_fns:constant")
    with pytest.raises(NLIError, match=rf"returned probability {re.escape(shown)}, expected"):
        await backend.entail([("a", "good"), ("a", "bad")])
    # Only the bad pair failed: the good one was decided and cached.
    assert await backend.entail([("a", "good")]) == [NLIResult(True)]
    assert backend.model_pairs == 2


async def test_numpy_values_are_checked_like_python_ones(monkeypatch):
    import numpy as np

    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    values = {"half": np.float32(0.5), "yes": np.bool_(True), "nan": np.float64("nan")}
    monkeypatch.setattr(nli_fns, "constant", lambda p, h: values[h], raising=False)
    backend = get_nli("python:tests.helpers.nli_fns:constant")
    assert await backend.entail([("a", "half"), ("a", "yes")]) == [
        NLIResult(True, 0.5),
        NLIResult(True),
    ]
    with pytest.raises(NLIError, match="probability nan"):
        await backend.entail([("a", "nan")])


@pytest.mark.parametrize(
    "spec, match",
    [
        ("t5", "unknown NLI spec"),
        ("seq2seq:", "unknown NLI spec"),
        ("python:tests.helpers.nli_fns", "expected python:<module or file.py>:<callable>"),
        (
            "python:pkg.no_such_module_xyz:fn",
            r"cannot import .*name the file instead \(python:path/to/no_such_module_xyz.py:fn\)"
            " or put its folder on PYTHONPATH",
        ),
        ("python:tests.helpers.nli_fns:nope", "has no attribute"),
    ],
)
def test_bad_specs(spec, match):
    with pytest.raises(NLIConfigError, match=match):
        get_nli(spec)


def test_spec_parsing_and_sharing():
    assert parse_nli_spec("true") == ("true", "google/t5_xxl_true_nli_mixture")
    assert parse_nli_spec(" classifier:org/m ") == ("classifier", "org/m")
    assert parse_nli_spec("model:openai/gpt-4o") == ("model", "openai/gpt-4o")
    one = get_nli("python:tests.helpers.nli_fns:word_entail")
    assert get_nli("python:tests.helpers.nli_fns:word_entail") is one


# --- batching queue -----------------------------------------------------------------------


def slow_word_entail(batches: list[list]) -> object:
    def fn(pairs):
        batches.append(list(pairs))
        time.sleep(0.02)  # a model call: long enough for other callers to queue up
        return [NLIResult(nli_fns.word_entail(p, h)) for p, h in pairs]

    return fn


async def test_queue_batches_concurrent_callers():
    batches: list[list] = []
    queue = BatchQueue(slow_word_entail(batches), max_batch=16, max_wait=0.01)  # type: ignore[arg-type]
    requests = [[(f"w{i} x", f"w{i}"), (f"w{i}", f"w{i} y")] for i in range(40)]
    results = await asyncio.gather(*(queue.submit(r) for r in requests))
    for r in results:
        assert [x.entailed for x in r] == [True, False]  # type: ignore[union-attr]
    assert sum(len(b) for b in batches) == 80
    assert len(batches) < 40 and max(len(b) for b in batches) == 16
    assert queue.batch_sizes == [len(b) for b in batches]


async def test_queue_deduplicates_and_reports_batch_failure():
    batches: list[list] = []
    queue = BatchQueue(slow_word_entail(batches), max_batch=64, max_wait=0.01)  # type: ignore[arg-type]
    await asyncio.gather(queue.submit([("a", "a")]), queue.submit([("a", "a"), ("b", "a")]))
    assert batches == [[("a", "a"), ("b", "a")]]

    def broken(pairs):
        raise RuntimeError("model crashed")

    queue = BatchQueue(broken, max_wait=0.0)
    with pytest.raises(RuntimeError, match="model crashed"):
        await queue.submit([("a", "b")])


def test_queue_survives_a_cancelled_leader():
    batches: list[list] = []
    queue = BatchQueue(slow_word_entail(batches), max_batch=64, max_wait=0.05)  # type: ignore[arg-type]
    got: list = []

    async def main() -> None:
        async def leader() -> None:
            with anyio.move_on_after(0.01):
                await queue.submit([("a", "a")])

        async def follower() -> None:
            await anyio.sleep(0.001)
            got.extend(await queue.submit([("b", "a")]))

        async with anyio.create_task_group() as tg:
            tg.start_soon(leader)
            tg.start_soon(follower)

    anyio.run(main)
    assert got == [NLIResult(False)]
    assert batches == [[("b", "a")]]


def test_shared_backend_across_event_loops():
    # Inspect runs each eval in a fresh event loop; the process-wide backend must serve both.
    backend = get_nli("python:tests.helpers.nli_fns:word_entail")
    assert asyncio.run(backend.entail([("a", "a")])) == [NLIResult(True)]
    assert anyio.run(backend.entail, [("a", "b")]) == [NLIResult(False)]


# --- cache --------------------------------------------------------------------------------


def test_disk_cache_makes_rescoring_free(tmp_path, monkeypatch):
    pairs = doc_pairs(4) + [("x y", "x")]
    db = tmp_path / "nli.sqlite"
    nli_fns.CALLS["count"] = 0
    first = asyncio.run(
        get_nli("python:tests.helpers.nli_fns:counting_entail", str(db)).entail(pairs)
    )
    calls = nli_fns.CALLS["count"]
    assert calls == len(set(pairs))

    reset_nli()  # a new process: nothing in memory
    monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", str(db))
    backend = get_nli("python:tests.helpers.nli_fns:counting_entail")
    assert backend.disk is not None
    assert asyncio.run(backend.entail(pairs)) == first
    assert nli_fns.CALLS["count"] == calls and backend.model_pairs == 0

    # Another backend identity shares the file but not the decisions.
    other = get_nli("python:tests.helpers.nli_fns:word_entail")
    asyncio.run(other.entail(pairs[:2]))
    assert other.model_pairs == 2


def test_the_cache_file_alone_holds_a_finished_eval_decisions(tmp_path, own_prompts):
    db = tmp_path / "nli.sqlite"
    # An eval leaves the backend (and its connection) to the process's end.
    script = (
        "import sys\n"
        "from inspect_ai import eval\n"
        "from alce_tasks import asqa\n"
        "from tests.conftest import FIXTURES\n"
        "from tests.helpers.scripted_models import scripted_model, scripted_output\n"
        "model, _ = scripted_model(lambda *a: scripted_output('Eccleston played him [1].'))\n"
        "task = asqa(dataset_path=str(FIXTURES / 'alce_asqa.json'), nli=sys.argv[1])\n"
        "[log] = eval(task, model=model, display='none', log_dir=sys.argv[2], limit=2)\n"
        "assert log.status == 'success'\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "python:tests.helpers.nli_fns:word_entail",
            str(tmp_path / "logs"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "INSPECT_CITE_NLI_CACHE": str(db), "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Copied without its -wal file, as a user moves "the cache".
    copy = tmp_path / "copy" / "nli.sqlite"
    copy.parent.mkdir()
    shutil.copy(db, copy)
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT COUNT(*) FROM nli").fetchone()[0] > 0


async def test_memory_cache():
    nli_fns.CALLS["count"] = 0
    backend = get_nli("python:tests.helpers.nli_fns:counting_entail")
    await backend.entail([("a", "a"), ("a", "a"), ("b", "a")])
    await backend.entail([("b", "a")])
    assert nli_fns.CALLS["count"] == 2 and backend.disk is None


# --- the disk cache key identifies the model, not the spec text ------------------------------


def test_disk_cache_follows_the_python_function_not_the_spec_text(tmp_path, monkeypatch):
    db = str(tmp_path / "nli.sqlite")
    for name, verdict in (("a", "True"), ("b", "False")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "judge.py").write_text(f"def judge(p, h):\n    return {verdict}\n")

    def run(folder: str) -> tuple[bool, int]:
        reset_nli()  # a new process
        monkeypatch.chdir(tmp_path / folder)
        backend = get_nli("python:judge.py:judge", db)
        [result] = asyncio.run(backend.entail([("premise", "hypothesis")]))
        return result.entailed, backend.model_pairs

    assert run("a") == (True, 1)
    # The same relative spec from another folder is another function.
    assert run("b") == (False, 1)
    assert run("a") == (True, 0)  # unchanged: rescoring makes no call
    # An edited function is another function.
    (tmp_path / "a" / "judge.py").write_text("def judge(p, h):\n    return 1 == 0  # edited\n")
    assert run("a") == (False, 1)


@pytest.fixture(scope="session")
def fixed_classifiers(tiny_classifier, tmp_path_factory) -> dict[bool, Path]:
    """Two copies of the tiny classifier of the same size: one always entails, one never does."""
    import shutil

    import torch
    from transformers import AutoModelForSequenceClassification

    out: dict[bool, Path] = {}
    for verdict in (True, False):
        directory = tmp_path_factory.mktemp(f"classifier-{verdict}")
        shutil.copytree(tiny_classifier, directory, dirs_exist_ok=True)
        model = AutoModelForSequenceClassification.from_pretrained(tiny_classifier)
        with torch.no_grad():
            model.classifier.bias[2] = 1e4 if verdict else -1e4  # index 2: ENTAILMENT
        model.save_pretrained(directory)
        out[verdict] = directory
    return out


def test_disk_cache_follows_model_weights_not_the_directory(fixed_classifiers, tmp_path):
    import shutil

    db = str(tmp_path / "nli.sqlite")
    model_dir = tmp_path / "nli-model"
    shutil.copytree(fixed_classifiers[True], model_dir)
    pair = ("The cat sat on the mat.", "the cat sat")

    def run() -> tuple[bool, int]:
        reset_nli()  # a new process
        backend = get_nli(f"classifier:{model_dir}", db)
        [result] = asyncio.run(backend.entail([pair]))
        return result.entailed, backend.model_pairs

    assert run() == (True, 1)
    assert run() == (True, 0)  # unchanged: rescoring makes no call

    replace_keeping_mtime(
        model_dir / "model.safetensors", fixed_classifiers[False] / "model.safetensors"
    )
    assert run() == (False, 1)


def test_model_weights_are_hashed_once_while_unchanged(fixed_classifiers, tmp_path, monkeypatch):
    db = str(tmp_path / "nli.sqlite")
    spec = f"classifier:{fixed_classifiers[True]}"
    pair = ("The cat sat on the mat.", "the cat sat")
    asyncio.run(get_nli(spec, db).entail([pair]))
    hashed: list[Path] = []
    monkeypatch.setattr("inspect_cite.nli.cache.sha256_file", hashed.append)
    reset_nli()  # a new process
    backend = get_nli(spec, db)
    assert [r.entailed for r in asyncio.run(backend.entail([pair]))] == [True]
    assert hashed == [] and backend.model_pairs == 0


def test_hub_model_is_keyed_by_the_revision_it_loads(fixed_classifiers, tmp_path, monkeypatch):
    import shutil

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    repo = tmp_path / "hub" / "models--org--tiny-nli"
    commits = {True: "a" * 40, False: "b" * 40}
    for verdict, commit in commits.items():
        shutil.copytree(fixed_classifiers[verdict], repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    db = str(tmp_path / "nli.sqlite")
    pair = ("The cat sat on the mat.", "the cat sat")

    def run(main: bool) -> tuple[bool, int]:
        (repo / "refs" / "main").write_text(commits[main])
        reset_nli()  # a new process
        backend = get_nli("classifier:org/tiny-nli", db)
        [result] = asyncio.run(backend.entail([pair]))
        return result.entailed, backend.model_pairs

    assert run(main=True) == (True, 1)
    assert run(main=False) == (False, 1)  # main moved: another model, another key
    assert run(main=True) == (True, 0)


async def test_a_judge_that_never_says_yes_or_no_is_asked_three_times_per_pair():
    # Issue 35, item 15: 3 tries x 4 cache attempts made 12 generations per pair, and the
    # reason said "after 3 tries ... (after 4 attempts)".
    from inspect_ai.model import get_model

    from tests.helpers.scripted_models import scripted_output

    configs = []

    def mumble(input, tools, tool_choice, config):
        configs.append(config)
        return scripted_output("Let me think about that.")

    llm = ModelNLI("mockllm/model", model=get_model("mockllm/model", custom_outputs=mumble))
    backend = CachedNLI(lambda: llm.identity, llm, retries=3, backoff=0)
    with pytest.raises(NLIError) as e:
        await backend.entail([("paris", "paris")])
    assert len(configs) == 3
    assert str(e.value).startswith("model:mockllm/model gave no yes/no answer after 3 tries: ")
    assert str(e.value).endswith("(not retried)") and "attempts" not in str(e.value)
    # An API model keeps its provider's default budget (a reasoning model needs it).
    assert {c.max_tokens for c in configs} == {None}


def test_a_local_judge_s_reply_is_a_few_tokens_unless_its_template_thinks(answerers):
    from inspect_ai.model import ChatMessageUser, get_model

    from inspect_cite.nli.llm import JUDGE_MAX_TOKENS, JUDGE_THINKING_TOKENS, judge_max_tokens
    from tests.helpers.tiny_models import QWEN3_CHAT_TEMPLATE

    messages = [ChatMessageUser(content="Premise ... yes or no.")]
    plain = get_model(f"hf/{answerers['yes']}", device="cpu", memoize=False)
    assert judge_max_tokens(plain, messages) == JUDGE_MAX_TOKENS == 16
    thinking = get_model(
        f"hf/{answerers['yes']}",
        device="cpu",
        chat_template=QWEN3_CHAT_TEMPLATE + "{%- if add_generation_prompt %}<think>{%- endif %}",
        memoize=False,
    )
    assert judge_max_tokens(thinking, messages) == JUDGE_THINKING_TOKENS
