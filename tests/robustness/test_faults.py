"""Injected faults: a flaky NLI backend is retried with backoff, then reported per sample."""

import asyncio
import importlib
import json
import logging
import math
import threading
from collections.abc import Iterator

import anyio
import pytest
from inspect_ai.scorer import Target

from inspect_cite.checks.errors import PreflightError
from inspect_cite.nli import NLIConfigError, NLIError, get_nli
from inspect_cite.nli.cached import NLI_BACKOFF_ENV, NLI_RETRIES_ENV
from inspect_cite.nli.classifier import ClassifierNLI
from inspect_cite.nli.hf import chunks_by_length
from inspect_cite.nli.seq2seq import TRUE_TEMPLATE, Seq2SeqNLI
from scorers import citation_nli, claim_coverage
from tests.helpers import nli_fns
from tests.helpers.task_states import state
from tests.nli.test_nli_backends import doc_pairs, tiny_classifier, varied_t5  # noqa: F401, F811 (fixtures)

FLAKY = "python:tests.helpers.nli_fns:flaky_entail"
PAIR = ("The cat sat on the mat.", "the cat sat")


@pytest.fixture(autouse=True)
def _fresh(fresh_nli, monkeypatch):
    monkeypatch.setenv(NLI_BACKOFF_ENV, "0.01")
    nli_fns.FLAKY.update(failures=0, calls=0)


def test_flaky_backend_is_retried_until_it_answers(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "3")
    nli_fns.FLAKY["failures"] = 3
    [result] = asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert result.entailed and nli_fns.FLAKY["calls"] == 4


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """The retry waits of CachedNLI, recorded instead of waited."""
    waited: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr("inspect_cite.nli.cached.anyio.sleep", fake_sleep)
    return waited


def test_backoff_doubles(monkeypatch, sleeps):
    monkeypatch.setenv(NLI_RETRIES_ENV, "3")
    monkeypatch.setenv(NLI_BACKOFF_ENV, "0.25")
    nli_fns.FLAKY["failures"] = 3
    asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert [s for s in sleeps if s > 0] == [0.25, 0.5, 1.0]  # 0: the batch queue's wait


def test_exhausted_retries_raise_nli_error(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "2")
    nli_fns.FLAKY["failures"] = 10
    with pytest.raises(NLIError, match=r"server busy.*after 3 attempts"):
        asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert nli_fns.FLAKY["calls"] == 3


def test_bad_retry_setting_is_a_config_error(monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "many")
    with pytest.raises(NLIConfigError, match=NLI_RETRIES_ENV):
        get_nli(FLAKY)


@pytest.mark.parametrize("scorer_name", ["citation_nli", "claim_coverage"])
def test_failed_nli_is_nan_with_reason_never_unsupported(monkeypatch, scorer_name):
    monkeypatch.setenv(NLI_RETRIES_ENV, "1")
    nli_fns.FLAKY["failures"] = 1000
    docs = [{"id": "1", "title": "T", "text": "The cat sat on the mat."}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q", "claims": ["the cat sat"]}
    make = citation_nli if scorer_name == "citation_nli" else claim_coverage
    score = asyncio.run(make(nli=FLAKY)(state("The cat sat [1].", meta), Target("")))
    assert score is not None and isinstance(score.value, dict)
    assert all(math.isnan(v) for v in score.value.values())
    assert "server busy" in (score.explanation or "") and "after 2 attempts" in score.explanation
    # Once the backend recovers, the same sample is supported: the failure was not a verdict.
    nli_fns.FLAKY["failures"] = 0
    score = asyncio.run(make(nli=FLAKY)(state("The cat sat [1].", meta), Target("")))
    assert score is not None and isinstance(score.value, dict)
    assert all(v == 100 for v in score.value.values())


def test_malformed_answers_are_not_retried(monkeypatch):
    calls = {"n": 0}

    def returns_text(premise: str, hypothesis: str) -> str:
        calls["n"] += 1
        return "yes"

    monkeypatch.setattr(nli_fns, "returns_text", returns_text)
    with pytest.raises(NLIError, match="expected bool or float") as e:
        asyncio.run(get_nli("python:tests.helpers.nli_fns:returns_text").entail([PAIR]))
    assert calls["n"] == 1
    # It ran once: the message must not claim retries that never happened.
    assert "(not retried)" in str(e.value) and "attempts" not in str(e.value)


# --- the disk cache only saves work -------------------------------------------------------


def test_a_full_disk_cache_warns_once_and_scoring_goes_on(tmp_path, caplog):
    db = tmp_path / "nli.sqlite"
    spec = "python:tests.helpers.nli_fns:word_entail"
    scorer = citation_nli(nli=spec, nli_cache=str(db))
    backend = get_nli(spec, str(db))
    # The fault: the file may not grow by a page, as on a full disk.
    assert backend.disk is not None
    pages = backend.disk._conn.execute("PRAGMA page_count").fetchone()[0]
    backend.disk._conn.execute(f"PRAGMA max_page_count={pages}")
    docs = [{"id": "1", "title": "T", "text": "The cat sat on the mat."}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q"}
    with caplog.at_level(logging.WARNING, logger="inspect_cite.nli.cache"):
        for n in (100, 200):  # each batch of decisions needs more pages than the file may have
            pairs = [(f"word{i} word{i + 1}", f"word{i}") for i in range(n - 100, n)]
            assert all(r.entailed for r in asyncio.run(backend.entail(pairs)))
        for answer, expected in (("The cat sat [1].", 100), ("The dog sat [1].", 0)):
            score = asyncio.run(scorer(state(answer, meta), Target("")))
            assert score is not None
            assert score.value == {"citation_rec": expected, "citation_prec": expected}
    [warning] = [r.getMessage() for r in caplog.records if "NLI cache" in r.getMessage()]
    assert str(db) in warning and "database or disk is full" in warning


@pytest.mark.parametrize("kind", ["directory", "text file"])
def test_a_cache_path_that_cannot_hold_a_cache_is_refused_when_the_scorer_is_built(
    tmp_path, monkeypatch, kind
):
    path = tmp_path / "nli.sqlite"
    if kind == "directory":
        path.mkdir()
        why = "is a directory, not a SQLite file"
    else:
        path.write_text("premise\thypothesis\tentailed\n" * 20)
        why = "is not a SQLite file"
    for given in ({"nli_cache": str(path)}, {}):  # the argument, or the variable
        monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", "" if given else str(path))
        with pytest.raises(PreflightError) as e:
            citation_nli(nli="python:tests.helpers.nli_fns:word_entail", **given)
        assert str(e.value).startswith(f"NLI cache {path} {why}. Point INSPECT_CITE_NLI_CACHE")
        # Inspect drops the message of a ValueError raised building --scorer scorers/<name>.
        assert not isinstance(e.value, ValueError) and "\n" not in str(e.value)


# --- out of memory in a batched NLI forward: halve the batch and continue -------------------


def test_seq2seq_halves_the_batch_on_out_of_memory(varied_t5, caplog):  # noqa: F811
    import torch

    pairs = doc_pairs(4)
    expected = Seq2SeqNLI(str(varied_t5), batch_size=1).generate(pairs)
    # One bucket of all pairs, as on a GPU: this tests the halving, not the CPU's small buckets.
    engine = Seq2SeqNLI(str(varied_t5), batch_size=16, max_batch_tokens=65536)
    _, model = engine.load()
    engine.min_length_ratio = 0.0  # after load(), which sets the device's ratio
    real = model.generate
    rows: list[int] = []

    def generate(**kwargs):
        rows.append(len(kwargs["input_ids"]))
        if len(kwargs["input_ids"]) > 3:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB")
        return real(**kwargs)

    model.generate = generate
    assert engine.generate(pairs) == expected
    # The first length bucket was tried whole, then halved until it fit (4 -> 2 rows).
    tok, _ = engine.load()
    lengths = [len(tok(TRUE_TEMPLATE.format(premise=p, hypothesis=h)).input_ids) for p, h in pairs]
    first = chunks_by_length(lengths, 16, engine.max_batch_tokens, engine.min_length_ratio)[0]
    assert rows[0] == len(first) > 3 and engine.batch_size == 2
    assert "ran out of memory" in caplog.text


def test_classifier_halves_the_batch_on_out_of_memory(tiny_classifier):  # noqa: F811
    pairs = doc_pairs(4)[:-1]  # the tiny tokenizer adds no special tokens: ("", "") is empty
    expected = ClassifierNLI(str(tiny_classifier), batch_size=1)(pairs)
    engine = ClassifierNLI(str(tiny_classifier), batch_size=8)
    _, model = engine.load()
    real = model.forward

    def forward(**kwargs):
        if len(kwargs["input_ids"]) > 2:
            raise RuntimeError("CUDA error: out of memory")
        return real(**kwargs)

    model.forward = forward
    got = engine(pairs)
    assert [r.entailed for r in got] == [r.entailed for r in expected]  # type: ignore[union-attr]
    assert [r.prob for r in got] == pytest.approx([r.prob for r in expected])  # type: ignore[union-attr]
    # Halved from the first length bucket until a batch fit (at most the 2 rows that do).
    assert 1 <= engine.batch_size <= 2


def test_out_of_memory_on_one_pair_is_a_per_sample_failure(tiny_t5, monkeypatch):
    monkeypatch.setenv(NLI_RETRIES_ENV, "1")
    backend = get_nli(f"seq2seq:{tiny_t5}")
    engine = backend.queue.fn  # type: ignore[union-attr]
    _, model = engine.load()

    def generate(**kwargs):
        raise RuntimeError("CUDA out of memory")

    model.generate = generate
    with pytest.raises(NLIError, match="out of memory.*after 2 attempts"):
        asyncio.run(backend.entail([PAIR]))


def test_other_errors_are_not_mistaken_for_out_of_memory(tiny_t5):
    engine = Seq2SeqNLI(str(tiny_t5), batch_size=8)
    _, model = engine.load()

    def generate(**kwargs):
        raise RuntimeError("shape mismatch")

    model.generate = generate
    with pytest.raises(RuntimeError, match="shape mismatch"):
        engine.generate([PAIR, PAIR[::-1]])
    assert engine.batch_size == 8


def test_judge_errors_are_retried_with_backoff_then_reported_not_scored_low(monkeypatch):
    # The package exports the scorer under the module's name: import the module itself.
    judge_module = importlib.import_module("scorers.citation_judge")
    from tests.helpers.nli_judge import CITATION
    from tests.helpers.scripted_models import scripted_model, scripted_output

    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(judge_module, "_wait", record)
    replies: list[object] = [RuntimeError("503"), RuntimeError("503"), "Support: 4\nRelevance: 5"]

    def grade(input, tools, tool_choice, config):
        reply = replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return scripted_output(str(reply))

    grader, _ = scripted_model(grade)
    result = asyncio.run(
        judge_module.judge_citation(grader, "Q?", CITATION, "Sky", attempts=3, backoff=0.5)
    )
    assert (result["support"], result["relevance"]) == (4, 5)
    assert waits == [0.5, 1.0]

    waits.clear()
    broken, _ = scripted_model(lambda *args: (_ for _ in ()).throw(RuntimeError("judge down")))
    result = asyncio.run(
        judge_module.judge_citation(broken, "Q?", CITATION, "Sky", attempts=3, backoff=0.5)
    )
    # Never a low score: not judged, with every attempt's reason.
    assert result["support"] is None and result["relevance"] is None
    assert result["reason"].count("judge down") == 3
    assert waits == [0.5, 1.0]  # no wait after the last attempt


def test_judge_replies_that_are_not_whole_numbers_are_retried_then_not_judged():
    from scorers.citation_judge import judge_citation
    from tests.helpers.nli_judge import CITATION
    from tests.helpers.scripted_models import scripted_model

    replies = [
        '{"support": Infinity, "relevance": 5}',  # int(inf) raised OverflowError
        '{"support": true, "relevance": true}',  # was rated 1/1
        '{"support": 4.9, "relevance": 4}',  # was truncated to 4
        '{"support": 4, "relevance": 5}',
    ]
    grader, _ = scripted_model(list(replies))
    result = asyncio.run(judge_citation(grader, "Q?", CITATION, "Sky", attempts=4))
    assert (result["support"], result["relevance"]) == (4, 5)

    grader, _ = scripted_model(list(replies[:3]))
    result = asyncio.run(judge_citation(grader, "Q?", CITATION, "Sky", attempts=3))
    assert result["support"] is None and result["relevance"] is None
    reason = result["reason"]
    assert reason.count("unparsable reply (") == 3
    assert '"support" must be a whole number from 1 to 5, got inf' in reason
    assert "got True" in reason and "got 4.9" in reason


def test_annotator_replies_with_non_string_spans_are_retried_not_read_as_no_evidence():
    from solvers.span_annotation import annotate_document
    from tests.helpers.scripted_models import scripted_model

    doc = {"id": "A", "title": "Doc A", "text": "The cat sat on the mat. Dogs bark."}
    replies = [
        '{"spans": [3, true]}',  # was read as "no evidence" and cached
        '{"spans": [' + "1" * 5000 + "]}",  # a number json cannot read as int raised
        '{"spans": ["The cat sat on the mat."]}',
    ]
    model, _ = scripted_model(list(replies))
    result = asyncio.run(annotate_document(model, "q", "a", doc, attempts=3, threshold=0.7))
    assert result["error"] is None and result["spans"] == ["The cat sat on the mat."]

    model, _ = scripted_model(list(replies[:2]))
    result = asyncio.run(annotate_document(model, "q", "a", doc, attempts=2, threshold=0.7))
    assert result["spans"] == [] and result["error"].count("unparsable reply (") == 2
    assert '"spans" must hold strings, got 3' in result["error"]


# --- a hung NLI call: Inspect's limits still end the sample, and no wait is unbounded ---------


@pytest.mark.parametrize(
    "name, value",
    [
        (NLI_BACKOFF_ENV, "inf"),
        (NLI_BACKOFF_ENV, "nan"),
        (NLI_BACKOFF_ENV, "1e9"),
        (NLI_BACKOFF_ENV, "-1"),
        (NLI_RETRIES_ENV, "inf"),
        (NLI_RETRIES_ENV, "nan"),
        (NLI_RETRIES_ENV, "2.5"),
        (NLI_RETRIES_ENV, "1000000"),
    ],
)
def test_unbounded_retry_settings_are_config_errors(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(NLIConfigError, match=rf"{name}='{value}' must be an? \w+ from 0 to"):
        get_nli(FLAKY)


def test_backoff_stops_doubling_at_its_bound(monkeypatch, sleeps):
    monkeypatch.setenv(NLI_RETRIES_ENV, "8")
    monkeypatch.setenv(NLI_BACKOFF_ENV, "20")
    nli_fns.FLAKY["failures"] = 8
    asyncio.run(get_nli(FLAKY).entail([PAIR]))
    assert [s for s in sleeps if s > 0] == [20, 40, 60, 60, 60, 60, 60, 60]


@pytest.fixture
def hang() -> Iterator[threading.Event]:
    """Holds ``nli_fns.hanging_entail`` until set; set by a watchdog after 30 s at the latest."""
    release = threading.Event()
    nli_fns.HANG["release"] = release
    # Bounds the test where cancellation would wait for the hung call.
    watchdog = threading.Timer(30, release.set)
    watchdog.start()
    yield release
    release.set()
    watchdog.cancel()


def test_a_cancelled_caller_does_not_wait_for_a_hung_call_nor_strand_others(hang):
    backend = get_nli("python:tests.helpers.nli_fns:hanging_entail")
    order: list[str] = []

    async def main() -> None:
        async def impatient() -> None:
            with anyio.move_on_after(0.2):
                await backend.entail([("a b", "a")])
            order.append("cancelled" + (" after the release" if hang.is_set() else ""))
            hang.set()

        async def patient() -> None:
            await anyio.sleep(0.05)  # joins while the hung call runs
            [result] = await backend.entail([("c d", "c")])
            order.append(f"patient got {result.entailed}")

        async with anyio.create_task_group() as tg:
            tg.start_soon(impatient)
            tg.start_soon(patient)

    anyio.run(main)
    assert order == ["cancelled", "patient got True"]


def test_a_hung_nli_call_ends_at_the_samples_time_limit(hang, own_prompts, tmp_path):
    from inspect_ai import eval as inspect_eval

    from alce_tasks import asqa
    from tests.conftest import FIXTURES
    from tests.helpers.scripted_models import scripted_model

    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:1]
    model, _ = scripted_model([f"{items[0]['docs'][0]['text'][:60]} [1]."])
    task = asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli="python:tests.helpers.nli_fns:hanging_entail",
    )
    [log] = inspect_eval(
        task, model=model, display="none", log_dir=str(tmp_path), limit=1, time_limit=2
    )
    assert not hang.is_set(), "the eval waited for the hung NLI call instead of its time limit"
    assert log.samples and log.samples[0].error is not None
    assert "time limit" in log.samples[0].error.message.lower()
